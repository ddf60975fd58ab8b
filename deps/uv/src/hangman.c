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
 * nodecure: the Hangman disposes of abandoned threads (layer 1: calls the
 * core only; see threadpool-core.h).
 *
 * It never cancels a thread (a task may hold malloc, stdio or OpenSSL locks).
 * It sends the thread the interrupt signal, whose handler does nothing and is
 * installed without SA_RESTART, so that a blocking system call (a FIFO or
 * pipe read, an open() of a FIFO without writer) fails with EINTR; it sends
 * it again with a growing interval (1 ms .. 100 ms) in case the signal landed
 * before the call; it joins the thread once its work has returned.
 *
 * An entry (a thread handed over by uv__hangman_adopt()):
 *
 *   adopt --> SIGNALLED --release(e, 0)--> QUIET --release(e, 1)--+
 *                 |                                               |
 *                 +--------------release(e, 1)--------------------+
 *                                                                 v
 *               with `join`: RETURNED --the chore--> joined and freed
 *               without:     freed at once (the thread is back in its pool)
 *
 * SIGNALLED is !quiet; QUIET is quiet && !returned. Entries with `join` are
 * threads that left their pool (an abandoned pool worker, an abandoned
 * executor): they count against the cap (uv_threadpool_set_abandoned_limit())
 * from adopt to join. Entries without are pool threads kept in their pool
 * because the cap was reached: only signalled, and only while their
 * timed-out work runs.
 *
 * Where things are decided: whether a thread may be abandoned at all is
 * uv__hangman_can_adopt() (the cap, asked by the Manager and the Priority
 * Executor); when to signal again is uv__hangman_kill(); which signal is
 * uv__hangman_choose_signal(), once (or uv_threadpool_set_interrupt_signal());
 * whether a thread holds the signal is its own flag (`held`,
 * uv_threadpool_set_interruptible()), which the chore reads before it sends.
 *
 * Lock and ownership: everything here is guarded by uv__tpm_mutex. The
 * public functions and uv__hangman_init_limit() take it; the other
 * functions of hangman.h require it (and assert it), but for
 * uv__hangman_init(), and uv__hangman_set_held_flag() and
 * uv_threadpool_set_interruptible(), which touch only the calling thread's
 * own mask and thread-locals. The chore runs on the timer thread and drops
 * the lock to join. An entry's `held` flag belongs to its thread (written
 * by it, read by the chore).
 */

#include "hangman.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#define UV__HANGMAN_FIRST_INTERVAL ((uint64_t) 1000000)   /* 1 ms */
#define UV__HANGMAN_MAX_INTERVAL ((uint64_t) 100000000)   /* 100 ms */
#define UV__HANGMAN_DEFAULT_LIMIT 64

struct uv__hangman_entry {
  struct uv__queue link;
  uv_thread_t thread;
  uint64_t next_signal;
  uint64_t interval;
  const _Atomic int* held;  /* set while the work holds the signal */
  unsigned int join:1;      /* left the pool: join it when it returns */
  unsigned int quiet:1;     /* stop signalling */
  unsigned int returned:1;  /* about to exit: join it */
};

static uv_once_t uv__hangman_once = UV_ONCE_INIT;
static struct uv__queue uv__hangman_list = {
  &uv__hangman_list, &uv__hangman_list
};
static unsigned int uv__hangman_limit = UV__HANGMAN_DEFAULT_LIMIT;
static int uv__hangman_limit_set;        /* by the API or the environment */
static unsigned int uv__hangman_live_n;  /* left the pool, not joined yet */
static uint64_t uv__hangman_total;
static int uv__hangman_signo = -1;       /* -1: not chosen yet, 0: none */
static _Thread_local int uv__hangman_unblocked;
static _Thread_local int uv__hangman_held;  /* set_interruptible(0) */
static _Thread_local _Atomic int* uv__hangman_held_flag;
_Atomic unsigned int uv__hangman_signal_gen;


static void uv__hangman_handler(int signo) {
  (void) signo;  /* Nothing: the point is the EINTR. */
}


static int uv__hangman_install(int signo) {
  struct sigaction sa;
  struct sigaction old;

  if (sigaction(signo, NULL, &old))
    return UV__ERR(errno);
  if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == uv__hangman_handler)
    return 0;
  if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
    return UV_EBUSY;  /* Somebody else's. */

  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = uv__hangman_handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  /* No SA_RESTART: blocking calls return EINTR. */
  if (sigaction(signo, &sa, NULL))
    return UV__ERR(errno);
  return 0;
}


/* UV_THREADPOOL_INTERRUPT_SIGNAL, if set to a signal number that can be
 * installed (0: no signal); -1 otherwise. */
static int uv__hangman_signal_from_env(void) {
  const char* val;
  char* end;
  long signo;

  val = getenv("UV_THREADPOOL_INTERRUPT_SIGNAL");
  if (val == NULL || *val == '\0')
    return -1;
  errno = 0;
  signo = strtol(val, &end, 10);
  if (errno != 0 || *end != '\0' || signo < 0 || signo >= NSIG ||
      signo == SIGKILL || signo == SIGSTOP)
    return -1;
  if (signo != 0 && uv__hangman_install((int) signo) != 0)
    return -1;
  return (int) signo;
}


