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
 * nodecure: the threadpool Manager (layer 3: calls the Priority Executor,
 * the Hangman, the slow-resource list and the core, and threadpool.c; see
 * threadpool-core.h for the layers and the lock table).
 *
 * A submission with a budget gets a task record. The record, not the
 * request, is what the pool queues and runs: its uv__work carries our
 * trampolines, so threadpool.c's queue discipline is untouched, and the
 * request's own uv__work only points back at the record (for uv_cancel()).
 *
 * A task is timed through the slot of the worker thread that runs it: each
 * thread that has run a timed task owns a slot (struct uv__tpm_slot, in
 * uv__tpm_slots), whose state word holds a sequence number (one per task
 * started in it) and the state of the task in it:
 *
 *   IDLE --worker starts--> RUNNING --work returns----------------> IDLE
 *                            |   ^ \--uv_threadpool_commit()-> COMMITTED
 *          deadline, callback|   |extension                        |
 *                            v   |                        work returns
 *                          DECIDING --no extension--+              v
 *                            |                      |             IDLE
 *          deadline, no callback                    v
 *                            +------------------> TIMEDOUT
 *
 * Every change of a slot's word goes through UV__SLOT_SET() (a move that
 * only one side can make) or UV__SLOT_CAS() (where they race), which check
 * it against this diagram. The race "work returned" / "deadline passed" is
 * decided in one place: a compare-and-swap on the slot's state word. The
 * worker moves RUNNING to IDLE (or COMMITTED), the timer thread RUNNING to
 * DECIDING; the sequence number in the word makes a swap on behalf of an
 * earlier task fail. Whoever changes RUNNING first wins. A task that
 * completes without ever reaching its deadline therefore takes no lock in
 * the steady state (only to wake a sleeping timer thread, uv__tpm_run(),
 * and for a worker's slot before its first timed task). The timer thread changes the state of a DECIDING task only with
 * uv__tpm_mutex held, and a worker that finds its task DECIDING waits for
 * the decision under that lock. The done callback is therefore posted
 * exactly once: by the worker (upstream's path) or by the timer thread
 * (TIMEDOUT, with UV_ETIMEDOUT).
 *
 * The timer thread dereferences a slot's task only after its swap to
 * DECIDING succeeded: until the decision the worker cannot post the done
 * callback, so the record cannot be freed under it. Slots themselves are
 * freed only with the lock held, which the timer thread holds while it
 * scans them.
 *
 * Nothing is timed unless its submitter asked (uv__tpm_wrap()): work queued
 * with uv_queue_work_timed(), and fs and DNS requests submitted while the
 * calling thread has a budget (uv_threadpool_set_thread_timeout(), which
 * Node sets around the requests of its bindings). Plain uv_queue_work() and
 * uv_random() keep upstream's contract: their memory belongs to code that
 * does not know about timeouts.
 *
 * Stop first, abandon last. At the deadline the timer thread sets the
 * task's stop flag, has the Hangman signal its thread (a blocking system
 * call returns EINTR) and starts a replacement worker at once, but it
 * delivers the timeout only when the work has returned or a grace period
 * (the budget, at most UV__TPM_GRACE_MAX) has passed. Work that stops in
 * time therefore owns nothing after its callback ran: nothing is written
 * late, nothing needs to be pinned. Work that commits in the grace period
 * (uv_threadpool_commit(): an fs call that returned a real result) even
 * completes normally, with status 0. Only work still running when the
 * grace period ends is abandoned: its callback gets the timeout while it
 * runs, and everything it touches stays its own until the reclaim.
 *
 * Report only (UV_THREADPOOL_ACTION_REPORT): at the deadline the timer
 * thread moves DECIDING back to RUNNING with no deadline, as an extension
 * without end, and posts a report to the task's loop ahead of any
 * completion (both go through the loop's wq, in order), so the report
 * callback runs while the request is still pending. Nothing is stopped,
 * replaced or abandoned.
 *
 * A TIMEDOUT record lives on as a zombie until both halves are over: its done
 * callback ran on the loop, and its work returned on the abandoned thread.
 * Whoever is second releases it, running the reclaim callbacks on the loop.
 *
 * Where the other decisions are made: whether a submission is timed,
 * uv__tpm_wrap(); what a task past its deadline gets (an extension, a
 * report, a timeout), uv__tpm_expire(); abandoned and replaced, or kept
 * (the cap), uv__tpm_time_out(); delivered at the end of its grace period,
 * uv__tpm_overdue(); what its worker does once the work returns,
 * uv__tpm_finish_timed_out(); whether a queued request fails because the
 * pool is stalled, uv__tpm_unstall(). A timed-out record is freed by the
 * second of its halves to end: uv__tpm_deliver() on the loop, or the
 * reclaim that uv__tpm_finish_timed_out() posts (uv__tpm_reclaim_done()).
 *
 * Lock and ownership: uv__tpm_mutex (the core's; first in the lock table),
 * then threadpool.c's `mutex`, then a loop's wq_mutex. Only the timer
 * thread and the workers' slow paths take the first. A task record's hot
 * half is the submitting loop's and its worker's; its cold half is the
 * timer thread's, under the lock, from uv__tpm_task_cold() on. A slot's
 * fields but `word` and `seen` are its worker's; `seen` is the timer
 * thread's; the slot list is changed under the lock. The Manager's work on
 * the timer thread is its chore (uv__tpm_chore(), uv__tpm_missed()), which
 * the core runs.
 */

#include "threadpool-manager.h"

#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long work that was told to stop may take to return before it is
 * abandoned (never more than its budget). */
#define UV__TPM_GRACE_MAX ((uint64_t) 50 * UV__NS_PER_MS)
/* While the pool is stalled, how often the timer thread fails the timed
 * requests queued since it last looked. */
#define UV__TPM_STALL_POLL ((uint64_t) 10 * UV__NS_PER_MS)

/* The state of the task in a slot: the low bits of its state word. */
enum {
  UV__SLOT_IDLE,
  UV__SLOT_RUNNING,
  UV__SLOT_DECIDING,
  UV__SLOT_COMMITTED,
  UV__SLOT_TIMEDOUT
};

#define UV__SLOT_STATE_BITS 3
#define UV__SLOT_WORD(seq, state) ((seq) << UV__SLOT_STATE_BITS | (state))
#define UV__SLOT_STATE(word)                                                  \
  ((int) ((word) & ((1u << UV__SLOT_STATE_BITS) - 1)))
#define UV__SLOT_SEQ(word) ((word) >> UV__SLOT_STATE_BITS)

#ifdef UV__TPM_DEBUG
/* The moves of the diagram above: bit `to` of uv__slot_moves[from]. */
static const unsigned char uv__slot_moves[] = {
  [UV__SLOT_IDLE] = 1 << UV__SLOT_RUNNING,
  [UV__SLOT_RUNNING] =
      1 << UV__SLOT_IDLE | 1 << UV__SLOT_COMMITTED | 1 << UV__SLOT_DECIDING,
  [UV__SLOT_DECIDING] = 1 << UV__SLOT_RUNNING | 1 << UV__SLOT_TIMEDOUT,
  [UV__SLOT_COMMITTED] = 1 << UV__SLOT_IDLE,
  [UV__SLOT_TIMEDOUT] = 1 << UV__SLOT_IDLE
};
/* From word `from` to word `to`: a move of the diagram, for the same task
 * (a new task's RUNNING, with a new sequence number, is uv__tpm_run()'s). */
# define UV__SLOT_MOVE_OK(from, to)                                           \
  (UV__SLOT_SEQ(from) == UV__SLOT_SEQ(to) &&                                  \
   ((uv__slot_moves[UV__SLOT_STATE(from)] >> UV__SLOT_STATE(to)) & 1))
#endif

/* Moves slot `s` from its word `from` (read or set by the caller, which
 * alone can make this move) to the word `to`. */
#define UV__SLOT_SET(s, from, to, order)                                      \
  do {                                                                        \
    UV__TPM_ASSERT(UV__SLOT_MOVE_OK((from), (to)));                           \
    atomic_store_explicit(&(s)->word, (to), order);                           \
  } while (0)

/* The same where the worker and the timer thread race: nonzero if the word
 * was still *expected (else *expected is what it is). */
#define UV__SLOT_CAS(s, expected, to, success, failure)                       \
  (UV__TPM_ASSERT(UV__SLOT_MOVE_OK(*(expected), (to))),                       \
   atomic_compare_exchange_strong_explicit(&(s)->word,                        \
                                           (expected),                        \
                                           (to),                              \
                                           success,                           \
                                           failure))

/* A timed request's record. What a task that ends in time uses is set by
 * uv__tpm_wrap() on every submission; the rest (from `notify` on) is read
 * only once the timer thread has taken the task (uv__tpm_expire(),
 * uv__tpm_take()), which clears it first: uv__tpm_task_cold(). */
struct uv__tpm_task {
  struct uv__work work;       /* what the pool queues and runs */
  struct uv__queue anchor;    /* the request's work_req.wq points here */
  struct uv__work* user;      /* the request's own uv__work */
  void (*user_work)(struct uv__work* w);
  void (*user_done)(struct uv__work* w, int status);
  uv_work_t* req;             /* uv_queue_work_timed() only */
  uv_work_timedout_cb timedout_cb;
  void* tag;                  /* the submitter's, for the report callback */
  uv_loop_t* loop;            /* NULL once the loop is closed */
  uint64_t budget;            /* ns */
  _Atomic int stop;           /* read by uv_threadpool_should_stop() */
  int kind;
  int cold;                   /* the fields below were cleared */
  /* Cold: only past the deadline (or in a stalled pool). */
  struct uv__work notify;     /* posts the timeout, then the reclaim */
  struct uv__queue link;      /* in `zombies` once timed out */
  void (*reclaim_internal)(struct uv__work* w);
  uv_reclaim_cb reclaim_cb;
  void* reclaim_arg;
  struct uv__hangman_entry* hm;
  uint64_t start;             /* uv_hrtime(); set at its deadline */
  uint64_t grace;             /* delivered by then, returned or not */
  uint64_t reported_ms;       /* how long it had run when reported */
  uv_thread_t thread;         /* set at its deadline, from its slot */
  int status;                 /* UV_ETIMEDOUT, UV_EABANDONCAP or
                                 UV_EPOOLSTALLED */
  unsigned int abandoned:1;   /* replaced: the thread leaves on return */
  unsigned int kept:1;        /* not replaced (the cap): counted in
                                 uv__tpm_kept until it returns */
  unsigned int stalling:1;    /* kept past its grace period: counted in
                                 uv__tpm_stalling until it returns */
  unsigned int delivered:1;   /* the done callback ran */
  unsigned int returned:1;    /* the work returned */
  unsigned int notify_pending:1;
  unsigned int posted:1;      /* the delivery was posted to the loop */
  unsigned int late_commit:1; /* committed in the grace period */
  unsigned int running:1;     /* delivered while the work still ran */
};

/* A worker thread's view of the task it runs. The owning thread writes
 * everything but `word` and `seen` without synchronisation; the timer thread
 * reads `task`, `start`, `deadline` and `budget` after an acquire load of
 * `word`. The worker writes nothing into the task's record on the way of a
 * task that ends in time: the record's lines stay the loop thread's. */
struct uv__tpm_slot {
  _Atomic uint64_t word;             /* UV__SLOT_WORD(seq, state) */
  _Atomic uint64_t start;            /* of the task started last, ns */
  _Atomic uint64_t deadline;
  _Atomic uint64_t budget;           /* ns */
  _Atomic(struct uv__tpm_task*) task;
  uint64_t seq;                      /* owner: tasks started */
  unsigned int signal_gen;           /* owner: see uv__hangman_signal_gen */
  uv_thread_t thread;                /* owner */
  uint64_t seen;                     /* timer thread: seq at its last scan */
  _Atomic int held;                  /* owner writes: signal held (Hangman) */
  struct uv__queue link;             /* in uv__tpm_slots, under the lock */
  void* mem;                         /* what uv__free() takes */
};

/* Slots start on a cache line of their own: neighbouring workers must not
 * write the same line on every task. */
#define UV__SLOT_ALIGN 64


/* Passed from uv_queue_work_timed() to uv__tpm_wrap() on the same thread. */
struct uv__tpm_opts {
  uint64_t timeout_ms;
  uv_work_t* req;
  uv_work_timedout_cb timedout_cb;
};

_Atomic int uv__tpm_active;
_Thread_local int uv__tpm_disp;

static uv_once_t uv__tpm_once = UV_ONCE_INIT;
static uv_cond_t uv__tpm_decided;     /* a DECIDING task was decided */
static struct uv__queue uv__tpm_slots;
static struct uv__queue uv__tpm_zombies;
_Atomic uint64_t uv__tpm_default_ms;
/* The Manager's counters (the Priority Executor and the Hangman keep
 * theirs), under the lock. */
static uint64_t uv__tpm_timed_out;
static uint64_t uv__tpm_cap_hits;
static uint64_t uv__tpm_extended;
static uint64_t uv__tpm_stopped;      /* timed out, returned in the grace */
static uint64_t uv__tpm_late;         /* committed in the grace: completed */
/* Workers kept in timed-out work that the cap did not let us abandon, and
 * of them those still running after their grace period (in slow I/O):
 * once these are all the pool has, nothing queued runs until one returns,
 * and the pool is stalled (uv__tpm_unstall()). A kept task that stops in
 * its grace period does not stall anything. */
static unsigned int uv__tpm_kept;
static unsigned int uv__tpm_stalling;
static unsigned int uv__tpm_stalling_slow;
static uint64_t uv__tpm_stalled;      /* requests failed: UV_EPOOLSTALLED */
static uint64_t uv__tpm_reported;     /* past their budget, only reported */
static _Atomic int uv__tpm_action;    /* UV_THREADPOOL_ACTION_* */
static _Atomic(uv_threadpool_report_cb) uv__tpm_report_cb;

_Thread_local struct uv__tpm_task* uv__tpm_current;
static _Thread_local struct uv__tpm_slot* uv__tpm_slot;
static _Thread_local struct uv__tpm_task* uv__tpm_delivering;
static _Thread_local const struct uv__tpm_opts* uv__tpm_next;
_Thread_local uint64_t uv__tpm_thread_ms;  /* see threadpool-manager.h */
/* The tag of the timed requests this thread submits (report callback). */
static _Thread_local void* uv__tpm_thread_tag;

/* Task records that completed, for the next submissions on the same thread
 * (the loop's): completion and submission both happen there, so a record
 * costs neither malloc nor free on the path of a task that never times
 * out. Freed when the thread exits (uv__tpm_cache_key, set once a thread). */
#define UV__TPM_CACHE_MAX 64
static _Thread_local struct uv__tpm_task* uv__tpm_cache;
static _Thread_local unsigned int uv__tpm_cache_len;
static _Thread_local int uv__tpm_cache_keyed;
static pthread_key_t uv__tpm_cache_key;


static uint64_t uv__tpm_ms_to_ns(uint64_t ms) {
  if (ms > UINT64_MAX / UV__NS_PER_MS / 2)
    return UINT64_MAX / 2;
  return ms * UV__NS_PER_MS;
}


static void uv__tpm_atfork_child(void) {
  struct uv__queue* q;

  /* Only the forking thread survives: forget the parent's tasks and threads
   * (their memory is leaked) and start from scratch. The core's handler ran
   * first (the lock, the timer thread), the Hangman's and the Priority
   * Executor's run too. */
  if (uv_cond_init(&uv__tpm_decided))
    abort();
  uv__queue_init(&uv__tpm_slots);
  /* A record whose delivery is queued on a loop is unlinked again when it
   * runs: unlink each from the parent's list first. */
  while (!uv__queue_empty(&uv__tpm_zombies)) {
    q = uv__queue_head(&uv__tpm_zombies);
    uv__queue_remove(q);
    uv__queue_init(q);
  }
  uv__tpm_kept = 0;
  uv__tpm_stalling = 0;
  uv__tpm_stalling_slow = 0;
  uv__tpm_current = NULL;
  uv__tpm_slot = NULL;
}


static void uv__tpm_cache_drain(void* unused) {
  struct uv__tpm_task* t;

  (void) unused;
  while ((t = uv__tpm_cache) != NULL) {
    uv__tpm_cache = *(struct uv__tpm_task**) t;
    uv__free(t);
  }
  uv__tpm_cache_len = 0;
}


/* On a worker, as a task starts: uv_hrtime()'s clock (CLOCK_MONOTONIC),
 * read without its layers, once per task. */
static inline uint64_t uv__tpm_now(void) {
  struct timespec ts;

  if (clock_gettime(CLOCK_MONOTONIC, &ts))
    return uv_hrtime();
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}


/* Never called: marks a request's uv__work as owned by a task record. */
static void uv__tpm_tag(struct uv__work* w) {
  (void) w;
  abort();
}


/* On the thread that submits: a record whose fields wrap() does not set
 * are garbage (a recycled record) until uv__tpm_task_cold(). */
static struct uv__tpm_task* uv__tpm_task_alloc(void) {
  struct uv__tpm_task* t;

  t = uv__tpm_cache;
  if (t == NULL)
    return uv__malloc(sizeof(*t));
  uv__tpm_cache = *(struct uv__tpm_task**) t;
  uv__tpm_cache_len--;
#ifdef UV__TPM_CHECKS
  /* A read of the cold half before uv__tpm_task_cold() sees garbage (in
   * the unit tests' builds: Node builds libuv with its asserts on, and this
   * would cost every task). */
  memset(&t->notify,
         0xa5,
         sizeof(*t) - offsetof(struct uv__tpm_task, notify));
#endif
  return t;
}


/* With the lock held, on the timer thread, when it first takes a task (at its
 * deadline, or queued in a stalled pool): clears the record's cold half.
 * Before this, nothing but the worker and the loop's completion touch the
 * task, and they use only the hot half. Once only: an extended task may
 * be taken again. */
static void uv__tpm_task_cold(struct uv__tpm_task* t) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  if (t->cold)
    return;
  memset(&t->notify,
         0,
         sizeof(*t) - offsetof(struct uv__tpm_task, notify));
  t->notify.loop = t->loop;
  t->notify.work = uv__tpm_tag;
  t->cold = 1;
}


/* On the loop, for a record that nothing refers to any more. */
static void uv__tpm_task_free(struct uv__tpm_task* t) {
  if (uv__tpm_cache_len >= UV__TPM_CACHE_MAX) {
    uv__free(t);
    return;
  }
  if (!uv__tpm_cache_keyed) {
    /* Drained at thread exit: any non-null value runs the destructor. */
    pthread_setspecific(uv__tpm_cache_key, &uv__tpm_cache);
    uv__tpm_cache_keyed = 1;
  }
  *(struct uv__tpm_task**) t = uv__tpm_cache;
  uv__tpm_cache = t;
  uv__tpm_cache_len++;
}


static uint64_t uv__tpm_chore(void);
static int uv__tpm_missed(uint64_t next);


/* Once: the Hangman (and under it the core), then the Manager's own state,
 * its fork handler and its chore on the timer thread. */
static void uv__tpm_init_once(void) {
  static const struct uv__tpm_chore chore = { uv__tpm_chore, uv__tpm_missed };

  uv__hangman_init();
  if (uv_cond_init(&uv__tpm_decided))
    abort();
  uv__queue_init(&uv__tpm_slots);
  uv__queue_init(&uv__tpm_zombies);
  if (pthread_atfork(NULL, NULL, uv__tpm_atfork_child))
    abort();
  if (pthread_key_create(&uv__tpm_cache_key, uv__tpm_cache_drain))
    abort();
  uv__tpm_set_chore(UV__TPM_CHORE_MANAGER, &chore);
}


void uv__tpm_init(void) {
  uv_once(&uv__tpm_once, uv__tpm_init_once);
}


static void uv__tpm_activate(void) {
  uv__tpm_init();
  /* getenv(), here rather than on the timer thread: the cap and the signal. */
  uv__hangman_init_limit();
  (void) uv_threadpool_get_interrupt_signal();
  atomic_store_explicit(&uv__tpm_active, 1, memory_order_relaxed);
}


/* With the lock held: the loop will run t->notify.done. */
static void uv__tpm_enqueue(struct uv__tpm_task* t) {
  uv_loop_t* loop;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  assert(t->cold);
  loop = t->loop;
  t->notify_pending = 1;
  uv__tpm_lock_upstream(&loop->wq_mutex, UV__LOCK_WQ);
  uv__queue_insert_tail(&loop->wq, &t->notify.wq);
  uv_async_send(&loop->wq_async);
  uv__tpm_unlock_upstream(&loop->wq_mutex, UV__LOCK_WQ);
}


/* With the lock held: the loop will run the delivery (or the reclaim). */
static void uv__tpm_post(struct uv__tpm_task* t) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  t->posted = 1;
  uv__tpm_enqueue(t);
}


static void uv__tpm_reclaim(struct uv__tpm_task* t) {
  if (t->reclaim_internal != NULL)
    t->reclaim_internal(t->user);
  if (t->reclaim_cb != NULL)
    t->reclaim_cb(t->reclaim_arg);
  uv__free(t);
}


/* On the loop: the abandoned work has returned and its done callback ran. */
static void uv__tpm_reclaim_done(struct uv__work* n, int status) {
  struct uv__tpm_task* t;

  (void) status;
  t = container_of(n, struct uv__tpm_task, notify);
  uv__tpm_lock(&uv__tpm_mutex);
  t->notify_pending = 0;
  uv__queue_remove(&t->link);
  uv__tpm_unlock(&uv__tpm_mutex);
  uv__tpm_reclaim(t);
}


/* With the lock held, on the abandoned thread or the loop: both halves of a
 * timed-out task are over. */
static void uv__tpm_post_reclaim(struct uv__tpm_task* t) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  if (t->loop == NULL) {
    /* The loop was closed: nobody is left to tell. */
    uv__queue_remove(&t->link);
    uv__free(t);
    return;
  }
  t->notify.done = uv__tpm_reclaim_done;
  uv__tpm_post(t);
}


