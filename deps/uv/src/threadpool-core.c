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
 * nodecure: the core of the timed threadpool (layer 0; the layers and the
 * lock table are in threadpool-core.h).
 *
 * The timer thread. Its state is a small machine, changed only with
 * uv__tpm_mutex held:
 *
 *   NOT_STARTED --first uv__tpm_wake()--> RUNNING --exit--> STOPPED
 *   NOT_STARTED --exit--> STOPPED (never starts)
 *   RUNNING --fork(), in the child--> NOT_STARTED (the thread is not there)
 *
 * Each time it wakes, with the lock held, it runs the chores (the
 * Manager's, then the Hangman's), publishes the earliest time they asked
 * for as its next wake-up (uv__tpm_timer_next, 0 while it is awake), asks
 * each chore whether it missed something due earlier that started
 * meanwhile, and sleeps until then on uv__tpm_timer_cond, which
 * uv__tpm_wake() signals. That loop is the one place the timer thread
 * decides when to run next.
 *
 * Ownership: the chores table, the timer thread's state and thread belong
 * to this file and are used under uv__tpm_mutex; uv__tpm_timer_next is
 * written by the timer thread only; uv__tpm_current_stop is each thread's
 * own.
 */

#include "threadpool-core.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

enum {
  UV__TIMER_NOT_STARTED,
  UV__TIMER_RUNNING,
  UV__TIMER_STOPPED
};

uv__tpm_lock_t uv__tpm_mutex;
_Atomic uint64_t uv__tpm_timer_next = UV__TPM_NEVER;
_Thread_local _Atomic int* uv__tpm_current_stop;
#ifdef UV__TPM_DEBUG
_Thread_local unsigned int uv__tpm_held_ranks;
#endif

static uv_once_t uv__tpm_core_once = UV_ONCE_INIT;
static int uv__tpm_core_ready;
static uv_cond_t uv__tpm_timer_cond;       /* wakes the timer thread */
static uv_thread_t uv__tpm_timer_thread;
static int uv__tpm_timer_state;            /* UV__TIMER_*, under the lock */
static struct uv__tpm_chore uv__tpm_chores[UV__TPM_CHORES];
static _Atomic uint64_t uv__tpm_hops;


static void uv__tpm_core_atfork_child(void) {
  /* Only the forking thread survives: the timer thread is not in the child
   * (started again on demand), and the lock is made anew. */
  if (uv__tpm_lock_init(&uv__tpm_mutex, UV__LOCK_TPM) ||
      uv_cond_init(&uv__tpm_timer_cond))
    abort();
  uv__tpm_timer_state = UV__TIMER_NOT_STARTED;
  atomic_store(&uv__tpm_timer_next, UV__TPM_NEVER);
  uv__tpm_current_stop = NULL;
}


static void uv__tpm_core_init_once(void) {
  if (uv__tpm_lock_init(&uv__tpm_mutex, UV__LOCK_TPM) ||
      uv_cond_init(&uv__tpm_timer_cond))
    abort();
  if (pthread_atfork(NULL, NULL, uv__tpm_core_atfork_child))
    abort();
  uv__tpm_core_ready = 1;
}


void uv__tpm_core_init(void) {
  uv_once(&uv__tpm_core_once, uv__tpm_core_init_once);
}


int uv__tpm_core_initialized(void) {
  return uv__tpm_core_ready;
}


/* A fault on a thread of ours must reach the process's crash handler: a
 * blocked fault signal kills the process without it. */
void uv__tpm_block_signals(sigset_t* saved) {
  sigset_t all;

  sigfillset(&all);
  sigdelset(&all, SIGSEGV);
  sigdelset(&all, SIGBUS);
  sigdelset(&all, SIGFPE);
  sigdelset(&all, SIGILL);
  sigdelset(&all, SIGTRAP);
  sigdelset(&all, SIGSYS);
  sigdelset(&all, SIGABRT);
  pthread_sigmask(SIG_SETMASK, &all, saved);
}


