#include "node_timeout_watchdog.h"  // NOLINT(build/include_inline)
#include "node_timeout_watchdog-inl.h"
#include "util.h"

#include <algorithm>

#ifdef __linux__
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace node {

namespace {

constexpr uint64_t kNsPerMs = 1000 * 1000;
// Between callbacks for this long, the thread stops sampling.
constexpr uint64_t kIdleBeforeSleepNs = 1000 * kNsPerMs;
// Longest sleep while idle where an exact wake-up cannot be guaranteed (see
// SleepBarrier()).
constexpr uint64_t kBoundedSleepNs = 50 * kNsPerMs;

// The thread decides to sleep by setting kSleeping and then reading the
// callback id once more; the loop thread stores a new id and then reads
// kSleeping, both with plain accesses, so that BeginCallback() stays a store
// and a load. On their own these can pass each other (a store may be ordered
// after a later load), and a callback could start unseen. A process-wide
// membarrier on the sleeping side orders the loop thread's accesses without
// a fence on its fast path. Where it is not available, the thread only
// sleeps for kBoundedSleepNs at a time, so a missed wake-up costs at most
// that much delay.
bool SleepBarrier() {
#if defined(__linux__) && defined(__NR_membarrier)
  static const bool registered =
      syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) ==
      0;
  return registered &&
         syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) == 0;
#else
  return false;
#endif
}

}  // namespace

TimeoutWatchdog::TimeoutWatchdog(TimeoutCallback callback, void* data)
    : callback_(callback), data_(data) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                    std::atomic<uint32_t>::is_always_lock_free,
                "fields() must be usable as a Uint32Array");
  CHECK_NOT_NULL(callback);
  for (auto& field : fields_) field.store(0, std::memory_order_relaxed);
  CHECK_EQ(uv_mutex_init(&mutex_), 0);
  CHECK_EQ(uv_cond_init(&cond_), 0);
}

TimeoutWatchdog::~TimeoutWatchdog() {
  Stop();
  uv_cond_destroy(&cond_);
  uv_mutex_destroy(&mutex_);
}

void TimeoutWatchdog::SetProgressCounter(const intptr_t* counter) {
  CHECK(!started_.load(std::memory_order_relaxed));
  progress_ = counter;
}

uint32_t* TimeoutWatchdog::fields() {
  return reinterpret_cast<uint32_t*>(fields_);
}

void TimeoutWatchdog::SetBudget(uint64_t budget_ms) {
  budget_ms_.store(budget_ms, std::memory_order_relaxed);
  if (budget_ms != 0)
    Start();
  else
    WakeIfSleeping();
}

void TimeoutWatchdog::SetTurnBudget(uint64_t budget_ms) {
  turn_budget_ms_.store(budget_ms, std::memory_order_relaxed);
  if (budget_ms != 0)
    Start();
  else
    WakeIfSleeping();
}

void TimeoutWatchdog::Start() {
  uv_mutex_lock(&mutex_);
  if (!started_.load(std::memory_order_relaxed) && !stopping_) {
    CHECK_EQ(uv_thread_create(&thread_, ThreadMain, this), 0);
    started_.store(true, std::memory_order_relaxed);
  }
  uv_cond_signal(&cond_);
  uv_mutex_unlock(&mutex_);
}

void TimeoutWatchdog::Stop() {
  uv_mutex_lock(&mutex_);
  bool join = started_.load(std::memory_order_relaxed) && !stopping_;
  stopping_ = true;
  uv_cond_signal(&cond_);
  uv_mutex_unlock(&mutex_);
  if (join) CHECK_EQ(uv_thread_join(&thread_), 0);
}

void TimeoutWatchdog::WakeIfSleeping() {
  uv_mutex_lock(&mutex_);
  if (fields_[kSleeping].load(std::memory_order_relaxed))
    uv_cond_signal(&cond_);
  uv_mutex_unlock(&mutex_);
}

uint64_t TimeoutWatchdog::TickNs(uint64_t budget_ms) const {
  return std::clamp<uint64_t>(budget_ms * kNsPerMs / 32, 1 * kNsPerMs,
                              10 * kNsPerMs);
}

// With mutex_ held, on the watchdog's thread; releases it for the call.
void TimeoutWatchdog::Report(uint64_t id,
                             uint64_t budget,
                             bool turn,
                             uint64_t since) {
  timeouts_.fetch_add(1, std::memory_order_relaxed);
  reporting_turn_ = turn;
  reporting_since_ = since;
  uv_mutex_unlock(&mutex_);
  callback_(data_, id, budget);
  uv_mutex_lock(&mutex_);
  reporting_turn_ = false;
}