/* On the loop: deliver the timeout (or, after a commit in the grace period,
 * the completion) to the request's done callback. */
static void uv__tpm_deliver(struct uv__work* n, int status) {
  struct uv__tpm_task* saved;
  struct uv__tpm_task* t;
  struct uv__work* user;

  (void) status;  /* The task's own: t->status. */
  t = container_of(n, struct uv__tpm_task, notify);
  user = t->user;

  uv__tpm_lock(&uv__tpm_mutex);
  t->notify_pending = 0;
  uv__tpm_unlock(&uv__tpm_mutex);

  /* As after any completion: uv_cancel() says UV_EBUSY. */
  user->work = NULL;
  uv__queue_init(&user->wq);

  saved = uv__tpm_delivering;
  uv__tpm_delivering = t;  /* for uv_threadpool_on_reclaim() */
  assert(t->status != 0 || t->returned);
  t->user_done(user, t->status);
  uv__tpm_delivering = saved;

  uv__tpm_lock(&uv__tpm_mutex);
  t->delivered = 1;
  if (!t->returned) {
    uv__tpm_unlock(&uv__tpm_mutex);
    return;  /* The abandoned thread posts the reclaim when it returns. */
  }
  uv__queue_remove(&t->link);
  uv__tpm_unlock(&uv__tpm_mutex);
  uv__tpm_reclaim(t);
}


