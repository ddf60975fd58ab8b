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
 * nodecure: the Priority Executor.
 *
 * Work that a caller waits for synchronously (Node's *Sync APIs on the loop
 * thread) runs on a dedicated executor thread, outside the pool's queue: it
 * neither waits behind pool tasks nor takes a pool worker, and the caller can
 * stop waiting. Executors are started on demand and kept idle for reuse, one
 * per concurrent caller.
 *
 * A job is RUNNING, then either DONE (the executor finished first) or
 * ABANDONED (the caller's timeout or uv_priority_work_abandon() came first);
 * uv_threadpool_commit() turns RUNNING into COMMITTED, which can no longer be
 * abandoned. The caller decides, with uv__tpm_mutex held: the same kind of
 * single decision point as the pool's. An abandoned executor goes to the
 * Hangman (signalled for EINTR, joined once its work and cleanup returned)
 * and the next caller gets another executor.
 */

#include "threadpool-manager.h"

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

static struct uv__queue uv__executor_idle = {
  &uv__executor_idle, &uv__executor_idle
};
static struct uv__queue uv__executor_busy = {
  &uv__executor_busy, &uv__executor_busy
};
static _Thread_local struct uv__executor* uv__executor_current;


static void uv__executor_free(struct uv__executor* ex) {
  uv_cond_destroy(&ex->wake);
  uv_cond_destroy(&ex->done);
  uv__free(ex);
}


static void uv__executor_main(void* arg) {
  struct uv__executor* ex;
  uv_priority_work_t* req;
  uv_priority_cb cleanup;

  ex = arg;
  uv_thread_setname("libuv-priority");

  uv_mutex_lock(&uv__tpm_mutex);
  uv__hangman_prepare_thread();
  for (;;) {
    /* A job is RUNNING, or already ABANDONED if its caller gave up before
     * this thread woke (its stop was set on entry): then the work does not
     * run, but the cleanup does, as for any abandoned job. */
    while (ex->state == UV__EX_IDLE || ex->state == UV__EX_DONE)
      uv_cond_wait(&ex->wake, &uv__tpm_mutex);
    if (ex->state == UV__EX_EXIT)
      break;
    assert(ex->state == UV__EX_RUNNING || ex->state == UV__EX_ABANDONED);
    req = ex->req;
    if (ex->state == UV__EX_RUNNING) {
      uv_mutex_unlock(&uv__tpm_mutex);

      uv__executor_current = ex;
      uv__tpm_set_current_stop(&ex->stop);
      ex->work_cb(req);
      uv__tpm_set_current_stop(NULL);
      uv__executor_current = NULL;

      uv_mutex_lock(&uv__tpm_mutex);
    }
    if (ex->state != UV__EX_ABANDONED) {
      ex->state = UV__EX_DONE;
      uv_cond_signal(&ex->done);
      continue;
    }

    /* Abandoned: clean up and leave; the Hangman joins this thread. */
    uv__hangman_release(ex->hm, 0);
    cleanup = ex->cleanup_cb;
    uv_mutex_unlock(&uv__tpm_mutex);
    if (cleanup != NULL)
      cleanup(req);
    uv_mutex_lock(&uv__tpm_mutex);
    uv__hangman_release(ex->hm, 1);
    uv_mutex_unlock(&uv__tpm_mutex);
    uv__executor_free(ex);
    return;
  }
  uv_mutex_unlock(&uv__tpm_mutex);
}


/* With the lock held. */
static int uv__executor_spawn(struct uv__executor** out) {
  uv_thread_options_t options;
  struct uv__executor* ex;
  sigset_t saved;
  int err;

  /* Past the cap, no executor replaces the abandoned ones. */
  if (!uv__hangman_can_adopt()) {
    uv_threadpool_stats_t stats;
    uv__hangman_stats(&stats);
    if (stats.abandoned_live > 0) {
      uv__tpm_cap_hits++;
      return UV_EABANDONCAP;
    }
  }

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


int uv_priority_work(uv_priority_work_t* req,
                     uv_priority_cb work_cb,
                     uv_priority_cb cleanup_cb,
                     uint64_t timeout_ms) {
  struct uv__executor* ex;
  _Atomic int* caller_stop;
  uint64_t deadline;
  uint64_t wait;
  uint64_t now;
  int err;

  if (req == NULL || work_cb == NULL)
    return UV_EINVAL;

  uv__tpm_init();
  uv_mutex_lock(&uv__tpm_mutex);

  if (!uv__queue_empty(&uv__executor_idle)) {
    ex = uv__queue_data(uv__queue_head(&uv__executor_idle),
                        struct uv__executor,
                        link);
    uv__queue_remove(&ex->link);
  } else {
    err = uv__executor_spawn(&ex);
    if (err) {
      uv_mutex_unlock(&uv__tpm_mutex);
      return err;
    }
  }

  ex->req = req;
  ex->work_cb = work_cb;
  ex->cleanup_cb = cleanup_cb;
  ex->abandon = 0;
  atomic_store_explicit(&ex->stop, 0, memory_order_relaxed);
  ex->state = UV__EX_RUNNING;
  uv__queue_insert_tail(&uv__executor_busy, &ex->link);
  uv_cond_signal(&ex->wake);

  deadline = 0;
  if (timeout_ms != 0)
    deadline = uv_hrtime() + timeout_ms * (uint64_t) 1000000;
  /* The caller's own stop flag, if it has one: a stoppable section of
   * uv/sync-stop.h, or a timed task of the pool. Nothing signals our
   * condition variable when it is set: we look every UV__EX_STOP_POLL. */
  caller_stop = uv__tpm_get_current_stop();

  err = 0;
  for (;;) {
    if (ex->state == UV__EX_DONE)
      break;
    if (ex->state == UV__EX_COMMITTED) {
      uv_cond_wait(&ex->done, &uv__tpm_mutex);
      continue;
    }
    if (ex->abandon) {
      err = UV_ECANCELED;
      break;
    }
    if (caller_stop != NULL &&
        atomic_load_explicit(caller_stop, memory_order_acquire)) {
      err = UV_ETIMEDOUT;
      break;
    }
    if (deadline == 0 && caller_stop == NULL) {
      uv_cond_wait(&ex->done, &uv__tpm_mutex);
      continue;
    }
    now = uv_hrtime();
    if (deadline != 0 && now >= deadline) {
      err = UV_ETIMEDOUT;
      break;
    }
    wait = deadline != 0 ? deadline - now : UV__EX_STOP_POLL;
    if (caller_stop != NULL && wait > UV__EX_STOP_POLL)
      wait = UV__EX_STOP_POLL;
    uv_cond_timedwait(&ex->done, &uv__tpm_mutex, wait);
  }

  uv__queue_remove(&ex->link);
  if (err == 0) {
    ex->state = UV__EX_IDLE;
    ex->req = NULL;
    uv__queue_insert_head(&uv__executor_idle, &ex->link);
  } else {
    ex->state = UV__EX_ABANDONED;
    atomic_store_explicit(&ex->stop, 1, memory_order_release);
    if (err == UV_ETIMEDOUT)
      uv__tpm_timed_out++;
    ex->hm = uv__hangman_adopt(&ex->thread, 1, NULL);
  }

  uv_mutex_unlock(&uv__tpm_mutex);
  return err;
}


int uv_priority_work_abandon(uv_priority_work_t* req) {
  struct uv__executor* ex;
  struct uv__queue* q;
  int err;

  if (req == NULL)
    return UV_EINVAL;

  uv__tpm_init();
  err = UV_ENOENT;
  uv_mutex_lock(&uv__tpm_mutex);
  uv__queue_foreach(q, &uv__executor_busy) {
    ex = uv__queue_data(q, struct uv__executor, link);
    if (ex->req == req && ex->state == UV__EX_RUNNING && !ex->abandon) {
      ex->abandon = 1;
      uv_cond_signal(&ex->done);
      err = 0;
      break;
    }
  }
  uv_mutex_unlock(&uv__tpm_mutex);
  return err;
}


int uv__executor_commit(void) {
  struct uv__executor* ex;
  int committed;

  ex = uv__executor_current;
  if (ex == NULL)
    return 1;

  uv_mutex_lock(&uv__tpm_mutex);
  if (ex->state == UV__EX_RUNNING)
    ex->state = UV__EX_COMMITTED;
  committed = ex->state == UV__EX_COMMITTED;
  uv_mutex_unlock(&uv__tpm_mutex);
  return committed;
}


/* At exit: stop and join the idle executors. Busy and abandoned ones are
 * left alone. */
void uv__executor_cleanup(void) {
  struct uv__executor* ex;
  struct uv__queue idle;
  struct uv__queue* q;

  uv_mutex_lock(&uv__tpm_mutex);
  uv__queue_move(&uv__executor_idle, &idle);
  uv__queue_foreach(q, &idle) {
    ex = uv__queue_data(q, struct uv__executor, link);
    ex->state = UV__EX_EXIT;
    uv_cond_signal(&ex->wake);
  }
  uv_mutex_unlock(&uv__tpm_mutex);

  while (!uv__queue_empty(&idle)) {
    q = uv__queue_head(&idle);
    uv__queue_remove(q);
    ex = uv__queue_data(q, struct uv__executor, link);
    uv_thread_join(&ex->thread);
    uv__executor_free(ex);
  }
}


void uv__executor_atfork(void) {
  uv__queue_init(&uv__executor_idle);
  uv__queue_init(&uv__executor_busy);
  uv__executor_current = NULL;
}