void TimeoutWatchdog::ThreadMain(void* arg) {
  static_cast<TimeoutWatchdog*>(arg)->Run();
}

void TimeoutWatchdog::Run() {
  uint64_t seen_id = 0;    // the epoch sampled last
  uint64_t seen_at = 0;    // when it was first seen running, or last reported
  uint64_t seen_first = 0;  // when it was first seen running
  uint32_t seen_turn = 0;  // the turn sampled last
  uint64_t idle_since = uv_hrtime();
  uint64_t turn_at = idle_since;  // when it was first seen, or last reported
  uint64_t turn_first = idle_since;  // when it was first seen

  uv_mutex_lock(&mutex_);
  while (!stopping_) {
    const uint64_t now = uv_hrtime();
    const uint32_t callback =
        fields_[kCallbackId].load(std::memory_order_acquire);
    const bool running = callback & 1;
    const uint64_t id = progress() << 32 | callback;
    const uint32_t turn = turn_.load(std::memory_order_relaxed);
    uint64_t budget = 0;
    uint64_t turn_budget = 0;

    if (running) {
      idle_since = now;
      uint32_t own = fields_[kCallbackBudget].load(std::memory_order_relaxed);
      budget = own == kUseDefaultBudget ? budget_ms_.load(
                                              std::memory_order_relaxed)
               : own == kNoBudget       ? 0
                                        : own;
      const uint64_t turn_ms =
          turn_budget_ms_.load(std::memory_order_relaxed);
      if (own != kNoBudget && turn_ms != 0)
        turn_budget = std::max(turn_ms, budget);
      if (id != seen_id) {
        seen_id = id;
        seen_at = seen_first = now;
      } else if (budget != 0 && now - seen_at >= budget * kNsPerMs) {
        seen_at = now;  // Reported again one budget later if it goes on.
        turn_at = now;  // Not followed by a turn report a tick later.
        Report(id, budget, false, seen_first);
        continue;
      }
      if (turn != seen_turn || turn_budget == 0) {
        // A new turn, or a callback without a budget: not counted.
        seen_turn = turn;
        turn_at = turn_first = now;
      } else if (now - turn_at >= turn_budget * kNsPerMs) {
        turn_at = now;  // Reported again one turn budget later.
        seen_at = now;
        Report(static_cast<uint64_t>(turn) << 32 | callback, turn_budget,
               true, turn_first);
        continue;
      }
    } else {
      // Callbacks that began and ended between two samples count as
      // activity too: a chain of short ones is seen between callbacks at
      // almost every sample (under valgrind, which runs one thread at a
      // time, the loop thread yields mostly in epoll_wait()), and a watchdog
      // that slept through it would be woken by JS at every second's
      // callback (a call that deoptimized the queue that made it).
      if (id != seen_id) idle_since = now;
      seen_id = id;
      seen_turn = turn;
      turn_at = turn_first = now;
    }

    if (budget != 0 || turn_budget != 0) {
      uv_cond_timedwait(&cond_, &mutex_,
                        TickNs(budget != 0 ? budget : turn_budget));
      continue;
    }
    if ((budget_ms_.load(std::memory_order_relaxed) == 0 &&
         turn_budget_ms_.load(std::memory_order_relaxed) == 0) ||
        (!running && now - idle_since >= kIdleBeforeSleepNs)) {
      // Nothing to time until the loop thread begins a callback (in C++, or
      // in JS, which wakes us when it sees kSleeping), sets a callback's
      // budget or a budget is set.
      fields_[kSleeping].store(1, std::memory_order_seq_cst);
      bool exact = SleepBarrier();
      if (fields_[kCallbackId].load(std::memory_order_seq_cst) == callback &&
          !stopping_) {
        if (exact)
          uv_cond_wait(&cond_, &mutex_);
        else
          uv_cond_timedwait(&cond_, &mutex_, kBoundedSleepNs);
      }
      fields_[kSleeping].store(0, std::memory_order_relaxed);
      // Woken for a callback about to begin: sample a while before sleeping
      // again, or one that JS begins right after the wake-up is missed. The
      // turn is timed from now: the time asleep is not its.
      idle_since = uv_hrtime();
      turn_at = turn_first = idle_since;
      continue;
    }
    const uint64_t default_ms = budget_ms_.load(std::memory_order_relaxed);
    uv_cond_timedwait(
        &cond_, &mutex_,
        TickNs(default_ms != 0
                   ? default_ms
                   : turn_budget_ms_.load(std::memory_order_relaxed)));
  }
  uv_mutex_unlock(&mutex_);
}

}  // namespace node