/* With the lock held: the one place the default signal is chosen. */
static int uv__hangman_choose_signal(void) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  if (uv__hangman_signo >= 0)
    return uv__hangman_signo;

  uv__hangman_signo = uv__hangman_signal_from_env();
  if (uv__hangman_signo >= 0)
    return uv__hangman_signo;

  uv__hangman_signo = 0;
#ifdef SIGRTMIN
  int signo;
  for (signo = SIGRTMIN + 6; signo <= SIGRTMAX; signo++) {
    if (0 == uv__hangman_install(signo)) {
      uv__hangman_signo = signo;
      break;
    }
  }
#endif  /* Elsewhere: none unless uv_threadpool_set_interrupt_signal(). */
  return uv__hangman_signo;
}


void uv__hangman_prepare_thread(void) {
  sigset_t set;
  int signo;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  assert(!uv__hangman_held);  /* Between tasks: never held. */
  signo = uv__hangman_choose_signal();
  if (signo == 0 || signo == uv__hangman_unblocked)
    return;
  sigemptyset(&set);
  sigaddset(&set, signo);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  uv__hangman_unblocked = signo;
}


void uv__hangman_set_held_flag(_Atomic int* flag) {
  uv__hangman_held_flag = flag;
}


/* Only the calling thread's mask and thread-locals: no lock. The signal
 * held is the one prepare_thread() unblocked on this thread, which does not
 * change while a task runs (prepare_thread() runs between tasks). */
int uv_threadpool_set_interruptible(int on) {
  _Atomic int* flag;
  sigset_t set;
  int was;

  was = !uv__hangman_held;
  flag = uv__hangman_held_flag;
  if (uv__hangman_unblocked == 0 || flag == NULL || was == (on != 0))
    return was;
  sigemptyset(&set);
  sigaddset(&set, uv__hangman_unblocked);
  /* Held: first blocked, then flagged for the Hangman; let in: the other
   * way round. A signal sent in between stays pending (one instance). */
  if (!on) {
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    atomic_store_explicit(flag, 1, memory_order_relaxed);
  } else {
    atomic_store_explicit(flag, 0, memory_order_relaxed);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  }
  uv__hangman_held = !on;
  return was;
}


/* With the lock held: signals `e` unless its work holds the signal, and
 * says when to do it again. */
static void uv__hangman_kill(struct uv__hangman_entry* e, uint64_t now) {
  int signo;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  signo = uv__hangman_signo;
  /* Not while the work holds the signal: blocked real-time signals queue,
   * one per send, and would use up the user's RLIMIT_SIGPENDING. */
  if (signo > 0 &&
      (e->held == NULL || !atomic_load_explicit(e->held, memory_order_relaxed)))
    pthread_kill(e->thread, signo);
  e->next_signal = now + e->interval;
  e->interval *= 2;
  if (e->interval > UV__HANGMAN_MAX_INTERVAL)
    e->interval = UV__HANGMAN_MAX_INTERVAL;
}


/* UV_THREADPOOL_ABANDONED_LIMIT, if set to a number; the default
 * otherwise. */
static unsigned int uv__hangman_limit_from_env(void) {
  const char* val;
  char* end;
  unsigned long limit;

  val = getenv("UV_THREADPOOL_ABANDONED_LIMIT");
  if (val == NULL || *val < '0' || *val > '9')
    return UV__HANGMAN_DEFAULT_LIMIT;
  errno = 0;
  limit = strtoul(val, &end, 10);
  if (errno != 0 || *end != '\0' || limit > UINT_MAX)
    return UV__HANGMAN_DEFAULT_LIMIT;
  return (unsigned int) limit;
}


void uv__hangman_init_limit(void) {
  unsigned int limit;

  limit = uv__hangman_limit_from_env();
  uv__tpm_lock(&uv__tpm_mutex);
  if (!uv__hangman_limit_set) {
    uv__hangman_limit = limit;
    uv__hangman_limit_set = 1;
  }
  uv__tpm_unlock(&uv__tpm_mutex);
}


int uv__hangman_can_adopt(void) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  return uv__hangman_live_n < uv__hangman_limit;
}


unsigned int uv__hangman_live(void) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  return uv__hangman_live_n;
}


struct uv__hangman_entry* uv__hangman_adopt(const uv_thread_t* tid,
                                            int join,
                                            const _Atomic int* held) {
  struct uv__hangman_entry* e;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  if (join) {
    uv__hangman_total++;
    uv__hangman_live_n++;
  }

  e = uv__malloc(sizeof(*e));
  if (e == NULL) {
    if (join) {
      /* Cannot keep track of it: let it go. */
      uv_thread_detach((uv_thread_t*) tid);
      uv__hangman_live_n--;
    }
    return NULL;
  }

  e->thread = *tid;
  e->held = held;
  e->join = join != 0;
  e->quiet = 0;
  e->returned = 0;
  e->interval = UV__HANGMAN_FIRST_INTERVAL;
  uv__queue_insert_tail(&uv__hangman_list, &e->link);
  uv__hangman_kill(e, uv_hrtime());
  uv__tpm_wake();
  return e;
}


