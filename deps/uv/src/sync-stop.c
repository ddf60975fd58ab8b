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
 * nodecure: stopping another thread's synchronous calls (uv/sync-stop.h;
 * layer 4: calls the Hangman, the mount table and the core, see
 * threadpool-core.h).
 *
 * The signal must never reach the owner outside a section: a system call
 * there could fail with an EINTR that its caller does not expect. So the
 * section's `phase` is a one-word state machine whose first writer wins:
 *
 *   IDLE --enter--> INSIDE --leave--> IDLE
 *                   INSIDE or KICKED --request (CAS)--> KICKING --> KICKED
 *                   KICKED --leave--> IDLE
 *
 * Only the requester that moved INSIDE (or KICKED, to signal again, no
 * sooner than a millisecond after the last signal, so that a leave() that
 * meets KICKED cannot be starved) to KICKING sends the signal; it checks
 * the token there and goes back if the section is not the one it meant.
 * leave() that finds KICKING waits for it to end; from KICKED it moves to
 * IDLE (no request can signal after that), then waits until the signal is
 * no longer pending on the owner, so none is left in flight when the
 * section is over. leave() keeps the common case (INSIDE to IDLE) in line
 * and the rest in uv__sync_stop_leave_kicked().
 *
 * Where things are decided: whether a call is a section, the owner's token
 * callback (uv_sync_stop_enter()); whether a request stops it, the
 * requester's CAS to KICKING and its look at the token there
 * (uv_sync_stop_request()); whether the section was stopped, its stop word
 * (uv_sync_stop_leave()).
 *
 * Lock and ownership: no lock of its own (the phase word is the
 * synchronisation); uv_sync_stop_register() takes uv__tpm_mutex for the
 * Hangman, and uv_threadpool_get_interrupt_signal() takes it briefly.
 * `depth`, `stopped`, `abandoned` and `saved` belong to the owner thread;
 * `token` is written by the owner before it publishes INSIDE (release) and
 * read by the requester after its CAS (acquire); `stop` is written by the
 * requester and read by the owner (uv_threadpool_should_stop());
 * `kicked_at` belongs to the requester in KICKING.
 */

#include "threadpool-manager.h"
#include "uv/sync-stop.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>

enum {
  UV__SYNC_IDLE,
  UV__SYNC_INSIDE,
  UV__SYNC_KICKING,
  UV__SYNC_KICKED
};

struct uv_sync_stop_s {
  uv_sync_stop_token_cb token_cb;
  void* data;
  pthread_t owner;
  _Atomic int* saved;            /* the thread's stop word outside sections */
  unsigned int depth;
  uint64_t stopped;              /* the token of the last stopped section */
  int abandoned;                 /* its call ran on, abandoned (fs-hop.c) */
  _Atomic uint64_t token;
  uint64_t kicked_at;            /* uv_hrtime() of the last signal: only
                                    the requester in KICKING touches it */
  _Atomic int phase;
  _Atomic int stop;
};

/* A section signalled already is signalled again no sooner than this. */
#define UV__SYNC_REKICK_NS ((uint64_t) 1000000)

static _Thread_local uv_sync_stop_t* uv__sync_stop_current;


uv_sync_stop_t* uv_sync_stop_register(uv_sync_stop_token_cb cb, void* data) {
  uv_sync_stop_t* s;

  if (cb == NULL || uv__sync_stop_current != NULL)
    return NULL;
  s = uv__calloc(1, sizeof(*s));
  if (s == NULL)
    return NULL;
  s->token_cb = cb;
  s->data = data;
  s->owner = pthread_self();
  atomic_init(&s->phase, UV__SYNC_IDLE);

  uv__hangman_init();
  uv__tpm_lock(&uv__tpm_mutex);
  uv__hangman_prepare_thread();  /* installs and unblocks the signal */
  uv__tpm_unlock(&uv__tpm_mutex);
  uv__mounts_init();  /* the mount table, for calls on hang-prone mounts */

  uv__sync_stop_current = s;
  return s;
}


void uv_sync_stop_unregister(uv_sync_stop_t* s) {
  if (s == NULL)
    return;
  assert(uv__sync_stop_current == s);
  assert(s->depth == 0);
  assert(atomic_load(&s->phase) == UV__SYNC_IDLE);
  uv__sync_stop_current = NULL;
  uv__free(s);
}


int uv_sync_stop_enter(void) {
  uv_sync_stop_t* s;
  uint64_t token;

  s = uv__sync_stop_current;
  if (s == NULL)
    return 0;
  if (s->depth > 0) {
    s->depth++;
    return 1;
  }
  token = s->token_cb(s->data);
  if (token == 0)
    return 0;

  s->depth = 1;
  s->stopped = 0;
  s->abandoned = 0;
  atomic_store_explicit(&s->stop, 0, memory_order_relaxed);
  atomic_store_explicit(&s->token, token, memory_order_relaxed);
  s->saved = uv__tpm_get_current_stop();
  uv__tpm_set_current_stop(&s->stop);
  atomic_store_explicit(&s->phase, UV__SYNC_INSIDE, memory_order_release);
  return 1;
}


