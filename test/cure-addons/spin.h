#ifndef NODECURE_TEST_ADDONS_SPIN_H_
#define NODECURE_TEST_ADDONS_SPIN_H_

#include <stdint.h>
#include <time.h>

/* Keeps the calling thread busy for `ms` milliseconds of CLOCK_MONOTONIC.
 * A loop on the clock rather than a sleep: a signal (the threadpool's EINTR
 * for blocking syscalls) cannot shorten it, and there is no cancellation
 * point in it, so work that uses it really runs past its budget. */
static inline uint64_t spin_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static inline void spin_ms(uint32_t ms) {
  uint64_t end = spin_now_ns() + (uint64_t) ms * 1000000u;
  while (spin_now_ns() < end) {
  }
}

#endif  /* NODECURE_TEST_ADDONS_SPIN_H_ */