void uv__hangman_release(struct uv__hangman_entry* e, int returned) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  if (e == NULL)
    return;

  e->quiet = 1;
  if (!returned)
    return;

  if (!e->join) {
    uv__queue_remove(&e->link);
    uv__free(e);
    return;
  }

  UV__TPM_ASSERT(!e->returned);
  e->returned = 1;
  uv__tpm_wake();
}


/* With the lock held: signals what is due, moves what returned to
 * `to_join`; returns when it wants to run next. */
static uint64_t uv__hangman_tick(uint64_t now, struct uv__queue* to_join) {
  struct uv__hangman_entry* e;
  struct uv__queue* q;
  uint64_t next;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  next = UV__TPM_NEVER;
  q = uv__queue_next(&uv__hangman_list);
  while (q != &uv__hangman_list) {
    e = uv__queue_data(q, struct uv__hangman_entry, link);
    q = uv__queue_next(q);

    if (e->returned) {
      uv__queue_remove(&e->link);
      uv__queue_insert_tail(to_join, &e->link);
      continue;
    }
    if (e->quiet)
      continue;
    if (now >= e->next_signal)
      uv__hangman_kill(e, now);
    if (e->next_signal < next)
      next = e->next_signal;
  }
  return next;
}


/* Without the lock: the threads are past their work, joining is quick. */
static void uv__hangman_join(struct uv__queue* to_join) {
  struct uv__hangman_entry* e;
  struct uv__queue* q;

  while (!uv__queue_empty(to_join)) {
    q = uv__queue_head(to_join);
    uv__queue_remove(q);
    e = uv__queue_data(q, struct uv__hangman_entry, link);
    if (uv_thread_join(&e->thread))
      abort();
    uv__free(e);
    uv__tpm_lock(&uv__tpm_mutex);
    uv__hangman_live_n--;
    uv__tpm_unlock(&uv__tpm_mutex);
  }
}


/* The Hangman's chore on the timer thread, with the lock held. Joins
 * without it, then asks to run again at once. */
static uint64_t uv__hangman_chore(void) {
  struct uv__queue to_join;
  uint64_t next;

  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  uv__queue_init(&to_join);
  next = uv__hangman_tick(uv_hrtime(), &to_join);
  if (uv__queue_empty(&to_join))
    return next;

  uv__tpm_unlock(&uv__tpm_mutex);
  uv__hangman_join(&to_join);
  uv__tpm_lock(&uv__tpm_mutex);
  return 0;
}


void uv__hangman_stats(uv_threadpool_stats_t* stats) {
  UV__TPM_ASSERT_HELD(&uv__tpm_mutex);
  stats->abandoned = uv__hangman_total;
  stats->abandoned_live = uv__hangman_live_n;
}


static void uv__hangman_atfork_child(void) {
  /* The parent's abandoned threads are not in the child (their memory is
   * leaked), nor is any slot of the forking thread. */
  uv__queue_init(&uv__hangman_list);
  uv__hangman_live_n = 0;
  uv__hangman_held_flag = NULL;
}


static void uv__hangman_init_once(void) {
  static const struct uv__tpm_chore chore = { uv__hangman_chore, NULL };

  uv__tpm_core_init();
  if (pthread_atfork(NULL, NULL, uv__hangman_atfork_child))
    abort();
  uv__tpm_set_chore(UV__TPM_CHORE_HANGMAN, &chore);
}


void uv__hangman_init(void) {
  uv_once(&uv__hangman_once, uv__hangman_init_once);
}


int uv_threadpool_set_abandoned_limit(unsigned int limit) {
  uv__hangman_init();
  uv__tpm_lock(&uv__tpm_mutex);
  uv__hangman_limit = limit;
  uv__hangman_limit_set = 1;
  uv__tpm_unlock(&uv__tpm_mutex);
  return 0;
}


int uv_threadpool_set_interrupt_signal(int signum) {
  int err;

  if (signum < 0 || signum >= NSIG || signum == SIGKILL || signum == SIGSTOP)
    return UV_EINVAL;

  uv__hangman_init();
  uv__tpm_lock(&uv__tpm_mutex);
  err = 0;
  if (signum != 0)
    err = uv__hangman_install(signum);
  if (err == 0) {
    uv__hangman_signo = signum;
    atomic_fetch_add_explicit(&uv__hangman_signal_gen, 1, memory_order_relaxed);
  }
  uv__tpm_unlock(&uv__tpm_mutex);
  return err;
}


int uv_threadpool_get_interrupt_signal(void) {
  int signo;

  uv__hangman_init();
  uv__tpm_lock(&uv__tpm_mutex);
  signo = uv__hangman_choose_signal();
  uv__tpm_unlock(&uv__tpm_mutex);
  return signo;
}
