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
 * nodecure: the threadpool Manager.
 *
 * A submission with a budget gets a task record. The record, not the
 * request, is what the pool queues and runs: its uv__work carries our
 * trampolines, so threadpool.c's queue discipline is untouched, and the
 * request's own uv__work only points back at the record (for uv_cancel()).
 *
 * States, all changed under uv__tpm_mutex and nowhere else:
 *
 *   QUEUED --worker starts--> RUNNING --work returns----------> DONE
 *                              |   ^ \--uv_threadpool_commit()-> COMMITTED
 *            deadline, callback|   |extension                      |
 *                              v   |                      work returns
 *                            DECIDING --no extension--+            v
 *                              |                      |           DONE
 *            deadline, no callback                    v
 *                              +------------------> TIMEDOUT
 *
 * The race "work returned" / "deadline passed" is decided in one place:
 * uv__tpm_finish() (the worker) and uv__tpm_expire() (the watchdog) both
 * take the lock and look at the state; whoever changes RUNNING first wins.
 * A completion arriving while the timed-out callback decides waits for the
 * decision. The done callback is therefore posted exactly once: by the worker
 * (DONE, upstream's path) or by the watchdog (TIMEDOUT, with UV_ETIMEDOUT).
 *
 * A TIMEDOUT record lives on as a zombie until both halves are over: its done
 * callback ran on the loop, and its work returned on the abandoned thread.
 * Whoever is second releases it, running the reclaim callbacks on the loop.
 */

#include "threadpool-manager.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#define UV__NS_PER_MS ((uint64_t) 1000000)

enum {
  UV__TASK_QUEUED,
  UV__TASK_RUNNING,
  UV__TASK_DECIDING,
  UV__TASK_COMMITTED,
  UV__TASK_DONE,
  UV__TASK_TIMEDOUT
};

struct uv__tpm_task {
  struct uv__work work;       /* what the pool queues and runs */
  struct uv__work notify;     /* posts the timeout, then the reclaim */
  struct uv__queue anchor;    /* the request's work_req.wq points here */
  struct uv__queue link;      /* in `running` or in `zombies` */
  struct uv__work* user;      /* the request's own uv__work */
  void (*user_work)(struct uv__work* w);
  void (*user_done)(struct uv__work* w, int status);
  void (*reclaim_internal)(struct uv__work* w);
  uv_reclaim_cb reclaim_cb;
  void* reclaim_arg;
  uv_work_t* req;             /* uv_queue_work_timed() only */
  uv_work_timedout_cb timedout_cb;
  uv_loop_t* loop;            /* NULL once the loop is closed */
  struct uv__hangman_entry* hm;
  uint64_t budget;            /* ns */
  uint64_t start;             /* uv_hrtime() */
  uint64_t deadline;
  uv_thread_t thread;
  _Atomic int stop;           /* read by uv_threadpool_should_stop() */
  int state;
  int kind;
  int status;                 /* UV_ETIMEDOUT or UV_EABANDONCAP */
  unsigned int abandoned:1;   /* replaced: the thread leaves on return */
  unsigned int delivered:1;   /* the done callback ran */
  unsigned int returned:1;    /* the work returned */
  unsigned int notify_pending:1;
};

/* Passed from uv_queue_work_timed() to uv__tpm_wrap() on the same thread. */
struct uv__tpm_opts {
  uint64_t timeout_ms;
  uv_work_t* req;
  uv_work_timedout_cb timedout_cb;
};

_Atomic int uv__tpm_active;
_Thread_local int uv__tpm_disp;
uv_mutex_t uv__tpm_mutex;
uint64_t uv__tpm_timed_out;
uint64_t uv__tpm_cap_hits;

static uv_once_t uv__tpm_once = UV_ONCE_INIT;
static int uv__tpm_initialized;
static uv_cond_t uv__tpm_wd_cond;     /* wakes the watchdog */
static uv_cond_t uv__tpm_decided;     /* a DECIDING task was decided */
static uv_thread_t uv__tpm_wd_thread;
static int uv__tpm_wd_state;          /* 0: not started, 1: running, 2: stop */
static uint64_t uv__tpm_wd_next = (uint64_t) -1;  /* its next wake-up */
static struct uv__queue uv__tpm_running;
static struct uv__queue uv__tpm_zombies;
static _Atomic uint64_t uv__tpm_default_ms;
static uint64_t uv__tpm_extended;

static _Thread_local struct uv__tpm_task* uv__tpm_current;
static _Thread_local _Atomic int* uv__tpm_current_stop;
static _Thread_local struct uv__tpm_task* uv__tpm_delivering;
static _Thread_local const struct uv__tpm_opts* uv__tpm_next;
static _Thread_local uint64_t uv__tpm_thread_ms =
    UV_THREADPOOL_TIMEOUT_DEFAULT;


static uint64_t uv__tpm_ms_to_ns(uint64_t ms) {
  if (ms > UINT64_MAX / UV__NS_PER_MS / 2)
    return UINT64_MAX / 2;
  return ms * UV__NS_PER_MS;
}


static void uv__tpm_atfork_child(void) {
  /* Only the forking thread survives: forget the parent's tasks and threads
   * (their memory is leaked) and start from scratch. */
  if (uv_mutex_init(&uv__tpm_mutex) ||
      uv_cond_init(&uv__tpm_wd_cond) ||
      uv_cond_init(&uv__tpm_decided))
    abort();
  uv__queue_init(&uv__tpm_running);
  uv__queue_init(&uv__tpm_zombies);
  uv__tpm_wd_state = 0;
  uv__tpm_wd_next = (uint64_t) -1;
  uv__tpm_current = NULL;
  uv__tpm_current_stop = NULL;
  uv__hangman_atfork();
  uv__executor_atfork();
}


static void uv__tpm_init_once(void) {
  if (uv_mutex_init(&uv__tpm_mutex) ||
      uv_cond_init(&uv__tpm_wd_cond) ||
      uv_cond_init(&uv__tpm_decided))
    abort();
  uv__queue_init(&uv__tpm_running);
  uv__queue_init(&uv__tpm_zombies);
  if (pthread_atfork(NULL, NULL, uv__tpm_atfork_child))
    abort();
  uv__tpm_initialized = 1;
}


void uv__tpm_init(void) {
  uv_once(&uv__tpm_once, uv__tpm_init_once);
}


static void uv__tpm_activate(void) {
  uv__tpm_init();
  atomic_store_explicit(&uv__tpm_active, 1, memory_order_relaxed);
}


static uint64_t uv__tpm_budget_ms(void) {
  uint64_t ms;

  ms = uv__tpm_thread_ms;
  if (ms == UV_THREADPOOL_TIMEOUT_DEFAULT)
    ms = atomic_load_explicit(&uv__tpm_default_ms, memory_order_relaxed);
  return ms;
}


int uv__tpm_budget_set(void) {
  return uv__tpm_enabled() && uv__tpm_budget_ms() != 0;
}


static void uv__tpm_watchdog(void* arg);


/* With the lock held. */
static void uv__tpm_ensure_watchdog(void) {
  uv_thread_options_t options;
  sigset_t all;
  sigset_t saved;

  if (uv__tpm_wd_state != 0)
    return;

  /* The watchdog, and the replacement workers it starts, receive no
   * process-directed signals; workers unblock the interrupt signal in
   * uv__hangman_prepare_thread(). */
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  options.flags = UV_THREAD_HAS_STACK_SIZE;
  options.stack_size = 1u << 20;
  if (0 == uv_thread_create_ex(&uv__tpm_wd_thread,
                               &options,
                               uv__tpm_watchdog,
                               NULL))
    uv__tpm_wd_state = 1;
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
}


/* With the lock held: makes the watchdog look at its lists again. */
void uv__tpm_wake(void) {
  uv__tpm_ensure_watchdog();
  uv_cond_signal(&uv__tpm_wd_cond);
}


void uv__tpm_set_current_stop(_Atomic int* stop) {
  uv__tpm_current_stop = stop;
}


/* Never called: marks a request's uv__work as owned by a task record. */
static void uv__tpm_tag(struct uv__work* w) {
  abort();
}


/* With the lock held: the loop will run n->done. */
static void uv__tpm_post(struct uv__tpm_task* t) {
  uv_loop_t* loop;

  loop = t->loop;
  t->notify_pending = 1;
  uv_mutex_lock(&loop->wq_mutex);
  uv__queue_insert_tail(&loop->wq, &t->notify.wq);
  uv_async_send(&loop->wq_async);
  uv_mutex_unlock(&loop->wq_mutex);
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

  t = container_of(n, struct uv__tpm_task, notify);
  uv_mutex_lock(&uv__tpm_mutex);
  t->notify_pending = 0;
  uv__queue_remove(&t->link);
  uv_mutex_unlock(&uv__tpm_mutex);
  uv__tpm_reclaim(t);
}


/* With the lock held, on the abandoned thread or the loop: both halves of a
 * timed-out task are over. */
static void uv__tpm_post_reclaim(struct uv__tpm_task* t) {
  if (t->loop == NULL) {
    /* The loop was closed: nobody is left to tell. */
    uv__queue_remove(&t->link);
    uv__free(t);
    return;
  }
  t->notify.done = uv__tpm_reclaim_done;
  uv__tpm_post(t);
}


/* On the loop: deliver the timeout to the request's done callback. */
static void uv__tpm_timeout_done(struct uv__work* n, int status) {
  struct uv__tpm_task* saved;
  struct uv__tpm_task* t;
  struct uv__work* user;

  t = container_of(n, struct uv__tpm_task, notify);
  user = t->user;

  uv_mutex_lock(&uv__tpm_mutex);
  t->notify_pending = 0;
  uv_mutex_unlock(&uv__tpm_mutex);

  /* As after any completion: uv_cancel() says UV_EBUSY. */
  user->work = NULL;
  uv__queue_init(&user->wq);

  saved = uv__tpm_delivering;
  uv__tpm_delivering = t;  /* for uv_threadpool_on_reclaim() */
  t->user_done(user, t->status);
  uv__tpm_delivering = saved;

  uv_mutex_lock(&uv__tpm_mutex);
  t->delivered = 1;
  if (!t->returned) {
    uv_mutex_unlock(&uv__tpm_mutex);
    return;  /* The abandoned thread posts the reclaim when it returns. */
  }
  uv__queue_remove(&t->link);
  uv_mutex_unlock(&uv__tpm_mutex);
  uv__tpm_reclaim(t);
}


/* With the lock held, on the watchdog: the one place a task times out. */
static void uv__tpm_time_out(struct uv__tpm_task* t) {
  int slow_io;

  t->state = UV__TASK_TIMEDOUT;
  atomic_store_explicit(&t->stop, 1, memory_order_release);
  uv__queue_remove(&t->link);
  uv__queue_insert_tail(&uv__tpm_zombies, &t->link);
  uv__tpm_timed_out++;

  slow_io = t->kind == UV__WORK_SLOW_IO;
  if (uv__hangman_can_adopt() &&
      0 == uv__threadpool_replace(&t->thread, slow_io)) {
    t->status = UV_ETIMEDOUT;
    t->abandoned = 1;
    t->hm = uv__hangman_adopt(&t->thread, 1);
  } else {
    /* Too many abandoned threads (or no thread to start): report it, keep
     * the thread, and hurry its work along with the interrupt signal. */
    t->status = UV_EABANDONCAP;
    uv__tpm_cap_hits++;
    t->hm = uv__hangman_adopt(&t->thread, 0);
  }

  t->notify.done = uv__tpm_timeout_done;
  uv__tpm_post(t);
}


/* With the lock held, on the watchdog, for a RUNNING task past its deadline.
 * The timed-out callback runs without the lock; meanwhile the task is
 * DECIDING and a completion waits in uv__tpm_finish(). */
static void uv__tpm_expire(struct uv__tpm_task* t, uint64_t now) {
  uint64_t extension;

  if (t->timedout_cb != NULL) {
    t->state = UV__TASK_DECIDING;
    uv_mutex_unlock(&uv__tpm_mutex);
    extension = t->timedout_cb(t->req, (now - t->start) / UV__NS_PER_MS);
    uv_mutex_lock(&uv__tpm_mutex);
    if (extension != 0) {
      t->state = UV__TASK_RUNNING;
      t->deadline = uv_hrtime() + uv__tpm_ms_to_ns(extension);
      uv__tpm_extended++;
      uv_cond_broadcast(&uv__tpm_decided);
      return;
    }
  }

  uv__tpm_time_out(t);
  uv_cond_broadcast(&uv__tpm_decided);
}


static void uv__tpm_watchdog(void* arg) {
  struct uv__tpm_task* t;
  struct uv__queue to_join;
  struct uv__queue* q;
  uint64_t next;
  uint64_t now;
  uint64_t h;

  uv_thread_setname("libuv-watchdog");
  uv_mutex_lock(&uv__tpm_mutex);
  while (uv__tpm_wd_state == 1) {
    uv__tpm_wd_next = 0;  /* Awake: no need to signal us. */
    now = uv_hrtime();
    next = (uint64_t) -1;

  rescan:
    uv__queue_foreach(q, &uv__tpm_running) {
      t = uv__queue_data(q, struct uv__tpm_task, link);
      if (t->state != UV__TASK_RUNNING)
        continue;
      if (t->deadline > now) {
        if (t->deadline < next)
          next = t->deadline;
        continue;
      }
      uv__tpm_expire(t, now);  /* May drop the lock: start over. */
      now = uv_hrtime();
      next = (uint64_t) -1;
      goto rescan;
    }

    uv__queue_init(&to_join);
    h = uv__hangman_tick(now, &to_join);
    if (h < next)
      next = h;

    if (!uv__queue_empty(&to_join)) {
      uv_mutex_unlock(&uv__tpm_mutex);
      uv__hangman_join(&to_join);
      uv_mutex_lock(&uv__tpm_mutex);
      continue;
    }

    uv__tpm_wd_next = next;
    if (next == (uint64_t) -1)
      uv_cond_wait(&uv__tpm_wd_cond, &uv__tpm_mutex);
    else
      uv_cond_timedwait(&uv__tpm_wd_cond, &uv__tpm_mutex, next - now);
  }
  uv_mutex_unlock(&uv__tpm_mutex);
}


/* On the worker, with no lock: the task's work returned. */
static int uv__tpm_finish(struct uv__tpm_task* t) {
  int disposition;

  uv_mutex_lock(&uv__tpm_mutex);
  while (t->state == UV__TASK_DECIDING)
    uv_cond_wait(&uv__tpm_decided, &uv__tpm_mutex);

  if (t->state != UV__TASK_TIMEDOUT) {
    t->state = UV__TASK_DONE;
    uv__queue_remove(&t->link);
    uv_mutex_unlock(&uv__tpm_mutex);
    return UV__TPM_DELIVER;  /* threadpool.c posts t->work to the loop. */
  }

  t->returned = 1;
  uv__hangman_release(t->hm, 1);
  t->hm = NULL;
  disposition = t->abandoned ? UV__TPM_EXIT : UV__TPM_SKIP;
  if (t->delivered)
    uv__tpm_post_reclaim(t);
  uv_mutex_unlock(&uv__tpm_mutex);
  return disposition;  /* t may be gone already. */
}


/* The pool runs this in place of the request's work. */
static void uv__tpm_run(struct uv__work* w) {
  struct uv__tpm_task* t;

  t = container_of(w, struct uv__tpm_task, work);

  uv_mutex_lock(&uv__tpm_mutex);
  uv__hangman_prepare_thread();
  t->thread = uv_thread_self();
  t->start = uv_hrtime();
  t->deadline = t->start + t->budget;
  t->state = UV__TASK_RUNNING;
  uv__queue_insert_tail(&uv__tpm_running, &t->link);
  if (t->deadline < uv__tpm_wd_next)
    uv__tpm_wake();
  uv_mutex_unlock(&uv__tpm_mutex);

  uv__tpm_current = t;
  uv__tpm_current_stop = &t->stop;
  t->user_work(t->user);
  uv__tpm_current_stop = NULL;
  uv__tpm_current = NULL;

  uv__tpm_disp = uv__tpm_finish(t);
}


/* On the loop: the task completed (status 0) or was cancelled. */
static void uv__tpm_done(struct uv__work* w, int status) {
  void (*done)(struct uv__work* w, int status);
  struct uv__tpm_task* t;
  struct uv__work* user;

  t = container_of(w, struct uv__tpm_task, work);
  user = t->user;
  done = t->user_done;
  uv__free(t);

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
  ms = opts != NULL ? opts->timeout_ms : uv__tpm_budget_ms();
  if (ms == 0)
    return w;

  t = uv__calloc(1, sizeof(*t));
  if (t == NULL)
    return w;  /* No memory: run it untimed rather than fail it. */

  t->user = w;
  t->user_work = w->work;
  t->user_done = w->done;
  t->loop = w->loop;
  t->kind = kind;
  t->budget = uv__tpm_ms_to_ns(ms);
  t->state = UV__TASK_QUEUED;
  if (opts != NULL) {
    t->req = opts->req;
    t->timedout_cb = opts->timedout_cb;
  }
  t->work.loop = w->loop;
  t->work.work = uv__tpm_run;
  t->work.done = uv__tpm_done;
  t->notify.loop = w->loop;
  t->notify.work = uv__tpm_tag;
  uv__queue_init(&t->anchor);

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


int uv__tpm_stopping(void) {
  _Atomic int* stop;

  stop = uv__tpm_current_stop;
  return stop != NULL && atomic_load_explicit(stop, memory_order_acquire);
}


static int uv__tpm_commit(struct uv__tpm_task* t) {
  int committed;

  uv_mutex_lock(&uv__tpm_mutex);
  while (t->state == UV__TASK_DECIDING)
    uv_cond_wait(&uv__tpm_decided, &uv__tpm_mutex);
  if (t->state == UV__TASK_RUNNING)
    t->state = UV__TASK_COMMITTED;
  committed = t->state == UV__TASK_COMMITTED;
  uv_mutex_unlock(&uv__tpm_mutex);
  return committed;
}


int uv__tpm_commit_work(struct uv__work* w) {
  struct uv__tpm_task* t;

  t = uv__tpm_current;
  if (t == NULL || t->user != w)
    return 1;  /* Not a timed task, or a synchronous call nested in one. */
  return uv__tpm_commit(t);
}


void uv__tpm_on_reclaim_internal(struct uv__work* w,
                                 void (*cb)(struct uv__work* w)) {
  struct uv__tpm_task* t;

  t = uv__tpm_delivering;
  if (t != NULL && t->user == w)
    t->reclaim_internal = cb;
}


int uv__tpm_thread_stuck(const uv_thread_t* tid) {
  struct uv__tpm_task* t;
  struct uv__queue* q;
  int stuck;

  if (!uv__tpm_enabled())
    return 0;

  uv__tpm_init();
  stuck = 0;
  uv_mutex_lock(&uv__tpm_mutex);
  uv__queue_foreach(q, &uv__tpm_zombies) {
    t = uv__queue_data(q, struct uv__tpm_task, link);
    if (!t->abandoned && !t->returned && uv_thread_equal(&t->thread, tid))
      stuck = 1;
  }
  uv_mutex_unlock(&uv__tpm_mutex);
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
  uv_mutex_lock(&uv__tpm_mutex);
  q = uv__queue_next(&uv__tpm_zombies);
  while (q != &uv__tpm_zombies) {
    t = uv__queue_data(q, struct uv__tpm_task, link);
    q = uv__queue_next(q);
    if (t->loop != loop)
      continue;
    if (t->notify_pending) {
      uv_mutex_lock(&loop->wq_mutex);
      uv__queue_remove(&t->notify.wq);
      uv_mutex_unlock(&loop->wq_mutex);
      t->notify_pending = 0;
    }
    t->loop = NULL;
    t->delivered = 1;
    if (t->returned) {
      uv__queue_remove(&t->link);
      uv__free(t);
    }
  }
  uv_mutex_unlock(&uv__tpm_mutex);
}


void uv__tpm_cleanup(void) {
  int started;

  if (!uv__tpm_initialized)
    return;

  uv__executor_cleanup();

  uv_mutex_lock(&uv__tpm_mutex);
  started = uv__tpm_wd_state == 1;
  uv__tpm_wd_state = 2;  /* Never restart. */
  uv_cond_signal(&uv__tpm_wd_cond);
  uv_mutex_unlock(&uv__tpm_mutex);

  if (started)
    uv_thread_join(&uv__tpm_wd_thread);

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
  if (timeout_ms != UV_THREADPOOL_TIMEOUT_DEFAULT)
    uv__tpm_activate();
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
    timeout_ms = uv__tpm_budget_ms();
  if (timeout_ms != 0)
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


int uv_threadpool_should_stop(void) {
  return uv__tpm_stopping();
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
    return uv__tpm_commit(uv__tpm_current);
  return uv__executor_commit();
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
  uv_mutex_lock(&uv__tpm_mutex);
  stats->timed_out = uv__tpm_timed_out;
  stats->extended = uv__tpm_extended;
  stats->cap_hits = uv__tpm_cap_hits;
  uv__hangman_stats(stats);
  uv_mutex_unlock(&uv__tpm_mutex);
  uv__slowres_stats(stats);
}


const char* uv_timeout_err_name(int err) {
  switch (err) {
  case UV_ESLOWRESOURCE: return "ESLOWRESOURCE";
  case UV_EABANDONCAP: return "EABANDONCAP";
  }
  return uv_err_name(err);
}


const char* uv_timeout_strerror(int err) {
  switch (err) {
  case UV_ESLOWRESOURCE:
    return "resource blacklisted after an earlier request on it timed out";
  case UV_EABANDONCAP:
    return "task timed out; too many abandoned threads to replace it";
  }
  return uv_strerror(err);
}
