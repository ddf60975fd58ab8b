// The TimeoutWatchdog (src/node_timeout_watchdog.h) on its own: the loop
// thread of these tests marks callbacks as Node's loop does and the tests
// check when the watchdog reports them.
//
// Timing: a report must never come before the budget has passed (asserted
// exactly); it is due within T + one tick (T/32, 1..10 ms). The asserts allow
// T + kSlackMs because the suite runs on loaded 2-core machines and under
// TSan/ASan; the measured overshoot is printed. A "long callback" here is a
// sleep on the loop thread, which is what it looks like to the watchdog.

#include <dirent.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "node_timeout_watchdog-inl.h"
#include "node_timeout_watchdog.h"

namespace {

using node::TimeoutWatchdog;
using Clock = std::chrono::steady_clock;

constexpr int64_t kSlackMs = 50;

int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                               t)
      .count();
}

void SleepMs(int64_t ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

int TaskCount() {
  int n = 0;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  while (dirent* e = readdir(dir)) n += e->d_name[0] != '.';
  closedir(dir);
  return n;
}

// The threads of the process, once their count has held for 20 ms (at most
// 2 s). A thread that a join has just returned for can still be listed in
// /proc/self/task for a moment (the first count after the settling thread
// below was 2, the next 1, on a loaded machine), so one reading is not
// enough.
int ThreadCount() {
  // Some runtimes (TSan) start a thread of their own with the first thread
  // the process creates: let that happen before counting.
  static const bool settled = [] {
    std::thread([] {}).join();
    return true;
  }();
  (void)settled;
  int n = TaskCount();
  for (int i = 0; i < 100; i++) {
    SleepMs(20);
    const int again = TaskCount();
    if (again == n) break;
    n = again;
  }
  return n;
}

// Records what the watchdog reports.
class Reports {
 public:
  static void OnTimeout(void* data, uint64_t id, uint64_t budget_ms) {
    auto* self = static_cast<Reports*>(data);
    const bool turn = self->watchdog != nullptr &&
                      self->watchdog->reporting_turn();
    std::lock_guard<std::mutex> lock(self->mutex_);
    self->entries_.push_back({id, budget_ms, Clock::now(), turn});
    self->cond_.notify_all();
  }

  struct Entry {
    uint64_t id;
    uint64_t budget_ms;
    Clock::time_point at;
    bool turn;  // TimeoutWatchdog::reporting_turn()
  };

  // The watchdog whose reports these are, to ask reporting_turn().
  TimeoutWatchdog* watchdog = nullptr;

  // Waits for the n-th report (1-based) at most `ms`.
  bool WaitFor(size_t n, int64_t ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cond_.wait_for(lock, std::chrono::milliseconds(ms),
                          [&] { return entries_.size() >= n; });
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

  Entry at(size_t i) {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.at(i);
  }

 private:
  std::mutex mutex_;
  std::condition_variable cond_;
  std::vector<Entry> entries_;
};

class TimeoutWatchdogTest : public ::testing::Test {
 protected:
  TimeoutWatchdogTest() { reports_.watchdog = &watchdog_; }

  Reports reports_;
  TimeoutWatchdog watchdog_{Reports::OnTimeout, &reports_};
};

TEST_F(TimeoutWatchdogTest, NoThreadWithoutABudget) {
  const int before = ThreadCount();
  for (int i = 0; i < 1000; i++) {
    watchdog_.BeginCallback();
    watchdog_.EndCallback();
  }
  watchdog_.SetBudget(0);
  EXPECT_EQ(ThreadCount(), before);
  watchdog_.SetBudget(20);
  EXPECT_EQ(ThreadCount(), before + 1);
  watchdog_.Stop();
  EXPECT_EQ(ThreadCount(), before);
  EXPECT_EQ(reports_.size(), 0u);
}

TEST_F(TimeoutWatchdogTest, ReportsALongCallbackAfterItsBudget) {
  constexpr int64_t kBudget = 100;
  watchdog_.SetBudget(kBudget);
  const auto start = Clock::now();
  const uint32_t id = watchdog_.BeginCallback();
  EXPECT_EQ(id & 1, 1u);
  ASSERT_TRUE(reports_.WaitFor(1, kBudget + 1000));
  const auto report = reports_.at(0);
  watchdog_.EndCallback();
  const int64_t after =
      std::chrono::duration_cast<std::chrono::milliseconds>(report.at - start)
          .count();
  std::printf("reported after %lld ms (budget %lld ms)\n",
              static_cast<long long>(after), static_cast<long long>(kBudget));
  EXPECT_GE(after, kBudget);
  EXPECT_LE(after, kBudget + kSlackMs);
  EXPECT_EQ(report.id, id);
  EXPECT_EQ(report.budget_ms, static_cast<uint64_t>(kBudget));
  EXPECT_EQ(watchdog_.timeouts(), 1u);
}

TEST_F(TimeoutWatchdogTest, ReportsAgainEveryBudgetWhileTheCallbackGoesOn) {
  constexpr int64_t kBudget = 40;
  watchdog_.SetBudget(kBudget);
  const uint32_t id = watchdog_.BeginCallback();
  ASSERT_TRUE(reports_.WaitFor(3, 3 * kBudget + 1000));
  watchdog_.EndCallback();
  for (size_t i = 0; i < 3; i++) EXPECT_EQ(reports_.at(i).id, id);
  for (size_t i = 1; i < 3; i++) {
    // Sampled at least a budget apart; recorded a little after sampling.
    auto gap = std::chrono::duration_cast<std::chrono::microseconds>(
                   reports_.at(i).at - reports_.at(i - 1).at)
                   .count();
    EXPECT_GE(gap, kBudget * 1000 - 1000);
  }
}

TEST_F(TimeoutWatchdogTest, ManyShortCallbacksNeverReport) {
  // The budget is wall time: a loop thread that the OS does not run for a
  // budget looks like a long callback. 100 ms keeps that out of this test
  // on loaded machines and under TSan.
  constexpr int64_t kBudget = 100;
  watchdog_.SetBudget(kBudget);
  // Ten budgets' worth of short callbacks, with and without an end between
  // them (one nextTick callback follows another inside the same scope).
  const auto start = Clock::now();
  uint64_t callbacks = 0;
  while (MsSince(start) < 10 * kBudget) {
    watchdog_.BeginCallback();
    if (callbacks++ % 2) watchdog_.EndCallback();
  }
  watchdog_.EndCallback();
  std::printf("%llu callbacks\n", static_cast<unsigned long long>(callbacks));
  EXPECT_EQ(reports_.size(), 0u);
}

TEST_F(TimeoutWatchdogTest, IdleNeverReports) {
  watchdog_.SetBudget(10);
  watchdog_.BeginCallback();
  watchdog_.EndCallback();
  SleepMs(100);
  EXPECT_EQ(reports_.size(), 0u);
}

TEST_F(TimeoutWatchdogTest, PerCallbackBudgetOverridesTheDefault) {
  // Default off, one callback with a budget of its own: the thread starts.
  const int before = ThreadCount();
  watchdog_.BeginCallback();
  watchdog_.SetCallbackBudget(30);
  EXPECT_EQ(ThreadCount(), before + 1);
  ASSERT_TRUE(reports_.WaitFor(1, 30 + 1000));
  EXPECT_EQ(reports_.at(0).budget_ms, 30u);
  watchdog_.EndCallback();

  // The override lasts for one callback only.
  watchdog_.BeginCallback();
  SleepMs(100);
  watchdog_.EndCallback();
  EXPECT_EQ(reports_.size(), 1u);
}

TEST_F(TimeoutWatchdogTest, CallbackCanOptOut) {
  watchdog_.SetBudget(20);
  watchdog_.BeginCallback();
  watchdog_.SetCallbackBudget(TimeoutWatchdog::kNoBudget);
  SleepMs(150);
  watchdog_.EndCallback();
  EXPECT_EQ(reports_.size(), 0u);
  // The next callback has the default again.
  watchdog_.BeginCallback();
  ASSERT_TRUE(reports_.WaitFor(1, 20 + 1000));
  watchdog_.EndCallback();
}

TEST_F(TimeoutWatchdogTest, BudgetCanBeSetWhileACallbackRuns) {
  watchdog_.SetBudget(20);
  watchdog_.BeginCallback();
  watchdog_.SetBudget(0);
  SleepMs(100);
  EXPECT_EQ(reports_.size(), 0u);
  // Measured from the callback's start, not from SetBudget().
  watchdog_.SetBudget(50);
  ASSERT_TRUE(reports_.WaitFor(1, 1000));
  watchdog_.EndCallback();
}

TEST_F(TimeoutWatchdogTest, WakesFromIdleSleepForTheNextCallback) {
  constexpr int64_t kBudget = 30;
  watchdog_.SetBudget(kBudget);
  watchdog_.BeginCallback();
  watchdog_.EndCallback();
  SleepMs(1300);  // Past the idle time after which the thread sleeps.
  const auto start = Clock::now();
  watchdog_.BeginCallback();
  ASSERT_TRUE(reports_.WaitFor(1, kBudget + 1000));
  watchdog_.EndCallback();
  const int64_t after = std::chrono::duration_cast<std::chrono::milliseconds>(
                            reports_.at(0).at - start)
                            .count();
  std::printf("reported after %lld ms (budget %lld ms)\n",
              static_cast<long long>(after), static_cast<long long>(kBudget));
  EXPECT_GE(after, kBudget);
  EXPECT_LE(after, kBudget + kSlackMs);
}

// Short callbacks that begin and end between two samples keep the thread
// awake: it samples "between callbacks" nearly every time, but the id moved.
// Before, it slept after a second of such samples, and JS, which begins
// callbacks with stores, then had to call into C++ to wake it.
TEST_F(TimeoutWatchdogTest, StaysAwakeWhileShortCallbacksCome) {
  watchdog_.SetBudget(60000);  // Samples every 10 ms.
  const uint32_t* fields = watchdog_.fields();
  const auto start = Clock::now();
  int slept = 0;
  // A callback every 20 ms for 2.5 s: most samples see none running. A
  // sleeping thread is still asleep (kSleeping) right after the next
  // callback's BeginCallback() signals it.
  while (MsSince(start) < 2500) {
    watchdog_.BeginCallback();
    watchdog_.EndCallback();
    slept += __atomic_load_n(&fields[TimeoutWatchdog::kSleeping],
                             __ATOMIC_RELAXED) != 0;
    SleepMs(20);
  }
  EXPECT_EQ(slept, 0);
  EXPECT_EQ(reports_.size(), 0u);
}

TEST_F(TimeoutWatchdogTest, SeesCallbacksMarkedThroughTheSharedFields) {
  // What JS does for each nextTick callback: write the next odd id.
  watchdog_.SetBudget(30);
  watchdog_.BeginCallback();
  uint32_t* fields = watchdog_.fields();
  const uint32_t id = fields[TimeoutWatchdog::kCallbackId] + 2;
  reinterpret_cast<std::atomic<uint32_t>*>(
      &fields[TimeoutWatchdog::kCallbackId])
      ->store(id, std::memory_order_release);
  EXPECT_EQ(watchdog_.callback_id(), id);
  ASSERT_TRUE(reports_.WaitFor(1, 30 + 1000));
  watchdog_.EndCallback();
  EXPECT_EQ(reports_.at(0).id, id);
}

TEST_F(TimeoutWatchdogTest, ProgressCounterSplitsACallback) {
  // V8 counts the promise reactions it runs: each is a callback of its own.
  intptr_t progress = 7;
  watchdog_.SetProgressCounter(&progress);
  watchdog_.SetBudget(30);
  const uint32_t id = watchdog_.BeginCallback();
  EXPECT_EQ(watchdog_.epoch(), uint64_t{7} << 32 | id);
  const auto start = Clock::now();
  while (MsSince(start) < 150) {
    __atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED);
    SleepMs(1);
  }
  EXPECT_EQ(reports_.size(), 0u);
  // One piece that runs long is reported with the epoch it had.
  const uint64_t epoch = watchdog_.epoch();
  ASSERT_TRUE(reports_.WaitFor(1, 30 + 1000));
  watchdog_.EndCallback();
  EXPECT_EQ(reports_.at(0).id, epoch);
}

TEST_F(TimeoutWatchdogTest, ACallbackBegunInsideARunningOneIsTimedAfresh) {
  // What Node does when a callback's own code returns and the loop's
  // bookkeeping goes on inside the same scope (EventLoopTimeout::
  // RestartOutermostCallback(), the JS queues): it begins a new callback.
  // The first one is not reported at its deadline; the new one is, one
  // whole budget after it began, under its own id.
  constexpr int64_t kBudget = 200;
  watchdog_.SetBudget(kBudget);
  const uint32_t first = watchdog_.BeginCallback();
  SleepMs(kBudget * 3 / 4);
  const auto restart = Clock::now();
  const uint32_t second = watchdog_.BeginCallback();
  EXPECT_NE(second, first);
  ASSERT_TRUE(reports_.WaitFor(1, kBudget + 1000));
  const auto report = reports_.at(0);
  watchdog_.EndCallback();
  EXPECT_EQ(report.id, second);
  EXPECT_GE(std::chrono::duration_cast<std::chrono::milliseconds>(report.at -
                                                                  restart)
                .count(),
            kBudget);
}

TEST_F(TimeoutWatchdogTest, ATurnOfShortReactionsIsReportedAsATurn) {
  // An await loop: one callback whose promise reactions (progress) are each
  // short, in one turn that never ends.
  intptr_t progress = 0;
  watchdog_.SetProgressCounter(&progress);
  watchdog_.SetBudget(30);
  watchdog_.SetTurnBudget(60);
  const auto start = Clock::now();
  const uint32_t id = watchdog_.BeginTurn();
  const uint32_t turn = watchdog_.turn();
  while (reports_.size() == 0 && MsSince(start) < 60 + 2000) {
    __atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED);
    SleepMs(1);
  }
  watchdog_.EndCallback();
  ASSERT_GE(reports_.size(), 1u);
  const auto report = reports_.at(0);
  EXPECT_TRUE(report.turn);
  EXPECT_EQ(report.budget_ms, 60u);
  EXPECT_EQ(report.id, uint64_t{turn} << 32 | id);
  const int64_t after = std::chrono::duration_cast<std::chrono::milliseconds>(
                            report.at - start)
                            .count();
  std::printf("turn reported after %lld ms\n", static_cast<long long>(after));
  EXPECT_GE(after, 60);
}