/* With the lock held, on the timer thread: the one place a task times out. Its
 * slot is DECIDING, which only the timer thread changes. */
static void uv__tpm_time_out(struct uv__tpm_slot* s, struct uv__tpm_task* t) {
  uint64_t word;
  int slow_io;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  assert(t->cold);
  atomic_store_explicit(&t->stop, 1, memory_order_release);
  uv__queue_insert_tail(&uv__tpm_zombies, &t->link);
  uv__tpm_timed_out++;

  slow_io = t->kind == UV__WORK_SLOW_IO;
  UV__TPM_ASSERT_MAY_TAKE(UV__LOCK_POOL);  /* uv__threadpool_replace() */
  if (uv__hangman_can_adopt() &&
      0 == uv__threadpool_replace(&t->thread, slow_io)) {
    t->status = UV_ETIMEDOUT;
    t->abandoned = 1;
    t->hm = uv__hangman_adopt(&t->thread, 1, &s->held);
  } else {
    /* Too many abandoned threads (or no thread to start): report it, keep
     * the thread, and hurry its work along with the interrupt signal. */
    t->status = UV_EABANDONCAP;
    t->kept = 1;
    uv__tpm_kept++;
    uv__tpm_cap_hits++;
    t->hm = uv__hangman_adopt(&t->thread, 0, &s->held);
  }

  word = atomic_load_explicit(&s->word, memory_order_relaxed);
  UV__SLOT_SET(s,
               word,
               UV__SLOT_WORD(UV__SLOT_SEQ(word), UV__SLOT_TIMEDOUT),
               memory_order_release);

  /* Delivered when the work returns (uv__tpm_finish()), or at the end of
   * the grace period (uv__tpm_overdue()), whichever is first. */
  t->notify.done = uv__tpm_deliver;
  t->grace = uv_hrtime() + (t->budget < UV__TPM_GRACE_MAX ?
                            t->budget : UV__TPM_GRACE_MAX);
}


