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
 * nodecure: the Hangman's interface (hangman.c, layer 1: calls the core
 * only). Used by the Priority Executor, the Manager and sync-stop.c.
 */

#ifndef UV_HANGMAN_H_
#define UV_HANGMAN_H_

#include "threadpool-core.h"

struct uv__hangman_entry;

/* Once, before any other call below: the core, the Hangman's fork handler
 * and its chore on the timer thread. Without the lock. */
void uv__hangman_init(void);
/* On a thread that turns timeouts on, before any can happen: the cap from
 * the environment. Takes the lock. */
void uv__hangman_init_limit(void);

/* The rest with uv__tpm_mutex held. */

/* Nonzero while the cap leaves room for one more abandoned thread. */
int uv__hangman_can_adopt(void);
/* Abandoned threads not joined yet. */
unsigned int uv__hangman_live(void);
/* Takes thread `tid`: signals it now and again until released. With `join`
 * it left its pool and counts against the cap (joined once released with
 * `returned`); without, it stays where it is and is only signalled. `held`:
 * the thread's flag set while its work holds the signal
 * (uv__hangman_set_held_flag()), or NULL; valid until released. Returns
 * NULL when memory is short (a joinable thread is then detached). */
struct uv__hangman_entry* uv__hangman_adopt(const uv_thread_t* tid, int join,
                                            const _Atomic int* held);
/* The adopted thread's work returned (`returned`: the thread is about to
 * exit, or back in its pool) or must not be signalled any more. NULL: a
 * no-op. */
void uv__hangman_release(struct uv__hangman_entry* e, int returned);
/* On a pool or executor thread about to run abandonable work, and on a
 * thread that registers a stop (sync-stop.c): the interrupt signal chosen
 * and unblocked. */
void uv__hangman_prepare_thread(void);
void uv__hangman_stats(uv_threadpool_stats_t* stats);

/* On a pool thread, its own flag for uv_threadpool_set_interruptible() (in
 * its slot: the Manager's) from the time it has one, NULL once it has
 * none. No lock: only the thread itself reads it. */
void uv__hangman_set_held_flag(_Atomic int* flag);

/* Bumped when the interrupt signal changes: pool threads prepare again
 * before their next timed task. Inline: read on every timed task. */
extern _Atomic unsigned int uv__hangman_signal_gen;

static inline unsigned int uv__hangman_signal_generation(void) {
  return atomic_load_explicit(&uv__hangman_signal_gen, memory_order_relaxed);
}

#endif  /* UV_HANGMAN_H_ */