TEST_F(TimeoutWatchdogTest, ShortTurnsNeverReport) {
  constexpr int64_t kTurnBudget = 50;
  watchdog_.SetTurnBudget(kTurnBudget);
  const auto start = Clock::now();
  while (MsSince(start) < 8 * kTurnBudget) {
    watchdog_.BeginTurn();
    for (int i = 0; i < 100; i++) watchdog_.BeginCallback();  // ticks
    watchdog_.EndCallback();
    SleepMs(1);
  }
  EXPECT_EQ(reports_.size(), 0u);
}

TEST_F(TimeoutWatchdogTest, ACallbackWithNoBudgetIsNotCountedInItsTurn) {
  watchdog_.SetTurnBudget(30);
  watchdog_.BeginTurn();
  watchdog_.SetCallbackBudget(TimeoutWatchdog::kNoBudget);
  SleepMs(150);
  EXPECT_EQ(reports_.size(), 0u);
  // The turn's next callback has a budget: the turn is timed from the
  // watchdog's last sample of the one without (at most a tick, 1 ms here,
  // before it ended).
  const auto restart = Clock::now();
  watchdog_.BeginCallback();
  ASSERT_TRUE(reports_.WaitFor(1, 30 + 1000));
  watchdog_.EndCallback();
  EXPECT_TRUE(reports_.at(0).turn);
  EXPECT_GE(std::chrono::duration_cast<std::chrono::milliseconds>(
                reports_.at(0).at - restart)
                .count(),
            30 - 2);
}