/* On the loop, before the request's done callback (which the worker
 * posts after this, to the same queue): a task reported past its budget. */
static void uv__tpm_report_done(struct uv__work* n, int status) {
  uv_threadpool_report_cb cb;
  struct uv__tpm_task* t;

  (void) status;
  t = container_of(n, struct uv__tpm_task, notify);
  uv__tpm_lock(&uv__tpm_mutex);
  t->notify_pending = 0;
  uv__tpm_unlock(&uv__tpm_mutex);
  cb = atomic_load_explicit(&uv__tpm_report_cb, memory_order_acquire);
  if (cb != NULL)
    cb(t->loop, t->tag, t->reported_ms);
}


/* With the lock held, on the timer thread, for a DECIDING task whose action is
 * to report: it runs on without a deadline, and its loop is told. */
static void uv__tpm_report(struct uv__tpm_slot* s,
                           struct uv__tpm_task* t,
                           uint64_t now) {
  uint64_t word;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  uv__tpm_reported++;
  atomic_store_explicit(&s->deadline, UV__TPM_NEVER, memory_order_relaxed);
  if (t->tag != NULL && t->loop != NULL && !t->notify_pending &&
      atomic_load_explicit(&uv__tpm_report_cb, memory_order_relaxed) != NULL) {
    t->reported_ms = (now - t->start) / UV__NS_PER_MS;
    t->notify.done = uv__tpm_report_done;
    uv__tpm_enqueue(t);  /* Before the worker can post its completion. */
  }
  word = atomic_load_explicit(&s->word, memory_order_relaxed);
  UV__SLOT_SET(s,
               word,
               UV__SLOT_WORD(UV__SLOT_SEQ(word), UV__SLOT_RUNNING),
               memory_order_release);
}


/* With the lock held, on the timer thread: abandons the timed-out tasks whose
 * grace period is over (their callbacks get the timeout while the work
 * still runs). Returns the end of the earliest grace period still ahead. */
static uint64_t uv__tpm_overdue(uint64_t now) {
  struct uv__tpm_task* t;
  struct uv__queue* q;
  uint64_t next;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  next = UV__TPM_NEVER;
  uv__queue_foreach(q, &uv__tpm_zombies) {
    t = uv__queue_data(q, struct uv__tpm_task, link);
    if (t->posted || t->returned || t->late_commit || t->loop == NULL)
      continue;
    if (t->grace <= now) {
      t->running = 1;  /* Abandoned: what it does may still take effect. */
      uv__tpm_post(t);
      if (t->kept) {
        t->stalling = 1;
        uv__tpm_stalling++;
        uv__tpm_stalling_slow += t->kind == UV__WORK_SLOW_IO;
      }
    } else if (t->grace < next)
      next = t->grace;
  }
  return next;
}


