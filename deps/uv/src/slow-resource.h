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
 * nodecure: the slow-resource list's interface (slow-resource.c, layer 1:
 * calls the core only). fs.c's POST asks through uv__slowres_refused()
 * (threadpool-manager.h), uv__fs_done() marks; the Manager reports its
 * counters.
 */

#ifndef UV_SLOW_RESOURCE_H_
#define UV_SLOW_RESOURCE_H_

#include "threadpool-core.h"

/* Active entries: written under uv__slowres_mutex, read without it as
 * fs.c's gate (zero cost while the list is empty). */
extern _Atomic unsigned int uv__slowres_entries;

/* From POST in fs.c, only while an entry is active: UV_ESLOWRESOURCE (also
 * in req->result, the request's copies released) to refuse the request, 0
 * to let it run. A close forgets its fd. */
int uv__slowres_check(uv_fs_t* req);
/* From uv__fs_done(), on the loop, for a request that timed out. */
void uv__slowres_mark(uv_fs_t* req);
/* Takes the list's lock. */
void uv__slowres_stats(uv_threadpool_stats_t* stats);

#endif  /* UV_SLOW_RESOURCE_H_ */