TEST_F(TimeoutWatchdogTest, ALongerOwnBudgetIsTheTurnsToo) {
  intptr_t progress = 0;
  watchdog_.SetProgressCounter(&progress);
  watchdog_.SetTurnBudget(30);
  watchdog_.BeginTurn();
  watchdog_.SetCallbackBudget(400);  // runWithEventLoopTimeout(400, ...)
  const auto start = Clock::now();
  while (MsSince(start) < 150) {
    __atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED);
    SleepMs(1);
  }
  watchdog_.EndCallback();
  EXPECT_EQ(reports_.size(), 0u);
}

TEST_F(TimeoutWatchdogTest, NoReportAfterStop) {
  watchdog_.SetBudget(10);
  watchdog_.BeginCallback();
  watchdog_.Stop();
  const size_t n = reports_.size();
  SleepMs(50);
  EXPECT_EQ(reports_.size(), n);
  watchdog_.Stop();  // Idempotent.
  watchdog_.SetBudget(10);  // Does not start the thread again.
  SleepMs(50);
  EXPECT_EQ(reports_.size(), n);
  watchdog_.EndCallback();
}

// For TSan: the loop thread marks callbacks of random length with random
// per-callback budgets while another thread changes the default budget; every
// report names a callback that was running and had a budget.
TEST(TimeoutWatchdogStress, RandomCallbacksAndBudgets) {
  Reports reports;
  TimeoutWatchdog watchdog(Reports::OnTimeout, &reports);
  std::atomic<bool> done{false};
  std::thread changer([&] {
    std::mt19937 rng(1);
    while (!done.load()) {
      watchdog.SetBudget(rng() % 4 == 0 ? 0 : 1 + rng() % 5);
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
    }
  });
  std::mt19937 rng(2);
  const auto start = Clock::now();
  uint64_t callbacks = 0;
  while (MsSince(start) < 1500) {
    watchdog.BeginCallback();
    switch (rng() % 4) {
      case 0:
        watchdog.SetCallbackBudget(1 + rng() % 5);
        break;
      case 1:
        watchdog.SetCallbackBudget(TimeoutWatchdog::kNoBudget);
        break;
    }
    if (rng() % 64 == 0)
      SleepMs(rng() % 12);
    if (rng() % 2) watchdog.EndCallback();
    callbacks++;
  }
  watchdog.EndCallback();
  done = true;
  changer.join();
  watchdog.Stop();
  std::printf("%llu callbacks, %zu reports\n",
              static_cast<unsigned long long>(callbacks), reports.size());
  EXPECT_GT(reports.size(), 0u);
  EXPECT_EQ(reports.size(), watchdog.timeouts());
  for (size_t i = 0; i < reports.size(); i++) {
    EXPECT_EQ(reports.at(i).id & 1, 1u);
    EXPECT_NE(reports.at(i).budget_ms, 0u);
  }
}

TEST(TimeoutWatchdogStress, CreateAndDestroyWhileRunning) {
  const int before = ThreadCount();
  for (int i = 0; i < 500; i++) {
    Reports reports;
    auto watchdog = std::make_unique<TimeoutWatchdog>(Reports::OnTimeout,
                                                      &reports);
    watchdog->SetBudget(1);
    watchdog->BeginCallback();
    if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(i));
    watchdog.reset();
  }
  EXPECT_EQ(ThreadCount(), before);
}

}  // namespace