/* With the lock held, on the timer thread, for a task whose slot it moved from
 * RUNNING to DECIDING. The timed-out callback runs without the lock;
 * meanwhile a completion or a commit waits for the decision. */
static void uv__tpm_expire(struct uv__tpm_slot* s, uint64_t now) {
  struct uv__tpm_task* t;
  uint64_t extension;
  uint64_t deadline;
  uint64_t word;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  t = atomic_load_explicit(&s->task, memory_order_relaxed);
  uv__tpm_task_cold(t);
  /* Only now does the record learn where and when it runs. */
  t->thread = s->thread;
  t->start = atomic_load_explicit(&s->start, memory_order_relaxed);
  if (atomic_load_explicit(&uv__tpm_action, memory_order_relaxed) ==
      UV_THREADPOOL_ACTION_REPORT) {
    uv__tpm_report(s, t, now);
    uv_cond_broadcast(&uv__tpm_decided);
    return;
  }
  if (t->timedout_cb != NULL) {
    uv__tpm_unlock(&uv__tpm_mutex);
    extension = t->timedout_cb(t->req, (now - t->start) / UV__NS_PER_MS);
    uv__tpm_lock(&uv__tpm_mutex);
    if (extension != 0) {
      deadline = uv_hrtime() + uv__tpm_ms_to_ns(extension);
      atomic_store_explicit(&s->deadline, deadline, memory_order_relaxed);
      word = atomic_load_explicit(&s->word, memory_order_relaxed);
      UV__SLOT_SET(s,
                   word,
                   UV__SLOT_WORD(UV__SLOT_SEQ(word), UV__SLOT_RUNNING),
                   memory_order_release);
      uv__tpm_extended++;
      uv_cond_broadcast(&uv__tpm_decided);
      return;
    }
  }

  uv__tpm_time_out(s, t);
  uv_cond_broadcast(&uv__tpm_decided);
}


/* With the lock held: expires the slots' tasks that are past their
 * deadline. Returns the earliest deadline still ahead, and in *floor the
 * smallest budget of the tasks started since the last scan. */
static uint64_t uv__tpm_scan(uint64_t* floor) {
  struct uv__tpm_slot* s;
  struct uv__queue* q;
  uint64_t deadline;
  uint64_t budget;
  uint64_t next;
  uint64_t word;
  uint64_t now;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
rescan:
  now = uv_hrtime();
  next = UV__TPM_NEVER;
  uv__queue_foreach(q, &uv__tpm_slots) {
    s = uv__queue_data(q, struct uv__tpm_slot, link);
    word = atomic_load_explicit(&s->word, memory_order_acquire);
    if (UV__SLOT_SEQ(word) != s->seen) {
      s->seen = UV__SLOT_SEQ(word);
      budget = atomic_load_explicit(&s->budget, memory_order_relaxed);
      if (budget < *floor)
        *floor = budget;
    }
    if (UV__SLOT_STATE(word) != UV__SLOT_RUNNING)
      continue;
    deadline = atomic_load_explicit(&s->deadline, memory_order_relaxed);
    if (deadline > now) {
      if (deadline < next)
        next = deadline;
      continue;
    }
    /* Fails if the work returned (or another task started) meanwhile. */
    if (!UV__SLOT_CAS(s,
                      &word,
                      UV__SLOT_WORD(UV__SLOT_SEQ(word), UV__SLOT_DECIDING),
                      memory_order_acquire,
                      memory_order_relaxed))
      continue;
    uv__tpm_expire(s, now);  /* May drop the lock: start over. */
    goto rescan;
  }
  return next;
}


/* With the lock held, after publishing `next` as the next wake-up: did a
 * worker start a task due earlier without seeing it? (Either it sees the
 * new uv__tpm_timer_next and wakes us, or we see its slot here: both sides
 * use sequentially consistent accesses.) */
static int uv__tpm_missed(uint64_t next) {
  struct uv__tpm_slot* s;
  struct uv__queue* q;
  uint64_t word;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  uv__queue_foreach(q, &uv__tpm_slots) {
    s = uv__queue_data(q, struct uv__tpm_slot, link);
    word = atomic_load(&s->word);
    if (UV__SLOT_STATE(word) == UV__SLOT_RUNNING &&
        atomic_load_explicit(&s->deadline, memory_order_relaxed) < next)
      return 1;
  }
  return 0;
}


static void uv__tpm_run(struct uv__work* w);


/* With the lock held and threadpool.c's `mutex`, on the timer thread: a request
 * queued in a stalled pool. A timed one (a record) gets UV_EPOOLSTALLED
 * now, through uv__tpm_deliver() as a timeout does: it never ran, so it is
 * "returned" and reclaimed right after its callback. Untimed requests keep
 * upstream's contract and wait. */
static int uv__tpm_take(struct uv__work* w) {
  struct uv__tpm_task* t;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  if (w->work != uv__tpm_run)
    return 0;
  t = container_of(w, struct uv__tpm_task, work);
  uv__tpm_task_cold(t);
  t->status = UV_EPOOLSTALLED;
  t->returned = 1;
  t->notify.done = uv__tpm_deliver;
  uv__queue_insert_tail(&uv__tpm_zombies, &t->link);
  uv__tpm_post(t);
  uv__tpm_stalled++;
  return 1;
}


/* With the lock held, on the timer thread: while workers kept past their grace
 * period are all the pool has (for slow I/O: all it lets slow I/O use),
 * nothing queued would ever start; give each timed request queued there
 * its outcome instead, and look again soon for those queued meanwhile.
 * Returns when. */
static uint64_t uv__tpm_unstall(uint64_t now) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  if (uv__tpm_stalling == 0)
    return UV__TPM_NEVER;
  UV__TPM_ASSERT_MAY_TAKE(UV__LOCK_POOL);
  if (!uv__threadpool_flush_stalled(uv__tpm_stalling,
                                    uv__tpm_stalling_slow,
                                    uv__tpm_take))
    return UV__TPM_NEVER;
  return now + UV__TPM_STALL_POLL;
}


/* The Manager's chore on the timer thread, with the lock held: times
 * out what is past its deadline, delivers what is past its grace period,
 * fails what is queued in a stalled pool. Returns when to look again. */
static uint64_t uv__tpm_chore(void) {
  uint64_t floor;
  uint64_t next;
  uint64_t now;
  uint64_t h;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  floor = UV__TPM_NEVER;
  next = uv__tpm_scan(&floor);
  now = uv_hrtime();
  h = uv__tpm_overdue(now);
  if (h < next)
    next = h;
  h = uv__tpm_unstall(now);
  if (h < next)
    next = h;

  /* While tasks keep starting, look again one (smallest) budget from now:
   * a task that starts later is due later, so its worker need not wake
   * us. Once none started since the last look, sleep until one does. */
  if (floor != UV__TPM_NEVER && now + floor < next)
    next = now + floor;
  return next;
}


/* On a worker, before its first timed task, and again when the interrupt
 * signal changed: a slot of its own, and the signal unblocked. */
