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
 * nodecure: the Priority Executor (layer 2: calls the Hangman and the core;
 * see threadpool-core.h).
 *
 * Work that a caller waits for synchronously (Node's *Sync APIs on the loop
 * thread, fs-hop.c's hops) runs on a dedicated executor thread, outside the
 * pool's queue: it neither waits behind pool tasks nor takes a pool worker,
 * and the caller can stop waiting. Executors are started on demand and kept
 * idle for reuse, one per concurrent caller.
 *
 * An executor's state (uv__executor_set_state() checks each move):
 *
 *   IDLE --a job--> RUNNING --its work returns--> DONE --its caller--> IDLE
 *    |                |  \                          ^
 *    |                |   uv_threadpool_commit()    |
 *    |                |    \--> COMMITTED --its work returns
 *    |                |
 *    |     its caller gives up (timeout, stop word, abandon())
 *    |                v
 *    |            ABANDONED --work and cleanup_cb return--> freed
 *    +--exit (uv__executor_cleanup())--> EXIT --> joined, freed
 *
 * The race "work returned" / "caller gave up" is decided in one place, by
 * the caller with uv__tpm_mutex held (uv__executor_wait() returns the
 * outcome, uv__executor_decide() applies it): DONE wins, COMMITTED is
 * waited for, RUNNING becomes ABANDONED. An abandoned executor
 * goes to the Hangman (signalled for EINTR, joined once its work and
 * cleanup returned) and the next caller gets another executor. Whether one
 * may be started at all is the Hangman's cap (uv__executor_get()).
 *
 * Lock and ownership: uv__tpm_mutex guards the idle and busy lists, every
 * executor's state, job and `abandon`, and the counters. The job's work
 * and cleanup run without it, on the executor. An executor belongs to its
 * caller from uv__executor_get() to the decision, then to the idle list or,
 * abandoned, to its own thread, which frees it.
 */

#include "priority-executor.h"

#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

enum {
  UV__EX_IDLE,
  UV__EX_RUNNING,
  UV__EX_COMMITTED,
  UV__EX_DONE,
  UV__EX_ABANDONED,
  UV__EX_EXIT
};

struct uv__executor {
  struct uv__queue link;          /* in `idle` or in `busy` */
  uv_thread_t thread;
  uv_cond_t wake;                 /* the executor waits for a job */
  uv_cond_t done;                 /* the caller waits for the job */
  uv_priority_work_t* req;
  uv_priority_cb work_cb;
  uv_priority_cb cleanup_cb;
  struct uv__hangman_entry* hm;
  _Atomic int stop;
  int state;
  int abandon;                    /* uv_priority_work_abandon() was called */
};

/* How often a caller with a stop flag of its own looks at it while it
 * waits (ns). */
#define UV__EX_STOP_POLL ((uint64_t) 5 * 1000 * 1000)

static uv_once_t uv__executor_once = UV_ONCE_INIT;
static int uv__executor_ready;
static struct uv__queue uv__executor_idle = {
  &uv__executor_idle, &uv__executor_idle
};
static struct uv__queue uv__executor_busy = {
  &uv__executor_busy, &uv__executor_busy
};
static uint64_t uv__executor_timed_out;   /* jobs given up with UV_ETIMEDOUT */
static uint64_t uv__executor_cap_hits;    /* no executor: the cap */
static _Thread_local struct uv__executor* uv__executor_current;


#ifdef UV__TPM_DEBUG
static int uv__executor_may(int from, int to) {
  switch (to) {
  case UV__EX_RUNNING: return from == UV__EX_IDLE;
  case UV__EX_COMMITTED: return from == UV__EX_RUNNING;
  case UV__EX_DONE: return from == UV__EX_RUNNING || from == UV__EX_COMMITTED;
  case UV__EX_IDLE: return from == UV__EX_DONE;
  case UV__EX_ABANDONED: return from == UV__EX_RUNNING;
  case UV__EX_EXIT: return from == UV__EX_IDLE;
  }
  return 0;
}
#endif


/* With the lock held: a move of the diagram above. */
static void uv__executor_set_state(struct uv__executor* ex, int state) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  UV__TPM_ASSERT(uv__executor_may(ex->state, state));
  ex->state = state;
}


