/* Copyright nodecure contributors. All rights reserved.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to
 * deal in the Software without restriction, including without limitation the
 * rights to use, copy, modify, merge, publish, distribute, sublicense, and/or
 * sell copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in
 * all copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
 * FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
 * IN THE SOFTWARE.
 */

/*
 * nodecure: the Priority Executor's interface for the Manager
 * (priority-executor.c, layer 2: calls the Hangman and the core). Its public
 * API, uv_priority_work() and uv_priority_work_abandon(), is in
 * uv/timeout.h; fs-hop.c uses that.
 */

#ifndef UV_PRIORITY_EXECUTOR_H_
#define UV_PRIORITY_EXECUTOR_H_

#include "hangman.h"

/* uv_threadpool_commit() on an executor thread (1 elsewhere). */
int uv__executor_commit(void);
/* At exit: stops and joins the idle executors. Without the lock. */
void uv__executor_cleanup(void);
/* With uv__tpm_mutex held: adds the executor's timeouts and cap hits. */
void uv__executor_stats(uv_threadpool_stats_t* stats);

#endif  /* UV_PRIORITY_EXECUTOR_H_ */