static struct uv__tpm_slot* uv__tpm_prepare_slot(void) {
  struct uv__tpm_slot* s;
  void* mem;

  uv__tpm_lock(&uv__tpm_mutex);
  s = uv__tpm_slot;
  if (s == NULL) {
    mem = uv__calloc(1, sizeof(*s) + 2 * UV__SLOT_ALIGN);
    if (mem == NULL)
      abort();  /* As uv_thread_create() failing at startup. */
    s = (struct uv__tpm_slot*) (((uintptr_t) mem + UV__SLOT_ALIGN) &
                                ~(uintptr_t) (UV__SLOT_ALIGN - 1));
    s->mem = mem;
    s->thread = uv_thread_self();
    uv__queue_insert_tail(&uv__tpm_slots, &s->link);
    uv__tpm_slot = s;
    uv__hangman_set_held_flag(&s->held);
  }
  s->signal_gen = uv__hangman_signal_generation();
  uv__hangman_prepare_thread();
  uv__tpm_unlock(&uv__tpm_mutex);
  return s;
}


/* With the lock held: waits while the timer thread decides the slot's task. */
static uint64_t uv__tpm_decided_word(struct uv__tpm_slot* s) {
  uint64_t word;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  for (;;) {
    word = atomic_load_explicit(&s->word, memory_order_acquire);
    if (UV__SLOT_STATE(word) != UV__SLOT_DECIDING)
      return word;
    uv__tpm_wait(&uv__tpm_decided, &uv__tpm_mutex);
  }
}


/* On the worker, with the lock held, once its work returned from a task
 * the timer thread timed out (its slot TIMEDOUT, `word`): the task's second
 * half is over. An abandoned thread leaves the pool (its slot goes), a
 * kept one takes the next task; the delivery is posted now if the grace
 * period did not, the reclaim if the loop already ran the delivery. */
static int uv__tpm_finish_timed_out(struct uv__tpm_slot* s,
                                    struct uv__tpm_task* t,
                                    uint64_t word) {
  int disposition;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  assert(t->cold);
  t->returned = 1;
  if (t->late_commit) {
    t->status = 0;  /* Completed after all: see uv__tpm_commit(). */
    uv__tpm_late++;
  } else if (!t->posted) {
    uv__tpm_stopped++;  /* Stopped in its grace period: nothing owned. */
  }
  uv__hangman_release(t->hm, 1);
  t->hm = NULL;
  if (t->abandoned) {
    /* A replacement took this thread's place: it leaves the pool. */
    disposition = UV__TPM_EXIT;
    uv__queue_remove(&s->link);
    uv__free(s->mem);
    uv__tpm_slot = NULL;
    uv__hangman_set_held_flag(NULL);
  } else {
    disposition = UV__TPM_SKIP;
    UV__SLOT_SET(s,
                 word,
                 UV__SLOT_WORD(UV__SLOT_SEQ(word), UV__SLOT_IDLE),
                 memory_order_release);
    assert(t->kept && uv__tpm_kept > 0);
    uv__tpm_kept--;
    if (t->stalling) {
      assert(uv__tpm_stalling > 0);
      uv__tpm_stalling--;
      uv__tpm_stalling_slow -= t->kind == UV__WORK_SLOW_IO;
    }
  }
  if (!t->posted && t->loop != NULL)
    uv__tpm_post(t);  /* Delivered now, and reclaimed right after. */
  else if (t->delivered)
    uv__tpm_post_reclaim(t);
  return disposition;  /* t may be gone already. */
}


/* On the worker, with no lock: the task's work returned. */
static int uv__tpm_finish(struct uv__tpm_slot* s, struct uv__tpm_task* t) {
  uint64_t idle;
  uint64_t word;
  int disposition;

  idle = UV__SLOT_WORD(s->seq, UV__SLOT_IDLE);
  /* Work that committed its result (every fs call does): only this thread
   * changes a COMMITTED slot, and the commit's exchange already ordered the
   * timer thread's accesses to the task before it. No locked instruction. */
  word = atomic_load_explicit(&s->word, memory_order_relaxed);
  if (word == UV__SLOT_WORD(s->seq, UV__SLOT_COMMITTED)) {
    UV__SLOT_SET(s, word, idle, memory_order_release);
    return UV__TPM_DELIVER;
  }

  word = UV__SLOT_WORD(s->seq, UV__SLOT_RUNNING);
  if (UV__SLOT_CAS(s,
                   &word,
                   idle,
                   memory_order_acq_rel,
                   memory_order_acquire))
    return UV__TPM_DELIVER;  /* threadpool.c posts t->work to the loop. */

  if (UV__SLOT_STATE(word) == UV__SLOT_COMMITTED) {
    /* Only this thread changes a COMMITTED slot. (The timer thread's
     * accesses to the task, if it extended it, happen before the RUNNING
     * that the commit swapped.) */
    UV__SLOT_SET(s, word, idle, memory_order_release);
    return UV__TPM_DELIVER;
  }

  /* The timer thread is deciding, or decided: the slow path. */
  uv__tpm_lock(&uv__tpm_mutex);
  word = uv__tpm_decided_word(s);
  if (UV__SLOT_STATE(word) != UV__SLOT_TIMEDOUT) {
    /* Extended, and perhaps committed since. */
    UV__SLOT_SET(s, word, idle, memory_order_release);
    uv__tpm_unlock(&uv__tpm_mutex);
    return UV__TPM_DELIVER;
  }
  disposition = uv__tpm_finish_timed_out(s, t, word);
  uv__tpm_unlock(&uv__tpm_mutex);
  return disposition;
}


/* The pool runs this in place of the request's work. */
static void uv__tpm_run(struct uv__work* w) {
  struct uv__tpm_task* t;
  struct uv__tpm_slot* s;
  uint64_t deadline;
  uint64_t start;

  t = container_of(w, struct uv__tpm_task, work);

  s = uv__tpm_slot;
  if (s == NULL || s->signal_gen != uv__hangman_signal_generation())
    s = uv__tpm_prepare_slot();

  start = uv__tpm_now();
  deadline = start + t->budget;
  UV__TPM_ASSERT(UV__SLOT_STATE(atomic_load_explicit(&s->word,
                                                     memory_order_relaxed)) ==
                 UV__SLOT_IDLE);
  s->seq++;
  atomic_store_explicit(&s->task, t, memory_order_relaxed);
  atomic_store_explicit(&s->start, start, memory_order_relaxed);
  atomic_store_explicit(&s->deadline, deadline, memory_order_relaxed);
  atomic_store_explicit(&s->budget, t->budget, memory_order_relaxed);
  /* IDLE to RUNNING, with the task's new sequence number. Publishes the
   * above; sequentially consistent with the timer thread's uv__tpm_timer_next
   * (see uv__tpm_missed()). */
  atomic_store(&s->word, UV__SLOT_WORD(s->seq, UV__SLOT_RUNNING));
  if (deadline < atomic_load(&uv__tpm_timer_next)) {
    uv__tpm_lock(&uv__tpm_mutex);
    uv__tpm_wake();
    uv__tpm_unlock(&uv__tpm_mutex);
  }

  uv__tpm_current = t;
  uv__tpm_set_current_stop(&t->stop);
  t->user_work(t->user);
  uv__tpm_set_current_stop(NULL);
  uv__tpm_current = NULL;

  uv__tpm_disp = uv__tpm_finish(s, t);
}