static void uv__executor_free(struct uv__executor* ex) {
  uv_cond_destroy(&ex->wake);
  uv_cond_destroy(&ex->done);
  uv__free(ex);
}


/* On the executor, with the lock held: runs the job it was given, unless
 * its caller gave up before the executor woke (its stop was set on entry):
 * the cleanup runs then all the same. Returns without the lock only for an
 * abandoned job, once cleaned up (`ex` is freed). */
static int uv__executor_run_job(struct uv__executor* ex) {
  uv_priority_work_t* req;
  uv_priority_cb cleanup;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  assert(ex->state == UV__EX_RUNNING || ex->state == UV__EX_ABANDONED);
  req = ex->req;
  if (ex->state == UV__EX_RUNNING) {
    uv__tpm_unlock(&uv__tpm_mutex);

    uv__executor_current = ex;
    uv__tpm_set_current_stop(&ex->stop);
    ex->work_cb(req);
    uv__tpm_set_current_stop(NULL);
    uv__executor_current = NULL;

    uv__tpm_lock(&uv__tpm_mutex);
  }
  if (ex->state != UV__EX_ABANDONED) {
    uv__executor_set_state(ex, UV__EX_DONE);
    uv_cond_signal(&ex->done);
    return 0;
  }

  /* Abandoned: clean up and leave; the Hangman joins this thread. */
  uv__hangman_release(ex->hm, 0);
  cleanup = ex->cleanup_cb;
  uv__tpm_unlock(&uv__tpm_mutex);
  if (cleanup != NULL)
    cleanup(req);
  uv__tpm_lock(&uv__tpm_mutex);
  uv__hangman_release(ex->hm, 1);
  uv__tpm_unlock(&uv__tpm_mutex);
  uv__executor_free(ex);
  return 1;
}


static void uv__executor_main(void* arg) {
  struct uv__executor* ex;

  ex = arg;
  uv_thread_setname("libuv-priority");

  uv__tpm_lock(&uv__tpm_mutex);
  uv__hangman_prepare_thread();
  for (;;) {
    while (ex->state == UV__EX_IDLE || ex->state == UV__EX_DONE)
      uv__tpm_wait(&ex->wake, &uv__tpm_mutex);
    if (ex->state == UV__EX_EXIT)
      break;
    if (uv__executor_run_job(ex))
      return;  /* Abandoned: gone. */
  }
  uv__tpm_unlock(&uv__tpm_mutex);
}


/* With the lock held. */
static int uv__executor_spawn(struct uv__executor** out) {
  uv_thread_options_t options;
  struct uv__executor* ex;
  sigset_t saved;
  int err;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  ex = uv__calloc(1, sizeof(*ex));
  if (ex == NULL)
    return UV_ENOMEM;
  if (uv_cond_init(&ex->wake)) {
    uv__free(ex);
    return UV_ENOMEM;
  }
  if (uv_cond_init(&ex->done)) {
    uv_cond_destroy(&ex->wake);
    uv__free(ex);
    return UV_ENOMEM;
  }
  ex->state = UV__EX_IDLE;

  options.flags = UV_THREAD_HAS_STACK_SIZE;
  options.stack_size = 8u << 20;  /* As the pool's workers. */
  /* No process-directed signals on executors (the fault signals stay
   * unblocked); uv__hangman_prepare_thread() unblocks the interrupt signal. */
  uv__tpm_block_signals(&saved);
  err = uv_thread_create_ex(&ex->thread, &options, uv__executor_main, ex);
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
  if (err) {
    uv__executor_free(ex);
    return err;
  }

  *out = ex;
  return 0;
}