/* On the owner, once no request can send another signal (phase IDLE):
 * until the signals sent are no longer pending, i.e. have been handled (or
 * discarded: a handler set to SIG_IGN). A signal the thread blocks stays
 * pending, is never handled in a system call of ours and does nothing when
 * the thread unblocks it: not waited for. */
static void uv__sync_stop_wait_handled(void) {
  sigset_t pending;
  sigset_t mask;
  int signo;

  signo = uv_threadpool_get_interrupt_signal();
  if (signo <= 0)
    return;
  for (;;) {
    if (sigpending(&pending) != 0 || !sigismember(&pending, signo))
      return;
    if (pthread_sigmask(SIG_BLOCK, NULL, &mask) != 0 ||
        sigismember(&mask, signo))
      return;
    sched_yield();
  }
}


/* On the owner, leaving the outermost section whose phase was not INSIDE:
 * a requester is signalling it (KICKING) or did (KICKED). Out of line, so
 * that the common leave() keeps a small frame. */
__attribute__((noinline))
static void uv__sync_stop_leave_kicked(uv_sync_stop_t* s, int expected) {
  for (;;) {
    if (expected == UV__SYNC_KICKED) {
      if (atomic_compare_exchange_strong_explicit(&s->phase,
                                                  &expected,
                                                  UV__SYNC_IDLE,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire)) {
        uv__sync_stop_wait_handled();
        return;
      }
    } else {
      assert(expected == UV__SYNC_KICKING);
      sched_yield();  /* The requester is between its CAS and the signal. */
    }
    expected = UV__SYNC_INSIDE;
    if (atomic_compare_exchange_strong_explicit(&s->phase,
                                                &expected,
                                                UV__SYNC_IDLE,
                                                memory_order_acq_rel,
                                                memory_order_acquire))
      return;
  }
}


int uv_sync_stop_leave(void) {
  uv_sync_stop_t* s;
  int expected;

  s = uv__sync_stop_current;
  assert(s != NULL && s->depth > 0);
  if (--s->depth > 0)
    return atomic_load_explicit(&s->stop, memory_order_acquire);

  expected = UV__SYNC_INSIDE;
  if (!atomic_compare_exchange_strong_explicit(&s->phase,
                                               &expected,
                                               UV__SYNC_IDLE,
                                               memory_order_acq_rel,
                                               memory_order_acquire))
    uv__sync_stop_leave_kicked(s, expected);

  uv__tpm_set_current_stop(s->saved);
  s->saved = NULL;
  if (!atomic_load_explicit(&s->stop, memory_order_acquire))
    return 0;
  s->stopped = atomic_load_explicit(&s->token, memory_order_relaxed);
  return 1;
}


uint64_t uv_sync_stop_take(void) {
  uv_sync_stop_t* s;
  uint64_t stopped;

  s = uv__sync_stop_current;
  if (s == NULL || s->depth > 0)
    return 0;
  stopped = s->stopped;
  s->stopped = 0;
  return stopped;
}


void uv__sync_stop_mark_abandoned(void) {
  assert(uv__sync_stop_current != NULL && uv__sync_stop_current->depth > 0);
  uv__sync_stop_current->abandoned = 1;
}


int uv_sync_stop_call_abandoned(void) {
  return uv__sync_stop_current != NULL && uv__sync_stop_current->abandoned;
}


int uv_sync_stop_inside(void) {
  return uv__sync_stop_current != NULL && uv__sync_stop_current->depth > 0;
}


int uv_sync_stop_request(uv_sync_stop_t* s, uint64_t token) {
  int previous;
  int signo;

  if (s == NULL || token == 0)
    return 0;
  signo = uv_threadpool_get_interrupt_signal();

  /* From INSIDE, or again from KICKED: a call may go on after the first
   * signal (a write that wrote part of its data) and block again. */
  previous = UV__SYNC_INSIDE;
  if (!atomic_compare_exchange_strong_explicit(&s->phase,
                                               &previous,
                                               UV__SYNC_KICKING,
                                               memory_order_acq_rel,
                                               memory_order_acquire)) {
    previous = UV__SYNC_KICKED;
    if (!atomic_compare_exchange_strong_explicit(&s->phase,
                                                 &previous,
                                                 UV__SYNC_KICKING,
                                                 memory_order_acq_rel,
                                                 memory_order_acquire))
      return 0;
    /* Not again within a millisecond: a leave() that meets KICKED wins. */
    if (uv_hrtime() - s->kicked_at < UV__SYNC_REKICK_NS) {
      atomic_store_explicit(&s->phase, previous, memory_order_release);
      return 0;
    }
  }
  if (atomic_load_explicit(&s->token, memory_order_relaxed) != token) {
    atomic_store_explicit(&s->phase, previous, memory_order_release);
    return 0;  /* Another section than the one meant: leave it alone. */
  }

  atomic_store_explicit(&s->stop, 1, memory_order_release);
  if (signo > 0 && pthread_kill(s->owner, signo) == 0) {
    s->kicked_at = uv_hrtime();
    previous = UV__SYNC_KICKED;
  }
  /* Else no signal in flight: CPU loops still see the stop word. */
  atomic_store_explicit(&s->phase, previous, memory_order_release);
  return 1;
}