void uv__tpm_set_chore(int which, const struct uv__tpm_chore* chore) {
  UV__TPM_ASSERT(which >= 0 && which < UV__TPM_CHORES);
  uv__tpm_lock(&uv__tpm_mutex);
  uv__tpm_chores[which] = *chore;
  uv__tpm_unlock(&uv__tpm_mutex);
}


/* With the lock held: runs the chores, returns the earliest time they ask
 * for. */
static uint64_t uv__tpm_run_chores(void) {
  uint64_t next;
  uint64_t h;
  int i;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  next = UV__TPM_NEVER;
  for (i = 0; i < UV__TPM_CHORES; i++) {
    if (uv__tpm_chores[i].run == NULL)
      continue;
    h = uv__tpm_chores[i].run();
    if (h < next)
      next = h;
  }
  return next;
}


/* With the lock held, after publishing `next`: did a chore miss something
 * due earlier? */
static int uv__tpm_chores_missed(uint64_t next) {
  int i;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  for (i = 0; i < UV__TPM_CHORES; i++)
    if (uv__tpm_chores[i].missed != NULL && uv__tpm_chores[i].missed(next))
      return 1;
  return 0;
}


static void uv__tpm_timer_main(void* arg) {
  uint64_t next;
  uint64_t now;

  (void) arg;
  uv_thread_setname("libuv-watchdog");
  uv__tpm_lock(&uv__tpm_mutex);
  while (uv__tpm_timer_state == UV__TIMER_RUNNING) {
    atomic_store(&uv__tpm_timer_next, 0);  /* Awake: no need to signal us. */
    next = uv__tpm_run_chores();
    atomic_store(&uv__tpm_timer_next, next);
    if (uv__tpm_chores_missed(next))
      continue;
    if (next == UV__TPM_NEVER) {
      uv__tpm_wait(&uv__tpm_timer_cond, &uv__tpm_mutex);
      continue;
    }
    now = uv_hrtime();
    if (next > now)
      uv__tpm_timedwait(&uv__tpm_timer_cond, &uv__tpm_mutex, next - now);
  }
  uv__tpm_unlock(&uv__tpm_mutex);
}


/* With the lock held. */
static void uv__tpm_ensure_timer(void) {
  uv_thread_options_t options;
  sigset_t saved;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  if (uv__tpm_timer_state != UV__TIMER_NOT_STARTED)
    return;

  /* The timer thread, and the replacement workers it starts, receive no
   * process-directed signals; workers unblock the interrupt signal in
   * uv__hangman_prepare_thread(). */
  uv__tpm_block_signals(&saved);
  options.flags = UV_THREAD_HAS_STACK_SIZE;
  options.stack_size = 1u << 20;
  if (0 == uv_thread_create_ex(&uv__tpm_timer_thread,
                               &options,
                               uv__tpm_timer_main,
                               NULL))
    uv__tpm_timer_state = UV__TIMER_RUNNING;
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
}


void uv__tpm_wake(void) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  uv__tpm_ensure_timer();
  uv_cond_signal(&uv__tpm_timer_cond);
}


void uv__tpm_timer_stop(void) {
  int started;

  if (!uv__tpm_core_ready)
    return;

  uv__tpm_lock(&uv__tpm_mutex);
  started = uv__tpm_timer_state == UV__TIMER_RUNNING;
  uv__tpm_timer_state = UV__TIMER_STOPPED;  /* Never restart. */
  uv_cond_signal(&uv__tpm_timer_cond);
  uv__tpm_unlock(&uv__tpm_mutex);

  if (started)
    uv_thread_join(&uv__tpm_timer_thread);
}


int uv__tpm_stopping(void) {
  _Atomic int* stop;

  stop = uv__tpm_current_stop;
  return stop != NULL && atomic_load_explicit(stop, memory_order_acquire);
}


int uv_threadpool_should_stop(void) {
  return uv__tpm_stopping();
}


void uv__tpm_count_hop(void) {
  atomic_fetch_add_explicit(&uv__tpm_hops, 1, memory_order_relaxed);
}


uint64_t uv__tpm_hop_count(void) {
  return atomic_load_explicit(&uv__tpm_hops, memory_order_relaxed);
}
