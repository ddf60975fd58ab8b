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
 * nodecure: stopping another thread's synchronous calls (POSIX only).
 *
 * A thread whose synchronous calls must end when another thread says so
 * (Node's loop thread: its *Sync APIs obey --event-loop-timeout) registers a
 * stop. Each call that may block or run long is a section between
 * uv_sync_stop_enter() and uv_sync_stop_leave(); libuv makes one of every
 * synchronous uv_fs_*() call of a registered thread. uv_sync_stop_request(),
 * from any thread, stops the section in progress if it has the given token:
 * the owner's uv_threadpool_should_stop() turns nonzero (the cooperative
 * checks of long CPU loops) and the owner gets the threadpool's interrupt
 * signal (uv/timeout.h), so that a blocking system call returns EINTR. A
 * synchronous uv_fs_*() call stopped before it did anything returns
 * UV_ETIMEDOUT; one that did something (a short read or write) returns that.
 *
 * The signal reaches the owner only inside a section, never in code that
 * does not expect EINTR. Nothing is abandoned: the call returns on its own
 * thread, so everything it touches stays owned by its caller.
 */

#ifndef UV_SYNC_STOP_H
#define UV_SYNC_STOP_H

#include <stdint.h>

#include "uv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct uv_sync_stop_s uv_sync_stop_t;

/* On the owner, at each section's start: the section's token, or 0 for a
 * call that nothing may stop (it then runs as it would without a stop). */
typedef uint64_t (*uv_sync_stop_token_cb)(void* data);

/* Registers a stop for the calling thread (one per thread) and prepares the
 * thread for the interrupt signal. Returns NULL if the thread has one
 * already or memory is short. */
UV_EXTERN uv_sync_stop_t* uv_sync_stop_register(uv_sync_stop_token_cb cb,
                                                void* data);

/* On the owner, outside any section, once no uv_sync_stop_request() for it
 * can run any more: unregisters and frees it. */
UV_EXTERN void uv_sync_stop_unregister(uv_sync_stop_t* stop);

/* On the owner: a section begins (nonzero) if the thread has a stop and its
 * token callback returns a token; sections nest, the outermost counts. Every
 * call must be paired with uv_sync_stop_leave(). */
UV_EXTERN int uv_sync_stop_enter(void);

/* On the owner: the section ends. Nonzero if it was stopped. The signal, if
 * one was sent, has been handled when this returns. */
UV_EXTERN int uv_sync_stop_leave(void);

/* On the owner: the token of the last outermost section if it was stopped,
 * else 0; clears it, so that one stop is reported once. The next section
 * clears it too. */
UV_EXTERN uint64_t uv_sync_stop_take(void);

/* On the owner, after a synchronous uv_fs_*() call of the last section
 * returned UV_ETIMEDOUT: nonzero if that call ran on the Priority Executor
 * (a path on a network or FUSE mount) and was abandoned while it ran, and
 * may still take effect, fully or in part (a write land, an open create or
 * truncate its file); 0 if it did nothing and never will. The next section
 * clears it. */
UV_EXTERN int uv_sync_stop_call_abandoned(void);

/* On the owner: nonzero inside a section. */
UV_EXTERN int uv_sync_stop_inside(void);

/* Any thread: stops the owner's section in progress if its token is `token`.
 * Returns nonzero if it did. */
UV_EXTERN int uv_sync_stop_request(uv_sync_stop_t* stop, uint64_t token);

#ifdef __cplusplus
}
#endif

#endif  /* UV_SYNC_STOP_H */
