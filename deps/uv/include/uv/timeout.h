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
 * nodecure: timeouts for the threadpool (POSIX only).
 *
 * A new header on purpose: uv.h, every struct of it and uv_queue_work() stay
 * upstream's, so addons built against Node 22's uv.h keep working. The design
 * and its policies are described in doc/contributing/threadpool-timeouts.md.
 *
 * Nothing is timed unless its submitter asks: uv_queue_work_timed(), or fs
 * and DNS requests submitted while the calling thread has a budget
 * (uv_threadpool_set_thread_timeout()). Plain uv_queue_work(), uv_random()
 * and every other thread's requests keep upstream's contract, so code that
 * does not know about timeouts (addons, libuv's own fs-poll) never meets
 * one.
 *
 * A task past its budget is told to stop (uv_threadpool_should_stop(); its
 * thread gets the interrupt signal, so a blocking system call returns EINTR)
 * and the pool gets a replacement worker at once. Its done callback runs
 * when the work has returned, or when a short grace period has passed
 * (the budget, at most 50 ms), whichever comes first:
 *
 * - the work returned: nothing of it runs any more. Work that committed
 *   (uv_threadpool_commit(), e.g. an fs call that got a real result in the
 *   meantime) completes normally, with status 0; other work gets
 *   UV_ETIMEDOUT.
 * - the grace period passed: the work is abandoned, still running.
 *
 * Lifetime rule for every request that completes with UV_ETIMEDOUT or
 * UV_EABANDONCAP: its work may still be running on an abandoned thread. The
 * request, and every buffer or string it refers to, belong to that work until
 * the reclaim callback registered with uv_threadpool_on_reclaim() runs (at
 * once after the done callback if the work returned already). Only the
 * status (for fs requests: req->result) may be read before that. A request
 * that completes with UV_EPOOLSTALLED never ran; it follows the same rule,
 * its reclaim callback running at once after the done callback, so callers
 * can treat the three codes alike.
 */

#ifndef UV_TIMEOUT_H
#define UV_TIMEOUT_H

#include "uv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes of our own, outside libuv's ranges; uv_timeout_err_name() and
 * uv_timeout_strerror() know them (uv_err_name() does not). */

/* An fs request was refused because its resource is on the slow-resource
 * list: an earlier request on it timed out. */
#define UV_ESLOWRESOURCE (-9101)
/* A threadpool task exceeded its budget but could not be abandoned because
 * the cap on abandoned threads was reached: its thread goes back to the pool
 * when the work returns. Also returned by uv_priority_work() when no executor
 * can be started for the same reason. */
#define UV_EABANDONCAP (-9102)
/* A timed request that was still queued when the pool stalled: every
 * worker was kept in timed-out work that the cap on abandoned threads did
 * not let the pool abandon (or, for slow I/O such as DNS, every worker that
 * slow I/O may use). It never ran: nothing of it runs later. Untimed
 * requests keep waiting, as upstream's do. */
#define UV_EPOOLSTALLED (-9103)

/* "Use the budget in effect" (the calling thread's, else the pool's). */
#define UV_THREADPOOL_TIMEOUT_DEFAULT ((uint64_t) -1)

/* Pool-wide default budget in milliseconds for one threadpool task that
 * asked for it (uv_queue_work_timed() with UV_THREADPOOL_TIMEOUT_DEFAULT, fs
 * and DNS requests of a thread that follows it); 0 (the initial value) turns
 * timeouts off. Counted from the moment a worker starts the task, not from
 * submission. */
UV_EXTERN int uv_threadpool_set_timeout(uint64_t timeout_ms);
UV_EXTERN uint64_t uv_threadpool_get_timeout(void);

/* Budget for the fs and DNS requests submitted from the calling thread:
 * timeout_ms milliseconds, the pool default (UV_THREADPOOL_TIMEOUT_DEFAULT)
 * or none (0, every thread's initial value). Returns the previous value, so
 * a caller can scope it around its own submissions, as Node does around the
 * requests of its bindings. */
UV_EXTERN uint64_t uv_threadpool_set_thread_timeout(uint64_t timeout_ms);

/* Called on the manager's thread when `req` has run `elapsed_ms`, past its
 * budget. Return a number of milliseconds to extend the budget by, or 0 to
 * let the task time out. The request stays valid during the call and its
 * completion waits for the decision; keep it short and do not call into the
 * loop. */
typedef uint64_t (*uv_work_timedout_cb)(uv_work_t* req, uint64_t elapsed_ms);

/* uv_queue_work() with a budget: timeout_ms milliseconds (0 = none;
 * UV_THREADPOOL_TIMEOUT_DEFAULT = the pool default) and an optional
 * timed-out callback. A task past its budget is stopped, replaced and, if it
 * does not return in the grace period, abandoned (see above): after_work_cb
 * gets UV_ETIMEDOUT (or UV_EABANDONCAP) and the old thread is reaped once
 * its work returns. */
UV_EXTERN int uv_queue_work_timed(uv_loop_t* loop,
                                  uv_work_t* req,
                                  uv_work_cb work_cb,
                                  uv_after_work_cb after_work_cb,
                                  uint64_t timeout_ms,
                                  uv_work_timedout_cb timedout_cb);

/* What the manager does with a task past its budget, pool-wide:
 * UV_THREADPOOL_ACTION_STOP (the default) stops it as described above;
 * UV_THREADPOOL_ACTION_REPORT only reports it: the task runs on to its end
 * as if it had no budget (no stop flag, no signal, no replacement worker, no
 * slow-resource mark, its done callback gets its own status), and the loop
 * that submitted it is told once, through the report callback below. For
 * applications that want to see what would time out before they let it. */
#define UV_THREADPOOL_ACTION_STOP 0
#define UV_THREADPOOL_ACTION_REPORT 1
UV_EXTERN int uv_threadpool_set_action(int action);
UV_EXTERN int uv_threadpool_get_action(void);

/* Called on the loop thread of a task reported past its budget
 * (UV_THREADPOOL_ACTION_REPORT), with the tag it was submitted with and how
 * long it had run, before the request's done callback: the request is still
 * pending, so whatever the tag points to that the request keeps alive is
 * alive. Only tasks submitted with a tag are reported (all are counted). */
typedef void (*uv_threadpool_report_cb)(uv_loop_t* loop,
                                        void* tag,
                                        uint64_t elapsed_ms);
UV_EXTERN void uv_threadpool_set_report_cb(uv_threadpool_report_cb cb);

/* The tag of the timed requests the calling thread submits from now on
 * (NULL: none); returns the previous one, so that a caller can scope it
 * around a submission, as it does the budget. */
UV_EXTERN void* uv_threadpool_set_thread_tag(void* tag);

/* Cooperative cancellation, for work running on a pool or priority thread:
 * nonzero once the task running on the calling thread has been abandoned.
 * uv_work_should_stop() also checks that `req` is that task. */
UV_EXTERN int uv_threadpool_should_stop(void);
UV_EXTERN int uv_work_should_stop(uv_work_t* req);

/* Called by work about to publish its results: returns 1 if the loop has not
 * been told of a timeout, and from then on the task completes normally
 * (finish quickly: it cannot time out any more); returns 0 if it was
 * abandoned (do not publish: the done callback has or will have
 * UV_ETIMEDOUT). Outside a timed task, returns 1. */
UV_EXTERN int uv_threadpool_commit(void);

/* Called from a done callback that received UV_ETIMEDOUT, UV_EABANDONCAP or
 * UV_EPOOLSTALLED:
 * run cb(arg) on the loop thread once the abandoned work has really returned,
 * when the request's memory can be released. Returns UV_EINVAL elsewhere.
 * If the loop is closed first, cb is not called. */
typedef void (*uv_reclaim_cb)(void* arg);
UV_EXTERN int uv_threadpool_on_reclaim(uv_reclaim_cb cb, void* arg);

/* Called from the same done callbacks: what became of the work. 1 if it had
 * stopped when the loop was told (or, for UV_EPOOLSTALLED, never ran):
 * nothing of it runs or takes effect any more; for an fs request, its
 * system call was interrupted before it did anything (a call that did
 * something completes normally instead: a short write reports its bytes).
 * 0 if it was abandoned while it ran: it may still take effect, fully or in
 * part (a write land, a file be created, renamed or removed). Returns
 * UV_EINVAL elsewhere. */
UV_EXTERN int uv_threadpool_work_stopped(void);

/* Abandoned threads that have not returned yet are capped (default 64, or
 * the number in the environment variable UV_THREADPOOL_ABANDONED_LIMIT if
 * set when the cap is first needed; this call overrides it). Past the cap, a
 * task that times out is reported with UV_EABANDONCAP and its thread is not
 * replaced: the pool keeps it until its work returns. While every worker is
 * kept so, the pool is stalled: timed requests still queued, and those
 * queued while it lasts, complete with UV_EPOOLSTALLED (a few milliseconds
 * after their submission), so that each gets an outcome. */
UV_EXTERN int uv_threadpool_set_abandoned_limit(unsigned int limit);

/* The real-time signal sent to timed-out threads so that blocking system
 * calls return EINTR; by default the first of SIGRTMIN+6..SIGRTMAX without a
 * handler, chosen when first needed, or the number in the environment
 * variable UV_THREADPOOL_INTERRUPT_SIGNAL (0 = none) if set when it is first
 * needed. 0 disables signalling. Its handler does nothing and is installed
 * without SA_RESTART. */
UV_EXTERN int uv_threadpool_set_interrupt_signal(int signum);
UV_EXTERN int uv_threadpool_get_interrupt_signal(void);

/* Inside work, on the thread that runs it: 0 keeps the interrupt signal away
 * from the calling thread (its blocking system calls are not interrupted when
 * its task times out), 1 lets it in again; returns the previous setting (1
 * outside a pool thread). For work that does not expect EINTR from a signal
 * it did not install: Node runs Node-API `execute` this way, and an addon's
 * execute may call it with 1 to be interrupted. A signal sent meanwhile stays
 * pending and is taken, doing nothing, when it is let in again. */
UV_EXTERN int uv_threadpool_set_interruptible(int on);

typedef struct uv_threadpool_stats_s {
  uint64_t timed_out;           /* tasks past their budget (pool, priority) */
  uint64_t extended;            /* budget extensions granted */
  uint64_t abandoned;           /* threads abandoned, in total */
  uint64_t abandoned_live;      /* abandoned threads not reaped yet */
  uint64_t cap_hits;            /* timeouts or executors refused by the cap */
  uint64_t slow_resources;      /* active entries of the slow-resource list */
  uint64_t slow_resource_marks; /* marks accepted (re-marks included) */
  uint64_t slow_resource_hits;  /* fs requests refused by the list */
  uint64_t slow_resource_dropped; /* marks dropped: the list was full of
                                     active entries */
  uint64_t slow_resource_exempt;  /* timeouts on resources never marked
                                     (stdio, devices, back-pressure) */
  uint64_t stopped;             /* timed out, returned in the grace period */
  uint64_t completed_late;      /* of those, committed: completed normally */
  uint64_t kept_live;           /* threads kept in timed-out work (cap) */
  uint64_t stalled;             /* requests failed with UV_EPOOLSTALLED */
  uint64_t reported;            /* tasks past their budget, only reported */
  uint64_t hopped;              /* synchronous calls on a hang-prone mount
                                   run on the Priority Executor */
} uv_threadpool_stats_t;

UV_EXTERN void uv_threadpool_get_stats(uv_threadpool_stats_t* stats);

/* Priority executor: runs work for a caller that waits for it synchronously
 * (e.g. a *Sync API on the loop thread) on a dedicated thread outside the
 * pool's queue, so that the wait can be abandoned. */
typedef struct uv_priority_work_s uv_priority_work_t;
typedef void (*uv_priority_cb)(uv_priority_work_t* req);

struct uv_priority_work_s {
  void* data;
  /* private */
  void* reserved_[2];
};

/* Runs work_cb(req) on an executor thread and blocks until it returns (0),
 * timeout_ms elapses first (UV_ETIMEDOUT; 0 = no timeout), the calling thread
 * is told to stop (uv_threadpool_should_stop() turns nonzero on it: a stopped
 * section of uv/sync-stop.h, a timed task past its budget; UV_ETIMEDOUT,
 * seen within 5 ms) or another thread calls uv_priority_work_abandon(req)
 * (UV_ECANCELED). In the last three cases
 * the executor is abandoned like a pool worker and cleanup_cb(req), if any,
 * runs on it once work_cb has returned: `req` and what it points to must stay
 * valid until then. Returns UV_EABANDONCAP, without running work_cb, when no
 * executor is free and the cap on abandoned threads is reached. */
UV_EXTERN int uv_priority_work(uv_priority_work_t* req,
                               uv_priority_cb work_cb,
                               uv_priority_cb cleanup_cb,
                               uint64_t timeout_ms);

/* Thread-safe. Makes a pending uv_priority_work(req) return UV_ECANCELED.
 * Returns 0, or UV_ENOENT if req is not waiting (not started, finished or
 * already committed). */
UV_EXTERN int uv_priority_work_abandon(uv_priority_work_t* req);

/* Slow-resource list. An fs request that times out marks its resource: its
 * fd, its path, and the device and inode behind them when they can be learnt
 * without blocking. Later threadpool requests (with a callback; fs.c asks
 * for those that would be timed) that would touch that resource fail at once
 * with UV_ESLOWRESOURCE, returned by the uv_fs_* call itself. The list
 * protects the pool: synchronous requests are never refused, nor are close,
 * unlink, rmdir, rename and the calls that create names. Closing a listed fd
 * through uv_fs_close() forgets the fd.
 *
 * Never marked: fds 0-2 and any resource with the device and inode of what
 * they refer to, character devices, paths under /dev/ and /proc/.../fd/, and
 * FIFOs and sockets whose timed-out request was a write, sendfile (out fd),
 * fsync, fdatasync or ftruncate (a reader's back-pressure); such timeouts
 * are counted in slow_resource_exempt.
 *
 * Entries expire with backoff: the first mark refuses the resource for
 * base_ttl_ms (default 30000), each new mark after it expired doubles that,
 * up to max_ttl_ms (default 3600000). An expired entry remembers its strikes
 * until max_ttl_ms passes without a new mark. base_ttl_ms == 0 makes entries
 * permanent (max_ttl_ms is then ignored). Applies to marks made afterwards.
 * Returns UV_EINVAL if base_ttl_ms != 0 and max_ttl_ms < base_ttl_ms.
 *
 * At most 256 entries, active and remembered: when full, the least recently
 * marked remembered entry is evicted, never an active one; with no
 * remembered entry, the new mark is dropped (slow_resource_dropped). */
#define UV_FS_SLOW_RESOURCE_BASE_TTL_MS 30000    /* the defaults */
#define UV_FS_SLOW_RESOURCE_MAX_TTL_MS 3600000
UV_EXTERN int uv_fs_slow_resource_set_policy(uint64_t base_ttl_ms,
                                             uint64_t max_ttl_ms);
/* A fixed time-to-live: uv_fs_slow_resource_set_policy(ttl_ms, ttl_ms);
 * 0 = permanent. */
UV_EXTERN int uv_fs_slow_resource_set_ttl(uint64_t ttl_ms);
/* Active entries (those that refuse requests). */
UV_EXTERN unsigned int uv_fs_slow_resource_count(void);
UV_EXTERN int uv_fs_slow_resource_check_fd(uv_file fd);
UV_EXTERN int uv_fs_slow_resource_check_path(const char* path);
/* Forgets every entry, remembered strikes included. */
UV_EXTERN void uv_fs_slow_resource_clear(void);

/* An active entry, as uv_fs_slow_resource_foreach() reports it. */
typedef struct uv_fs_slow_resource_s {
  uv_file fd;                /* -1: not known by fd */
  const char* path;          /* NULL: not known by path; valid during the
                                callback only */
  uint64_t dev;              /* device and inode, if has_id */
  uint64_t ino;
  int has_id;
  unsigned int strikes;      /* marks in separate episodes, this one
                                included; sets the TTL */
  uint64_t expires_in_ms;    /* until it expires (at least 1); 0: permanent */
} uv_fs_slow_resource_t;

/* Calls cb(entry, arg) for each active entry, least recently marked first,
 * with the list's lock held: cb must be quick and must not call the
 * uv_fs_slow_resource_* API, uv_threadpool_get_stats(), uv_fs_* (they
 * consult the list) or fork() (which takes the lock). */
UV_EXTERN void uv_fs_slow_resource_foreach(
    void (*cb)(const uv_fs_slow_resource_t* e, void* arg), void* arg);

/* Called on the loop thread when a timed-out fs request marks its resource,
 * before the request's callback (not for exempt resources nor dropped
 * marks). */
typedef void (*uv_slow_resource_cb)(const uv_fs_t* req);
UV_EXTERN void uv_fs_slow_resource_set_cb(uv_slow_resource_cb cb);

/* Like uv_err_name() / uv_strerror(), knowing the codes above too. */
UV_EXTERN const char* uv_timeout_err_name(int err);
UV_EXTERN const char* uv_timeout_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif /* UV_TIMEOUT_H */
