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
 * nodecure: the core of the timed threadpool, layer 0 of its files.
 *
 * Layers. A file calls only files below it; upstream's files (threadpool.c,
 * fs.c, getaddrinfo.c, getnameinfo.c, linux.c, uv-common.c) call into them
 * through threadpool-manager.h.
 *
 *   5  fs-hop.c               synchronous calls on hang-prone mounts hop to
 *                             the Priority Executor
 *   4  sync-stop.c            stoppable sections of synchronous calls
 *      fs-timeout.c           what a timed fs call may publish
 *   3  threadpool-manager.c   the Manager: budgets, task records, slots
 *   2  priority-executor.c    the Priority Executor: uv_priority_work()
 *   1  hangman.c              the Hangman: abandoned threads
 *      slow-resource.c        the slow-resource list
 *      mount-table.c          the mount table: which mounts are hang-prone
 *   0  threadpool-core.c      this file
 *
 *   fs-hop.c      -> fs-timeout.c, sync-stop.c, priority-executor.c,
 *                    mount-table.c, core
 *   sync-stop.c   -> hangman.c, mount-table.c, core
 *   fs-timeout.c  -> threadpool-manager.c, core
 *   threadpool-manager.c -> priority-executor.c, hangman.c,
 *                    slow-resource.c, core (and threadpool.c)
 *   priority-executor.c -> hangman.c, core
 *   hangman.c, slow-resource.c, mount-table.c -> core
 *
 * The core holds what several layers share: the Manager's mutex and the
 * lock table below, the once-only init and its fork handler, the signal
 * mask of the threads we start, the timer thread (each layer that needs
 * it registers a chore; the core wakes it), the calling thread's stop word,
 * and the one counter written above the Manager (hops).
 *
 * THE LOCK TABLE. Every mutex the timed threadpool takes, in the one order
 * in which a thread may hold several: it takes a mutex only while every
 * mutex it holds comes earlier in this table. A leaf is held alone.
 *
 *   1. uv__tpm_mutex (threadpool-core.c): the Manager's mutex.
 *      Guards the timer thread's state and chores (core); the slot list,
 *      every task record's cold half, the zombie list, the kept and
 *      stalling counts and the Manager's counters (threadpool-manager.c);
 *      the Hangman's list, cap, signal and counters (hangman.c); the idle
 *      and busy executors, each executor's state and job, the Priority
 *      Executor's counters (priority-executor.c). A slot's DECIDING state
 *      is left only with it held. Never taken by an untimed task; a timed
 *      task that ends in time takes it only to wake a sleeping timer thread
 *      (its deadline is earlier than the next wake-up: uv__tpm_run()) and,
 *      on a worker's first timed task, for the worker's slot.
 *   2. threadpool.c's `mutex` (upstream): the pool's queues and threads.
 *      Taken under 1 by uv__threadpool_replace() and
 *      uv__threadpool_flush_stalled().
 *   3. a loop's wq_mutex (upstream): the loop's completion queue. Taken
 *      under 1 by the Manager to post a delivery or take it back
 *      (uv__tpm_enqueue(), uv__tpm_loop_close()), under 2 by upstream's
 *      uv_cancel().
 *   4. uv__mounts_load_mutex (mount-table.c): one reader of mountinfo.
 *   5. uv__mounts_mutex (mount-table.c), leaf: the published mount table
 *      (replaced under it; the old one freed after it, under 4, when no
 *      reader can hold it).
 *   6. uv__hop_mutex (fs-hop.c), leaf: the stuck mounts, the fds hops
 *      opened, and each hop's `ran` and, once abandoned, `refs`.
 *   7. uv__slowres_mutex (slow-resource.c), leaf: the slow-resource list,
 *      its entries, policy and counters.
 *
 * No callback of the user's runs with any of them held (the timed-out,
 * report, reclaim and mark callbacks run without; the callback of
 * uv_fs_slow_resource_foreach() is the documented exception, under 7), nor
 * does any wait for I/O but the read of mountinfo, under 4. Under
 * uv__tpm_mutex: waits on its condition variables, and the creation of a
 * thread (a replacement worker, an executor, the timer thread, and with 2
 * held too, uv__threadpool_replace()'s wait for the new worker to start);
 * joins happen without it. Around fork(), the
 * forking thread holds 4 to 7 (their owners' pthread_atfork() handlers, in
 * whatever order those were registered: nothing else nests them) and each
 * is made anew in the child; 1 is not held around fork(), only made anew
 * in the child.
 *
 * Checks: with UV__TPM_DEBUG (no NDEBUG, and UV__TPM_CHECKS, which the unit
 * tests define: Node builds libuv without NDEBUG, and its builds must not
 * pay for them), uv__tpm_lock() asserts the order above and records the
 * holding thread, UV__TPM_ASSERT_HELD() checks it in every function that
 * requires a lock, and UV__TPM_ASSERT() checks the state transitions of
 * slots and executors. Without, the wrappers are uv_mutex_lock() and
 * uv_mutex_unlock() and the checks compile to nothing.
 */

#ifndef UV_THREADPOOL_CORE_H_
#define UV_THREADPOOL_CORE_H_

#include "uv-common.h"
#include "uv/timeout.h"

#include <assert.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#if !defined(NDEBUG) && defined(UV__TPM_CHECKS)
# define UV__TPM_DEBUG 1
#endif

#ifdef UV__TPM_DEBUG
# define UV__TPM_ASSERT(expr) assert(expr)
#else
# define UV__TPM_ASSERT(expr) ((void) 0)
#endif

/* The core's variables that other files use: hidden, so that those reach
 * them as directly as the core does (on the per-task path: no load of
 * their address from the GOT, for the thread-locals either). */
#if defined(__GNUC__)
# define UV__TPM_HIDDEN __attribute__((visibility("hidden")))
#else
# define UV__TPM_HIDDEN
#endif

/* Times in ns (uv_hrtime()); "never" for a wake-up or a deadline. */
#define UV__TPM_NEVER ((uint64_t) -1)
#define UV__NS_PER_MS ((uint64_t) 1000000)


/* Locks. Ranks: the lock table above. */
enum {
  UV__LOCK_TPM = 1,
  UV__LOCK_POOL,          /* upstream's: not wrapped, listed for the order */
  UV__LOCK_WQ,            /* upstream's: not wrapped, listed for the order */
  UV__LOCK_MOUNTS_LOAD,
  UV__LOCK_MOUNTS,
  UV__LOCK_HOP,
  UV__LOCK_SLOWRES
};

typedef struct {
  uv_mutex_t mutex;
#ifdef UV__TPM_DEBUG
  _Atomic uintptr_t owner;  /* UV__TPM_SELF of its holder, 0 when free */
  unsigned int rank;
#endif
} uv__tpm_lock_t;

#ifdef UV__TPM_DEBUG
/* The ranks of the locks the calling thread holds, one bit each; its
 * address tells threads apart. */
extern _Thread_local unsigned int uv__tpm_held_ranks UV__TPM_HIDDEN;
# define UV__TPM_SELF ((uintptr_t) &uv__tpm_held_ranks)
# define UV__TPM_ASSERT_HELD(l)                                               \
  assert(atomic_load_explicit(&(l)->owner, memory_order_relaxed) ==           \
         UV__TPM_SELF)
#else
# define UV__TPM_ASSERT_HELD(l) ((void) 0)
#endif

/* Also in a forked child, on a lock the parent's threads may have held. */
static inline int uv__tpm_lock_init(uv__tpm_lock_t* l, unsigned int rank) {
#ifdef UV__TPM_DEBUG
  atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
  l->rank = rank;
#else
  (void) rank;
#endif
  return uv_mutex_init(&l->mutex);
}

static inline void uv__tpm_lock(uv__tpm_lock_t* l) {
#ifdef UV__TPM_DEBUG
  /* Nothing held that comes at or after it in the lock table (nor itself:
   * none of them is recursive). */
  assert((uv__tpm_held_ranks >> l->rank) == 0);
#endif
  uv_mutex_lock(&l->mutex);
#ifdef UV__TPM_DEBUG
  atomic_store_explicit(&l->owner, UV__TPM_SELF, memory_order_relaxed);
  uv__tpm_held_ranks |= 1u << l->rank;
#endif
}

static inline void uv__tpm_unlock(uv__tpm_lock_t* l) {
#ifdef UV__TPM_DEBUG
  UV__TPM_ASSERT_HELD(l);
  atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
  uv__tpm_held_ranks &= ~(1u << l->rank);
#endif
  uv_mutex_unlock(&l->mutex);
}

/* uv_cond_wait() and uv_cond_timedwait() on a lock the caller holds. */
static inline void uv__tpm_wait(uv_cond_t* cond, uv__tpm_lock_t* l) {
#ifdef UV__TPM_DEBUG
  UV__TPM_ASSERT_HELD(l);
  atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
#endif
  uv_cond_wait(cond, &l->mutex);
#ifdef UV__TPM_DEBUG
  atomic_store_explicit(&l->owner, UV__TPM_SELF, memory_order_relaxed);
#endif
}

static inline int uv__tpm_timedwait(uv_cond_t* cond,
                                    uv__tpm_lock_t* l,
                                    uint64_t timeout_ns) {
  int err;

#ifdef UV__TPM_DEBUG
  UV__TPM_ASSERT_HELD(l);
  atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
#endif
  err = uv_cond_timedwait(cond, &l->mutex, timeout_ns);
#ifdef UV__TPM_DEBUG
  atomic_store_explicit(&l->owner, UV__TPM_SELF, memory_order_relaxed);
#endif
  return err;
}

/* An upstream mutex (a loop's wq_mutex) where our code takes it, checked
 * against the order like ours. */
static inline void uv__tpm_lock_upstream(uv_mutex_t* m, unsigned int rank) {
#ifdef UV__TPM_DEBUG
  assert((uv__tpm_held_ranks >> rank) == 0);
#else
  (void) rank;
#endif
  uv_mutex_lock(m);
#ifdef UV__TPM_DEBUG
  uv__tpm_held_ranks |= 1u << rank;
#endif
}

static inline void uv__tpm_unlock_upstream(uv_mutex_t* m, unsigned int rank) {
#ifdef UV__TPM_DEBUG
  uv__tpm_held_ranks &= ~(1u << rank);
#else
  (void) rank;
#endif
  uv_mutex_unlock(m);
}

/* Before calling upstream code that takes the mutex of `rank` (and those
 * after it): nothing held that the order puts after it. */
#ifdef UV__TPM_DEBUG
# define UV__TPM_ASSERT_MAY_TAKE(rank)                                        \
  assert((uv__tpm_held_ranks >> (rank)) == 0)
#else
# define UV__TPM_ASSERT_MAY_TAKE(rank) ((void) 0)
#endif

/* pthread_atfork() handlers of a leaf's owner: the forking thread holds it
 * across fork() (outside the order: see the lock table), and the child
 * makes it anew, its holder's thread being gone. */
static inline void uv__tpm_lock_fork_prepare(uv__tpm_lock_t* l) {
  uv_mutex_lock(&l->mutex);
}

static inline void uv__tpm_lock_fork_parent(uv__tpm_lock_t* l) {
  uv_mutex_unlock(&l->mutex);
}

static inline void uv__tpm_lock_fork_child(uv__tpm_lock_t* l) {
  unsigned int rank;

#ifdef UV__TPM_DEBUG
  rank = l->rank;
#else
  rank = 0;
#endif
  if (uv__tpm_lock_init(l, rank))
    abort();
}


/* The Manager's mutex (the lock table's first). */
extern uv__tpm_lock_t uv__tpm_mutex UV__TPM_HIDDEN;

/* Once, before the first use of uv__tpm_mutex: the mutex, the timer thread's
 * condition variable and the fork handler of the core. Each layer's own
 * init (uv__hangman_init(), uv__executor_init(), uv__tpm_init()) calls it
 * first, so that the core's fork handler runs before theirs. */
void uv__tpm_core_init(void);
int uv__tpm_core_initialized(void);

/* Before starting a thread of ours: blocks every signal but the synchronous
 * fault signals on the calling thread, so that the new thread inherits that
 * mask, and saves the old one (restore it with pthread_sigmask()). */
void uv__tpm_block_signals(sigset_t* saved);


/* The timer thread (libuv-watchdog). Started by the first uv__tpm_wake(),
 * it runs the chores of the layers that need a timer, in the order below,
 * then sleeps until the earliest time one of them asked for or until woken.
 * The Hangman's comes after the Manager's, which may have just handed it a
 * thread to signal. */
enum {
  UV__TPM_CHORE_MANAGER,  /* deadlines, grace periods, a stalled pool */
  UV__TPM_CHORE_HANGMAN,  /* signals again, joins threads past their work */
  UV__TPM_CHORES
};

struct uv__tpm_chore {
  /* With uv__tpm_mutex held, on the timer thread; may drop it and take it
   * again. Returns when it wants to run next (uv_hrtime(); at most now: at
   * once; UV__TPM_NEVER: once woken). */
  uint64_t (*run)(void);
  /* With uv__tpm_mutex held, once the planned wake-up `next` has been
   * published (uv__tpm_timer_next): nonzero if something due earlier started
   * meanwhile without seeing it. NULL: nothing can. */
  int (*missed)(uint64_t next);
};

/* Once per layer, from its init (takes uv__tpm_mutex). */
void uv__tpm_set_chore(int which, const struct uv__tpm_chore* chore);
/* With uv__tpm_mutex held: makes the timer thread run its chores again (starts
 * it the first time). */
void uv__tpm_wake(void);
/* At exit: stops the timer thread and joins it; it never starts again. */
void uv__tpm_timer_stop(void);

/* The timer thread's next wake-up, 0 while it is awake: a worker that starts a
 * task due earlier wakes it. Sequentially consistent: see
 * uv__tpm_missed() in threadpool-manager.c. */
extern _Atomic uint64_t uv__tpm_timer_next UV__TPM_HIDDEN;


/* The calling thread's stop word (its timed task's, its executor job's or
 * its stoppable section's), or NULL; uv__tpm_stopping() reads it. Only the
 * thread itself reads or writes its own pointer; the word is set by whoever
 * stops it. Inline: set and restored around each task, job and section. */
extern _Thread_local _Atomic int* uv__tpm_current_stop UV__TPM_HIDDEN;

static inline void uv__tpm_set_current_stop(_Atomic int* stop) {
  uv__tpm_current_stop = stop;
}

static inline _Atomic int* uv__tpm_get_current_stop(void) {
  return uv__tpm_current_stop;
}

/* Nonzero once the calling thread was told to stop. */
int uv__tpm_stopping(void);


/* Synchronous calls run on the Priority Executor by fs-hop.c: counted here,
 * where uv_threadpool_get_stats() (threadpool-manager.c) can read them. */
void uv__tpm_count_hop(void);
uint64_t uv__tpm_hop_count(void);

#endif  /* UV_THREADPOOL_CORE_H_ */