/* With the lock held: an idle executor, else a new one. Past the cap, no
 * executor replaces the abandoned ones. */
static int uv__executor_get(struct uv__executor** out) {
  struct uv__executor* ex;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  if (!uv__queue_empty(&uv__executor_idle)) {
    ex = uv__queue_data(uv__queue_head(&uv__executor_idle),
                        struct uv__executor,
                        link);
    uv__queue_remove(&ex->link);
    *out = ex;
    return 0;
  }
  if (!uv__hangman_can_adopt() && uv__hangman_live() > 0) {
    uv__executor_cap_hits++;
    return UV_EABANDONCAP;
  }
  return uv__executor_spawn(out);
}


/* With the lock held: hands the job to `ex`. */
static void uv__executor_start(struct uv__executor* ex,
                               uv_priority_work_t* req,
                               uv_priority_cb work_cb,
                               uv_priority_cb cleanup_cb) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  ex->req = req;
  ex->work_cb = work_cb;
  ex->cleanup_cb = cleanup_cb;
  ex->abandon = 0;
  atomic_store_explicit(&ex->stop, 0, memory_order_relaxed);
  uv__executor_set_state(ex, UV__EX_RUNNING);
  uv__queue_insert_tail(&uv__executor_busy, &ex->link);
  uv_cond_signal(&ex->wake);
}


/* With the lock held, on the caller: waits until the job is DONE (returns
 * 0) or the caller gives up: UV_ECANCELED (uv_priority_work_abandon()),
 * UV_ETIMEDOUT (its timeout, or its own stop word: a stoppable section of
 * uv/sync-stop.h, a timed task of the pool; nothing signals our condition
 * variable when that is set, so it is looked at every UV__EX_STOP_POLL). A
 * COMMITTED job is waited for. */
static int uv__executor_wait(struct uv__executor* ex, uint64_t timeout_ms) {
  _Atomic int* caller_stop;
  uint64_t deadline;
  uint64_t wait;
  uint64_t now;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  deadline = 0;
  if (timeout_ms != 0)
    deadline = uv_hrtime() + timeout_ms * (uint64_t) 1000000;
  caller_stop = uv__tpm_get_current_stop();

  for (;;) {
    if (ex->state == UV__EX_DONE)
      return 0;
    if (ex->state == UV__EX_COMMITTED) {
      uv__tpm_wait(&ex->done, &uv__tpm_mutex);
      continue;
    }
    if (ex->abandon)
      return UV_ECANCELED;
    if (caller_stop != NULL &&
        atomic_load_explicit(caller_stop, memory_order_acquire))
      return UV_ETIMEDOUT;
    if (deadline == 0 && caller_stop == NULL) {
      uv__tpm_wait(&ex->done, &uv__tpm_mutex);
      continue;
    }
    now = uv_hrtime();
    if (deadline != 0 && now >= deadline)
      return UV_ETIMEDOUT;
    wait = deadline != 0 ? deadline - now : UV__EX_STOP_POLL;
    if (caller_stop != NULL && wait > UV__EX_STOP_POLL)
      wait = UV__EX_STOP_POLL;
    uv__tpm_timedwait(&ex->done, &uv__tpm_mutex, wait);
  }
}


/* With the lock held, on the caller: the one place a job is decided. `err`
 * 0: DONE, the executor goes back to the idle list; else the executor is
 * abandoned, still RUNNING its work (its stop word set), to the Hangman. */
static void uv__executor_decide(struct uv__executor* ex, int err) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  uv__queue_remove(&ex->link);
  if (err == 0) {
    uv__executor_set_state(ex, UV__EX_IDLE);
    ex->req = NULL;
    uv__queue_insert_head(&uv__executor_idle, &ex->link);
    return;
  }
  uv__executor_set_state(ex, UV__EX_ABANDONED);
  atomic_store_explicit(&ex->stop, 1, memory_order_release);
  if (err == UV_ETIMEDOUT)
    uv__executor_timed_out++;
  ex->hm = uv__hangman_adopt(&ex->thread, 1, NULL);
}