/* On the loop: the task completed (status 0) or was cancelled. */
static void uv__tpm_done(struct uv__work* w, int status) {
  void (*done)(struct uv__work* w, int status);
  struct uv__tpm_task* t;
  struct uv__work* user;

  t = container_of(w, struct uv__tpm_task, work);
  user = t->user;
  done = t->user_done;
  uv__tpm_task_free(t);

  user->work = NULL;
  uv__queue_init(&user->wq);
  done(user, status);
}


struct uv__work* uv__tpm_wrap(struct uv__work* w, enum uv__work_kind kind) {
  const struct uv__tpm_opts* opts;
  struct uv__tpm_task* t;
  uint64_t ms;

  opts = uv__tpm_next;
  uv__tpm_next = NULL;
  /* Only what its submitter asked for: uv_queue_work_timed(), or an fs or
   * DNS request while the thread has a budget. Plain uv_queue_work() and
   * uv_random() (UV__WORK_CPU) never: their callers may free memory in the
   * done callback that the work still uses. */
  if (opts != NULL)
    ms = opts->timeout_ms;
  else if (kind == UV__WORK_CPU)
    ms = 0;
  else
    ms = uv__tpm_budget_ms();
  if (ms == 0)
    return w;

  t = uv__tpm_task_alloc();
  if (t == NULL)
    return w;  /* No memory: run it untimed rather than fail it. */

  /* Every field of the hot half (the cold one waits for the timer thread). */
  t->work.loop = w->loop;
  t->work.work = uv__tpm_run;
  t->work.done = uv__tpm_done;
  uv__queue_init(&t->anchor);
  t->user = w;
  t->user_work = w->work;
  t->user_done = w->done;
  t->req = opts != NULL ? opts->req : NULL;
  t->timedout_cb = opts != NULL ? opts->timedout_cb : NULL;
  t->tag = uv__tpm_thread_tag;
  t->loop = w->loop;
  t->budget = uv__tpm_ms_to_ns(ms);
  atomic_store_explicit(&t->stop, 0, memory_order_relaxed);
  t->kind = kind;
  t->cold = 0;

  w->work = uv__tpm_tag;
  w->wq.next = &t->anchor;
  w->wq.prev = &t->anchor;

  return &t->work;
}


struct uv__work* uv__tpm_cancel_target(struct uv__work* w) {
  if (w->work != uv__tpm_tag)
    return w;
  return &container_of(w->wq.next, struct uv__tpm_task, anchor)->work;
}


/* On the worker running a timed task, whose slot the timer thread took. */
static int uv__tpm_commit_decided(struct uv__tpm_slot* s) {
  uint64_t word;
  int committed;

  uv__tpm_lock(&uv__tpm_mutex);
  word = uv__tpm_decided_word(s);
  if (UV__SLOT_STATE(word) == UV__SLOT_RUNNING) {
    /* Extended. The timer thread swaps a RUNNING slot only under the lock. */
    UV__SLOT_SET(s,
                 word,
                 UV__SLOT_WORD(s->seq, UV__SLOT_COMMITTED),
                 memory_order_relaxed);
    committed = 1;
  } else {
    committed = UV__SLOT_STATE(word) == UV__SLOT_COMMITTED;
  }
  assert(committed || uv__tpm_current->cold);
  if (!committed && !uv__tpm_current->posted) {
    /* Timed out, but the loop has not been told: the work may still
     * complete normally, delivered when it returns (uv__tpm_finish()). */
    uv__tpm_current->late_commit = 1;
    committed = 1;
  }
  uv__tpm_unlock(&uv__tpm_mutex);
  return committed;
}


/* On the worker running a timed task: no timeout after this. */
static inline int uv__tpm_commit(void) {
  struct uv__tpm_slot* s;
  uint64_t word;

  s = uv__tpm_slot;
  word = UV__SLOT_WORD(s->seq, UV__SLOT_RUNNING);
  if (UV__SLOT_CAS(s,
                   &word,
                   UV__SLOT_WORD(s->seq, UV__SLOT_COMMITTED),
                   memory_order_acq_rel,
                   memory_order_acquire))
    return 1;
  if (UV__SLOT_STATE(word) == UV__SLOT_COMMITTED)
    return 1;
  return uv__tpm_commit_decided(s);
}


int uv__tpm_commit_work(struct uv__work* w) {
  struct uv__tpm_task* t;

  t = uv__tpm_current;
  if (t == NULL || t->user != w)
    return 1;  /* Not a timed task, or a synchronous call nested in one. */
  return uv__tpm_commit();
}


void uv__tpm_on_reclaim_internal(struct uv__work* w,
                                 void (*cb)(struct uv__work* w)) {
  struct uv__tpm_task* t;

  t = uv__tpm_delivering;
  if (t != NULL && t->user == w)
    t->reclaim_internal = cb;
}


/* From the pool's shutdown (the end of the process): is `tid` inside a
 * timed task? Such work may be abandoned at any time and may never return
 * (a FIFO without writer, a hung mount): the process must not wait for it.
 * Untimed work is waited for, as upstream does. */
int uv__tpm_thread_stuck(const uv_thread_t* tid) {
  struct uv__tpm_slot* s;
  struct uv__queue* q;
  int state;
  int stuck;

  if (!uv__tpm_enabled())
    return 0;

  uv__tpm_init();
  stuck = 0;
  uv__tpm_lock(&uv__tpm_mutex);
  uv__queue_foreach(q, &uv__tpm_slots) {
    s = uv__queue_data(q, struct uv__tpm_slot, link);
    if (!uv_thread_equal(&s->thread, tid))
      continue;
    state = UV__SLOT_STATE(atomic_load_explicit(&s->word,
                                                memory_order_acquire));
    stuck = state == UV__SLOT_RUNNING ||
            state == UV__SLOT_DECIDING ||
            state == UV__SLOT_TIMEDOUT;
  }
  uv__tpm_unlock(&uv__tpm_mutex);
  return stuck;
}


/* On the loop, from uv_loop_close(): timed-out tasks of this loop must not
 * post to it any more. Their reclaim callbacks will not run. */
void uv__tpm_loop_close(uv_loop_t* loop) {
  struct uv__tpm_task* t;
  struct uv__queue* q;

  if (!uv__tpm_enabled())
    return;

  uv__tpm_init();
  uv__tpm_lock(&uv__tpm_mutex);
  q = uv__queue_next(&uv__tpm_zombies);
  while (q != &uv__tpm_zombies) {
    t = uv__queue_data(q, struct uv__tpm_task, link);
    q = uv__queue_next(q);
    if (t->loop != loop)
      continue;
    if (t->notify_pending) {
      uv__tpm_lock_upstream(&loop->wq_mutex, UV__LOCK_WQ);
      uv__queue_remove(&t->notify.wq);
      uv__tpm_unlock_upstream(&loop->wq_mutex, UV__LOCK_WQ);
      t->notify_pending = 0;
    }
    t->loop = NULL;
    t->delivered = 1;
    t->posted = 1;
    if (t->returned) {
      uv__queue_remove(&t->link);
      uv__free(t);
    }
  }
  uv__tpm_unlock(&uv__tpm_mutex);
}


