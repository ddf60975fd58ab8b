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
 * nodecure: the timed threadpool's header for upstream's files (the hooks in
 * threadpool.c, fs.c, getaddrinfo.c, getnameinfo.c, linux.c and
 * uv-common.c) and for the Manager and the layers above it. Its layers,
 * bottom-up, and the lock table are described in threadpool-core.h; the
 * headers of layers 0 to 2 are included here. Inline below: what the
 * per-task and per-call paths ask (a submission's budget, the worker's
 * question after a task, fs.c's gates, the hop's first test).
 *
 * On Windows the hooks compile to nothing: the feature is POSIX only.
 */

#ifndef UV_THREADPOOL_MANAGER_H_
#define UV_THREADPOOL_MANAGER_H_

#include "uv-common.h"
#include "uv/timeout.h"

#include <signal.h>

#ifndef _WIN32

#include "threadpool-core.h"     /* layer 0 */
#include "hangman.h"             /* layer 1 */
#include "slow-resource.h"       /* layer 1 */
#include "mount-table.h"         /* layer 1 */
#include "priority-executor.h"   /* layer 2 */


/* threadpool-manager.c: the Manager (layer 3). */

/* What a pool worker does after a task returns (uv__tpm_disposition()). */
enum {
  UV__TPM_DELIVER = 0,  /* upstream's path: post the done callback */
  UV__TPM_SKIP,         /* timed out, already delivered: take the next task */
  UV__TPM_EXIT          /* abandoned and replaced: leave the pool */
};

/* Nonzero once any timeout has been asked for; until then submissions take
 * upstream's path untouched. */
extern _Atomic int uv__tpm_active;
extern _Thread_local int uv__tpm_disp;

#define uv__tpm_enabled()                                                     \
  atomic_load_explicit(&uv__tpm_active, memory_order_relaxed)

/* The pool's budget (uv_threadpool_set_timeout()), and that of the fs and
 * DNS requests the calling thread submits: 0 (none) until it opts in with
 * uv_threadpool_set_thread_timeout(). Inline: read on every submission. */
extern _Atomic uint64_t uv__tpm_default_ms;
extern _Thread_local uint64_t uv__tpm_thread_ms;

static inline uint64_t uv__tpm_budget_ms(void) {
  uint64_t ms;

  ms = uv__tpm_thread_ms;
  if (ms == UV_THREADPOOL_TIMEOUT_DEFAULT)
    ms = atomic_load_explicit(&uv__tpm_default_ms, memory_order_relaxed);
  return ms;
}

/* Whether an fs or DNS request submitted now would be timed. */
static inline int uv__tpm_budget_set(void) {
  return uv__tpm_enabled() && uv__tpm_budget_ms() != 0;
}

/* After each task, on the worker: one thread-local read. */
static inline int uv__tpm_disposition(void) {
  int d;

  d = uv__tpm_disp;
  if (d != UV__TPM_DELIVER)
    uv__tpm_disp = UV__TPM_DELIVER;
  return d;
}

/* A status delivered by the Manager: the request's memory follows the
 * lifetime rule of uv/timeout.h (uv_threadpool_on_reclaim()). */
#define uv__tpm_is_timeout(status)                                            \
  ((status) == UV_ETIMEDOUT || (status) == UV_EABANDONCAP ||                 \
   (status) == UV_EPOOLSTALLED)

/* Once: the Manager, the Hangman and the core. Without the lock. */
void uv__tpm_init(void);
struct uv__work* uv__tpm_wrap(struct uv__work* w, enum uv__work_kind kind);
struct uv__work* uv__tpm_cancel_target(struct uv__work* w);
int uv__tpm_commit_work(struct uv__work* w);
void uv__tpm_on_reclaim_internal(struct uv__work* w,
                                 void (*cb)(struct uv__work* w));
int uv__tpm_thread_stuck(const uv_thread_t* tid);
void uv__tpm_loop_close(uv_loop_t* loop);
void uv__tpm_cleanup(void);

/* The timed task the calling pool thread runs, or NULL. */
struct uv__tpm_task;
extern _Thread_local struct uv__tpm_task* uv__tpm_current;


/* threadpool.c (upstream's, patched), called by the Manager with
 * uv__tpm_mutex held; they take threadpool.c's `mutex`. */
int uv__threadpool_replace(const uv_thread_t* old, int slow_io);
int uv__threadpool_flush_stalled(unsigned int stuck,
                                 unsigned int stuck_slow,
                                 int (*take)(struct uv__work* w));


/* fs.c's gate of the slow-resource list (slow-resource.h), in POST: zero
 * cost while the list is empty. Only requests that would be timed are
 * refused (the list spares the pool, it does not judge the resource for
 * anybody else); a close always goes through, to forget its fd. */
#define uv__slowres_refused(req)                                              \
  (atomic_load_explicit(&uv__slowres_entries, memory_order_relaxed) != 0 &&   \
   ((req)->fs_type == UV_FS_CLOSE ||                                          \
    ((req)->cb != NULL && uv__tpm_budget_set())) &&                           \
   uv__slowres_check(req) != 0)


/* fs-timeout.c (layer 4): after an fs request's system call, nonzero if
 * the work may publish `r` (errno `err`). Inline for what nearly every call
 * is: untimed work, or timed work that was not interrupted and commits its
 * result. */
int uv__fs_commit_slow(uv_fs_t* req, ssize_t r, int err);
int uv__fs_commit_late(uv_fs_t* req, ssize_t r);
void uv__fs_release_late(uv_fs_t* req, ssize_t r);
static inline int uv__fs_commit(uv_fs_t* req, ssize_t r, int err) {
  if (r == -1 && err == EINTR)
    return uv__fs_commit_slow(req, r, err);
  if (uv__tpm_current == NULL || uv__tpm_commit_work(&req->work_req))
    return 1;
  return uv__fs_commit_late(req, r);
}


/* sync-stop.c (layer 4; its API is uv/sync-stop.h): on the owner, the
 * section's call was abandoned while it ran and may still take effect
 * (uv_sync_stop_call_abandoned()). */
void uv__sync_stop_mark_abandoned(void);


/* fs-hop.c (layer 5): in a stoppable section, uv__fs_hop() runs a
 * synchronous request on the Priority Executor if its path lies on a
 * hang-prone mount and returns nonzero (req->result set), else returns 0
 * for the caller to run it in place. Inline: on every synchronous call of a
 * section, where it nearly always returns at its first test (no hang-prone
 * mount, and a watcher that would say when one appears). */
int uv__fs_hop_slow(uv_fs_t* req, void (*fs_work)(struct uv__work* w));
static inline int uv__fs_hop(uv_fs_t* req,
                             void (*fs_work)(struct uv__work* w)) {
  if (!atomic_load_explicit(&uv__mounts_any, memory_order_relaxed) &&
      atomic_load_explicit(&uv__mounts_watched, memory_order_relaxed))
    return 0;
  return uv__fs_hop_slow(req, fs_work);
}

#else  /* _WIN32 */

#define uv__tpm_enabled() 0
#define uv__tpm_disposition() 0
#define UV__TPM_DELIVER 0
#define UV__TPM_SKIP 1
#define UV__TPM_EXIT 2
#define uv__tpm_wrap(w, kind) (w)
#define uv__tpm_cancel_target(w) (w)
#define uv__tpm_thread_stuck(tid) 0
#define uv__tpm_loop_close(loop) ((void) 0)
#define uv__tpm_cleanup() ((void) 0)

#endif  /* _WIN32 */
#endif  /* UV_THREADPOOL_MANAGER_H_ */