static void uv__executor_atfork_child(void) {
  /* The parent's executors are not in the child (their memory is
   * leaked): the next caller starts one. */
  uv__queue_init(&uv__executor_idle);
  uv__queue_init(&uv__executor_busy);
  uv__executor_current = NULL;
}


static void uv__executor_init_once(void) {
  uv__hangman_init();
  if (pthread_atfork(NULL, NULL, uv__executor_atfork_child))
    abort();
  uv__executor_ready = 1;
}


static void uv__executor_init(void) {
  uv_once(&uv__executor_once, uv__executor_init_once);
}


int uv_priority_work(uv_priority_work_t* req,
                     uv_priority_cb work_cb,
                     uv_priority_cb cleanup_cb,
                     uint64_t timeout_ms) {
  struct uv__executor* ex;
  int err;

  if (req == NULL || work_cb == NULL)
    return UV_EINVAL;

  uv__executor_init();
  uv__tpm_lock(&uv__tpm_mutex);
  err = uv__executor_get(&ex);
  if (err == 0) {
    uv__executor_start(ex, req, work_cb, cleanup_cb);
    err = uv__executor_wait(ex, timeout_ms);
    uv__executor_decide(ex, err);
  }
  uv__tpm_unlock(&uv__tpm_mutex);
  return err;
}


int uv_priority_work_abandon(uv_priority_work_t* req) {
  struct uv__executor* ex;
  struct uv__queue* q;
  int err;

  if (req == NULL)
    return UV_EINVAL;

  uv__executor_init();
  err = UV_ENOENT;
  uv__tpm_lock(&uv__tpm_mutex);
  uv__queue_foreach(q, &uv__executor_busy) {
    ex = uv__queue_data(q, struct uv__executor, link);
    if (ex->req == req && ex->state == UV__EX_RUNNING && !ex->abandon) {
      ex->abandon = 1;
      uv_cond_signal(&ex->done);
      err = 0;
      break;
    }
  }
  uv__tpm_unlock(&uv__tpm_mutex);
  return err;
}


int uv__executor_commit(void) {
  struct uv__executor* ex;
  int committed;

  ex = uv__executor_current;
  if (ex == NULL)
    return 1;

  uv__tpm_lock(&uv__tpm_mutex);
  if (ex->state == UV__EX_RUNNING)
    uv__executor_set_state(ex, UV__EX_COMMITTED);
  committed = ex->state == UV__EX_COMMITTED;
  uv__tpm_unlock(&uv__tpm_mutex);
  return committed;
}


void uv__executor_stats(uv_threadpool_stats_t* stats) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  stats->timed_out += uv__executor_timed_out;
  stats->cap_hits += uv__executor_cap_hits;
}


/* At exit: stop and join the idle executors. Busy and abandoned ones are
 * left alone. */
void uv__executor_cleanup(void) {
  struct uv__executor* ex;
  struct uv__queue idle;
  struct uv__queue* q;

  if (!uv__executor_ready)
    return;

  uv__tpm_lock(&uv__tpm_mutex);
  uv__queue_move(&uv__executor_idle, &idle);
  uv__queue_foreach(q, &idle) {
    ex = uv__queue_data(q, struct uv__executor, link);
    uv__executor_set_state(ex, UV__EX_EXIT);
    uv_cond_signal(&ex->wake);
  }
  uv__tpm_unlock(&uv__tpm_mutex);

  while (!uv__queue_empty(&idle)) {
    q = uv__queue_head(&idle);
    uv__queue_remove(q);
    ex = uv__queue_data(q, struct uv__executor, link);
    uv_thread_join(&ex->thread);
    uv__executor_free(ex);
  }
}