/* From the pool's shutdown: the idle executors, then the timer thread. */
void uv__tpm_cleanup(void) {
  if (!uv__tpm_core_initialized())
    return;

  uv__executor_cleanup();
  uv__tpm_timer_stop();

  /* Abandoned threads still running are left alone: the mutex and the
   * records they may touch are not freed. */
}


/* Public API. */

int uv_threadpool_set_timeout(uint64_t timeout_ms) {
  if (timeout_ms == UV_THREADPOOL_TIMEOUT_DEFAULT)
    return UV_EINVAL;
  if (timeout_ms != 0)
    uv__tpm_activate();
  atomic_store_explicit(&uv__tpm_default_ms, timeout_ms, memory_order_relaxed);
  return 0;
}


uint64_t uv_threadpool_get_timeout(void) {
  return atomic_load_explicit(&uv__tpm_default_ms, memory_order_relaxed);
}


uint64_t uv_threadpool_set_thread_timeout(uint64_t timeout_ms) {
  uint64_t previous;

  previous = uv__tpm_thread_ms;
  uv__tpm_thread_ms = timeout_ms;
  /* Following a pool default of 0 times nothing; a nonzero one has
   * activated the manager already. */
  if (timeout_ms != 0 && timeout_ms != UV_THREADPOOL_TIMEOUT_DEFAULT &&
      !uv__tpm_enabled())
    uv__tpm_activate();
  return previous;
}


int uv_threadpool_set_action(int action) {
  if (action != UV_THREADPOOL_ACTION_STOP &&
      action != UV_THREADPOOL_ACTION_REPORT)
    return UV_EINVAL;
  atomic_store_explicit(&uv__tpm_action, action, memory_order_relaxed);
  return 0;
}


int uv_threadpool_get_action(void) {
  return atomic_load_explicit(&uv__tpm_action, memory_order_relaxed);
}


void uv_threadpool_set_report_cb(uv_threadpool_report_cb cb) {
  atomic_store_explicit(&uv__tpm_report_cb, cb, memory_order_release);
}


void* uv_threadpool_set_thread_tag(void* tag) {
  void* previous;

  previous = uv__tpm_thread_tag;
  uv__tpm_thread_tag = tag;
  return previous;
}


static void uv__tpm_queue_work(struct uv__work* w) {
  uv_work_t* req;

  req = container_of(w, uv_work_t, work_req);
  req->work_cb(req);
}


static void uv__tpm_queue_done(struct uv__work* w, int status) {
  uv_work_t* req;

  req = container_of(w, uv_work_t, work_req);
  uv__req_unregister(req->loop);

  if (req->after_work_cb == NULL)
    return;

  req->after_work_cb(req, status);
}


int uv_queue_work_timed(uv_loop_t* loop,
                        uv_work_t* req,
                        uv_work_cb work_cb,
                        uv_after_work_cb after_work_cb,
                        uint64_t timeout_ms,
                        uv_work_timedout_cb timedout_cb) {
  struct uv__tpm_opts opts;

  if (work_cb == NULL)
    return UV_EINVAL;

  if (timeout_ms == UV_THREADPOOL_TIMEOUT_DEFAULT)
    timeout_ms = atomic_load_explicit(&uv__tpm_default_ms,
                                      memory_order_relaxed);
  if (timeout_ms != 0 && !uv__tpm_enabled())
    uv__tpm_activate();

  uv__req_init(loop, req, UV_WORK);
  req->loop = loop;
  req->work_cb = work_cb;
  req->after_work_cb = after_work_cb;

  opts.timeout_ms = timeout_ms;
  opts.req = req;
  opts.timedout_cb = timedout_cb;
  uv__tpm_next = &opts;
  uv__work_submit(loop,
                  &req->work_req,
                  UV__WORK_CPU,
                  uv__tpm_queue_work,
                  uv__tpm_queue_done);
  uv__tpm_next = NULL;
  return 0;
}


int uv_work_should_stop(uv_work_t* req) {
  struct uv__tpm_task* t;

  t = uv__tpm_current;
  return t != NULL &&
         t->user == &req->work_req &&
         atomic_load_explicit(&t->stop, memory_order_acquire);
}


int uv_threadpool_commit(void) {
  if (uv__tpm_current != NULL)
    return uv__tpm_commit();
  return uv__executor_commit();
}


int uv_threadpool_work_stopped(void) {
  struct uv__tpm_task* t;

  t = uv__tpm_delivering;
  if (t == NULL || t->status == 0)
    return UV_EINVAL;
  /* Written by the timer thread before it posted the delivery, under the
   * loop's wq_mutex, which uv__work_done() took since. */
  return !t->running;
}


int uv_threadpool_on_reclaim(uv_reclaim_cb cb, void* arg) {
  struct uv__tpm_task* t;

  t = uv__tpm_delivering;
  if (t == NULL)
    return UV_EINVAL;
  t->reclaim_cb = cb;
  t->reclaim_arg = arg;
  return 0;
}


void uv_threadpool_get_stats(uv_threadpool_stats_t* stats) {
  memset(stats, 0, sizeof(*stats));
  uv__tpm_init();
  uv__tpm_lock(&uv__tpm_mutex);
  stats->timed_out = uv__tpm_timed_out;
  stats->extended = uv__tpm_extended;
  stats->stopped = uv__tpm_stopped;
  stats->completed_late = uv__tpm_late;
  stats->cap_hits = uv__tpm_cap_hits;
  stats->kept_live = uv__tpm_kept;
  stats->stalled = uv__tpm_stalled;
  stats->reported = uv__tpm_reported;
  stats->hopped = uv__tpm_hop_count();
  uv__executor_stats(stats);  /* adds to timed_out and cap_hits */
  uv__hangman_stats(stats);
  uv__tpm_unlock(&uv__tpm_mutex);
  uv__slowres_stats(stats);
}


const char* uv_timeout_err_name(int err) {
  switch (err) {
  case UV_ESLOWRESOURCE: return "ESLOWRESOURCE";
  case UV_EABANDONCAP: return "EABANDONCAP";
  case UV_EPOOLSTALLED: return "EPOOLSTALLED";
  }
  return uv_err_name(err);
}


const char* uv_timeout_strerror(int err) {
  switch (err) {
  case UV_ESLOWRESOURCE:
    return "resource on the slow-resource list: an earlier request on it timed out";
  case UV_EABANDONCAP:
    return "task timed out; too many abandoned threads to replace it";
  case UV_EPOOLSTALLED:
    return "threadpool stalled: every worker is stuck in timed-out work "
           "and too many threads are abandoned to replace them";
  }
  return uv_strerror(err);
}
