// nodecure's timeout-aware threadpool at the libuv level (uv/timeout.h):
// the Manager (budgets, UV_ETIMEDOUT, replacement workers, the extension
// callback, the completed/timed-out race), the Hangman (EINTR, reaping, the
// cap), the Priority Executor and the slow-resource list.
//
// Timing: the contract is UV_ETIMEDOUT within T+5ms of a task's start. The
// asserts allow T+kSlackMs (50 ms) because the suite runs on loaded 2-core
// machines and under TSan/ASan; the measured overshoot is printed. Nothing
// waits by sleeping, except for the Hangman's reaping, which has no event
// and is polled with a deadline.

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "uv.h"
#include "uv/timeout.h"
#include "support/uv_loop_helpers.h"

namespace {

using uv_test::AwaitReaped;
using uv_test::FsReq;
using uv_test::kNsPerMs;
using uv_test::RunUntil;
using uv_test::Stats;

constexpr uint64_t kSlackMs = 50;

int EnvInt(const char* name, int fallback) {
  const char* v = getenv(name);
  return v != nullptr && atoi(v) > 0 ? atoi(v) : fallback;
}

int PoolSize() {
  int n = EnvInt("UV_THREADPOOL_SIZE", 4);
  return n > 1024 ? 1024 : n;
}

int CountThreads() {
  FILE* f = fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  int n = -1;
  while (fgets(line, sizeof(line), f) != nullptr)
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  fclose(f);
  return n;
}

int CountFds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (readdir(d) != nullptr) n++;
  closedir(d);
  return n - 3;  // ".", ".." and the directory's own fd
}


// Work that waits here does not poll and cannot be interrupted: only
// Open() lets it return.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_++;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
  }
  bool AwaitArrivals(int n, int timeout_ms = 10000) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                        [&] { return arrived_ >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  bool open_ = false;
};

// n threads meet here; false if they did not all arrive in time.
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  bool Arrive(int timeout_ms = 10000) {
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_++;
    cv_.notify_all();
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                        [&] { return arrived_ >= n_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  const int n_;
  int arrived_ = 0;
};

struct Task {
  uv_work_t req;
  std::function<void(Task*)> work;           // on the pool
  std::function<void(Task*)> on_done;        // on the loop
  uint64_t submitted_ns = 0;                 // before the manager's start
  std::atomic<uint64_t> started_ns{0};       // after it
  std::atomic<bool> returned{false};
  std::atomic<int> committed{-1};
  std::atomic<int> timedout_calls{0};
  std::atomic<int> saved_errno{0};
  uint64_t extension_ms = 0;                 // returned by the callback
  int done_calls = 0;                        // loop thread only, below
  int status = 1;
  uint64_t done_ns = 0;
  int reclaims = 0;
  bool reclaim_after_done = true;
};

void TaskWork(uv_work_t* req) {
  Task* t = static_cast<Task*>(req->data);
  t->started_ns = uv_hrtime();
  if (t->work) t->work(t);
  t->returned = true;
}

void TaskReclaim(void* arg) {
  Task* t = static_cast<Task*>(arg);
  if (t->done_calls != 1) t->reclaim_after_done = false;
  // A request failed by a stalled pool never ran.
  EXPECT_TRUE(t->returned.load() || t->status == UV_EPOOLSTALLED);
  t->reclaims++;
}

void TaskDone(uv_work_t* req, int status) {
  Task* t = static_cast<Task*>(req->data);
  t->done_calls++;
  t->status = status;
  t->done_ns = uv_hrtime();
  if (status == UV_ETIMEDOUT || status == UV_EABANDONCAP ||
      status == UV_EPOOLSTALLED)
    EXPECT_EQ(0, uv_threadpool_on_reclaim(TaskReclaim, t));
  if (t->on_done) t->on_done(t);
}

uint64_t TaskTimedOut(uv_work_t* req, uint64_t elapsed_ms) {
  Task* t = static_cast<Task*>(req->data);
  t->timedout_calls++;
  return t->extension_ms;
}

int QueueTimed(uv_loop_t* loop,
               Task* t,
               uint64_t timeout_ms,
               uv_work_timedout_cb cb = nullptr) {
  t->req.data = t;
  t->submitted_ns = uv_hrtime();
  return uv_queue_work_timed(loop, &t->req, TaskWork, TaskDone, timeout_ms,
                             cb);
}

int Queue(uv_loop_t* loop, Task* t) {
  t->req.data = t;
  t->submitted_ns = uv_hrtime();
  return uv_queue_work(loop, &t->req, TaskWork, TaskDone);
}

// Cooperative work: runs until it is told to stop.
void UntilStopped(Task* t) {
  while (!uv_work_should_stop(&t->req))
    std::this_thread::sleep_for(std::chrono::microseconds(200));
}

void Spin(uint64_t ns) {
  uint64_t end = uv_hrtime() + ns;
  while (uv_hrtime() < end) {
  }
}

class ThreadpoolTimeoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(0, uv_threadpool_set_timeout(0));
    uv_threadpool_set_thread_timeout(UV_THREADPOOL_TIMEOUT_DEFAULT);
    uv_threadpool_set_abandoned_limit(64);
    ASSERT_TRUE(AwaitReaped());
    ASSERT_EQ(0, uv_loop_init(&loop_));
  }
  void TearDown() override {
    uv_threadpool_set_timeout(0);
    uv_threadpool_set_thread_timeout(UV_THREADPOOL_TIMEOUT_DEFAULT);
    uv_threadpool_set_abandoned_limit(64);
    uv_fs_slow_resource_clear();
    ASSERT_EQ(0, uv_run(&loop_, UV_RUN_DEFAULT));
    ASSERT_EQ(0, uv_loop_close(&loop_));
    EXPECT_TRUE(AwaitReaped());
  }

  // n tasks rendezvous: true if the pool ran all of them at once.
  bool PoolRunsAtOnce(int n) {
    Barrier barrier(n);
    std::atomic<int> met{0};
    auto tasks = std::make_unique<Task[]>(n);
    for (int i = 0; i < n; i++) {
      tasks[i].work = [&](Task*) {
        if (barrier.Arrive()) met++;
      };
      if (Queue(&loop_, &tasks[i]) != 0) return false;
    }
    bool done = RunUntil(&loop_, [&] {
      for (int i = 0; i < n; i++)
        if (tasks[i].done_calls != 1) return false;
      return true;
    });
    return done && met == n;
  }

  uv_loop_t loop_;
};

TEST_F(ThreadpoolTimeoutTest, TaskPastBudgetGetsETIMEDOUTOnTime) {
  constexpr uint64_t kBudgetMs = 100;
  Task t;
  t.work = UntilStopped;
  ASSERT_EQ(0, QueueTimed(&loop_, &t, kBudgetMs));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.reclaims == 1; }));
  EXPECT_EQ(1, t.done_calls);
  EXPECT_EQ(UV_ETIMEDOUT, t.status);
  EXPECT_TRUE(t.reclaim_after_done);
  // The budget runs from the manager's start, which lies between the
  // submission and the first line of the work: bound it from both sides.
  double at_least_ms = (t.done_ns - t.submitted_ns) / 1e6;
  double at_most_ms = (t.done_ns - t.started_ns) / 1e6;
  printf("  budget %llu ms, UV_ETIMEDOUT after %.2f ms of work "
         "(%.2f ms after submission)\n",
         static_cast<unsigned long long>(kBudgetMs), at_most_ms, at_least_ms);
  EXPECT_GE(at_least_ms, static_cast<double>(kBudgetMs));
  EXPECT_LE(at_most_ms, static_cast<double>(kBudgetMs + kSlackMs));
}

TEST_F(ThreadpoolTimeoutTest, PoolKeepsFullStrengthAfterATimeout) {
  const uint64_t abandoned = Stats().abandoned;
  Gate gate;
  Task stuck;
  stuck.work = [&](Task*) { gate.Wait(); };  // ignores every hint
  ASSERT_EQ(0, QueueTimed(&loop_, &stuck, 50));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return stuck.done_calls == 1; }));
  EXPECT_EQ(UV_ETIMEDOUT, stuck.status);
  EXPECT_EQ(abandoned + 1, Stats().abandoned);

  // Right away, while the abandoned thread is still stuck: N tasks at once.
  EXPECT_TRUE(PoolRunsAtOnce(PoolSize()));

  gate.Open();
  ASSERT_TRUE(RunUntil(&loop_, [&] { return stuck.reclaims == 1; }));
  EXPECT_TRUE(AwaitReaped());
}

TEST_F(ThreadpoolTimeoutTest, BlockedPipeReadIsInterrupted) {
  int fds[2];
  ASSERT_EQ(0, pipe(fds));
  Task t;
  t.work = [&](Task* self) {
    char c;
    if (read(fds[0], &c, 1) < 0) self->saved_errno = errno;
  };
  ASSERT_EQ(0, QueueTimed(&loop_, &t, 30));
  // Nobody writes: only the Hangman's signal can make read() return.
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.reclaims == 1; }));
  EXPECT_EQ(UV_ETIMEDOUT, t.status);
  EXPECT_EQ(EINTR, t.saved_errno.load());
  close(fds[0]);
  close(fds[1]);
}

TEST_F(ThreadpoolTimeoutTest, PoisonedTasksLeaveBoundedThreadsAndNoFds) {
  const int n = EnvInt("UV_TEST_POISONED_TASKS", 10000);
  const unsigned int kLimit = 64;
  uv_threadpool_set_abandoned_limit(kLimit);

  {  // Warm up: the watchdog thread exists from here on.
    Task t;
    t.work = UntilStopped;
    ASSERT_EQ(0, QueueTimed(&loop_, &t, 1));
    ASSERT_TRUE(RunUntil(&loop_, [&] { return t.reclaims == 1; }));
    ASSERT_TRUE(AwaitReaped());
  }
  const int fds_before = CountFds();
  const int threads_before = CountThreads();

  int fds[2];
  ASSERT_EQ(0, pipe(fds));
  int max_threads = threads_before;
  uint64_t max_live = 0;
  int timed_out = 0;
  int capped = 0;
  int stalled = 0;
  int reclaims = 0;
  auto tasks = std::make_unique<Task[]>(n);
  for (int i = 0; i < n; i++) {
    Task* t = &tasks[i];
    if (i % 2 == 0) {
      t->work = [&](Task*) {  // blocks until interrupted
        char c;
        while (read(fds[0], &c, 1) < 0 && errno != EINTR) {
        }
      };
    } else {
      t->work = UntilStopped;
    }
    t->on_done = [&, i](Task* self) {
      if (self->status == UV_ETIMEDOUT) timed_out++;
      if (self->status == UV_EABANDONCAP) capped++;
      // Four capped tasks late in returning stall the pool for a moment.
      if (self->status == UV_EPOOLSTALLED) stalled++;
      if (i % 64 == 0) {
        max_threads = std::max(max_threads, CountThreads());
        max_live = std::max(max_live, Stats().abandoned_live);
      }
    };
    ASSERT_EQ(0, QueueTimed(&loop_, t, 1));
  }

  EXPECT_TRUE(RunUntil(
      &loop_,
      [&] {
        for (reclaims = 0; reclaims < n; reclaims++)
          if (tasks[reclaims].reclaims != 1) return false;
        return true;
      },
      600000));
  EXPECT_EQ(n, reclaims);
  EXPECT_EQ(n, timed_out + capped + stalled);
  close(fds[0]);
  close(fds[1]);
  ASSERT_TRUE(AwaitReaped());

  printf("  %d poisoned tasks: %d timed out, %d capped, %d stalled; at most "
         "%d threads (%d before), %llu abandoned alive\n",
         n, timed_out, capped, stalled, max_threads, threads_before,
         static_cast<unsigned long long>(max_live));
  EXPECT_LE(max_live, kLimit);
  EXPECT_LE(max_threads, threads_before + static_cast<int>(kLimit) + 2);
  EXPECT_EQ(threads_before, CountThreads());
  EXPECT_EQ(fds_before, CountFds());
}

TEST_F(ThreadpoolTimeoutTest, CompletedVersusTimedOutRace) {
  // Budget == duration: both outcomes happen; whichever wins, the done
  // callback runs once, a task that timed out cannot commit its results and
  // is reclaimed once, a completed one committed and is never reclaimed.
  const int n = EnvInt("UV_TEST_RACE_TASKS", 2000);
  auto tasks = std::make_unique<Task[]>(n);
  for (int i = 0; i < n; i++) {
    Task* t = &tasks[i];
    t->work = [](Task* self) {
      Spin(1 * kNsPerMs);
      self->committed = uv_threadpool_commit();
    };
    uv_work_timedout_cb cb = nullptr;
    if (i % 3 == 1) cb = TaskTimedOut;  // decides "no extension"
    if (i % 3 == 2) {
      cb = TaskTimedOut;
      t->extension_ms = 1;  // one more millisecond, every time
    }
    ASSERT_EQ(0, QueueTimed(&loop_, t, 1, cb));
  }

  ASSERT_TRUE(RunUntil(
      &loop_,
      [&] {
        for (int i = 0; i < n; i++) {
          if (tasks[i].done_calls == 0) return false;
          if (tasks[i].status != 0 && tasks[i].reclaims == 0) return false;
        }
        return true;
      },
      600000));

  int completed = 0;
  int timed_out = 0;
  for (int i = 0; i < n; i++) {
    Task& t = tasks[i];
    ASSERT_EQ(1, t.done_calls) << i;
    if (t.status == 0) {
      completed++;
      EXPECT_EQ(1, t.committed.load()) << i;
      EXPECT_EQ(0, t.reclaims) << i;
    } else {
      timed_out++;
      EXPECT_EQ(UV_ETIMEDOUT, t.status) << i;
      EXPECT_EQ(0, t.committed.load()) << i;
      EXPECT_EQ(1, t.reclaims) << i;
      EXPECT_TRUE(t.reclaim_after_done) << i;
    }
  }
  printf("  %d racing tasks: %d completed, %d timed out\n", n, completed,
         timed_out);
}

TEST_F(ThreadpoolTimeoutTest, ShortTasksCompleteOnceWithoutTimingOut) {
  // The path every task takes that ends within its budget: no lock, a swap
  // of its slot's word. Many at once, half of them committing.
  const int n = EnvInt("UV_TEST_SHORT_TASKS", 20000);
  const uv_threadpool_stats_t before = Stats();
  auto tasks = std::make_unique<Task[]>(n);
  for (int i = 0; i < n; i++) {
    if (i % 2 == 0)
      tasks[i].work = [](Task* self) {
        self->committed = uv_threadpool_commit();
      };
    ASSERT_EQ(0, QueueTimed(&loop_, &tasks[i], 10000));
  }
  ASSERT_TRUE(RunUntil(
      &loop_,
      [&] {
        for (int i = 0; i < n; i++)
          if (tasks[i].done_calls == 0) return false;
        return true;
      },
      120000));
  for (int i = 0; i < n; i++) {
    ASSERT_EQ(1, tasks[i].done_calls) << i;
    ASSERT_EQ(0, tasks[i].status) << i;
    ASSERT_EQ(i % 2 == 0 ? 1 : -1, tasks[i].committed.load()) << i;
  }
  EXPECT_EQ(before.timed_out, Stats().timed_out);
}

// Keeps a few timed tasks of 0.2 ms in flight from the loop.
struct TaskStream {
  static constexpr int kSize = 20000;
  static constexpr int kInFlight = 4;
  std::unique_ptr<Task[]> tasks = std::make_unique<Task[]>(kSize);
  uint64_t budget_ms;
  int queued = 0;
  int pending = 0;
  uv_idle_t idle;

  void Start(uv_loop_t* loop, uint64_t ms) {
    budget_ms = ms;
    idle.data = this;
    uv_idle_init(loop, &idle);
    uv_idle_start(&idle, [](uv_idle_t* h) {
      static_cast<TaskStream*>(h->data)->Feed(h->loop);
    });
  }
  void Feed(uv_loop_t* loop) {
    while (queued < kSize && pending < kInFlight) {
      Task* t = &tasks[queued++];
      t->work = [](Task*) { Spin(kNsPerMs / 5); };
      t->on_done = [this](Task*) { pending--; };
      pending++;
      ASSERT_EQ(0, QueueTimed(loop, t, budget_ms));
    }
  }
  void Stop() {
    uv_idle_stop(&idle);
    uv_close(reinterpret_cast<uv_handle_t*>(&idle), nullptr);
  }
};

TEST_F(ThreadpoolTimeoutTest, PoisonedTaskAmongShortOnesIsTimedOnTime) {
  // While tasks keep starting, the watchdog wakes once per smallest budget it
  // saw rather than once per task. A task due before that wake-up must wake
  // it (a shorter budget than the others'), and one due after it must be
  // seen then and timed to its own deadline (the same budget).
  constexpr uint64_t kBudgetMs = 100;
  for (uint64_t stream_ms : {uint64_t{10000}, kBudgetMs}) {
    TaskStream stream;
    stream.Start(&loop_, stream_ms);
    ASSERT_FALSE(RunUntil(&loop_, [] { return false; }, 50));
    Task poisoned;
    poisoned.work = UntilStopped;
    ASSERT_EQ(0, QueueTimed(&loop_, &poisoned, kBudgetMs));
    ASSERT_TRUE(RunUntil(&loop_, [&] { return poisoned.done_calls == 1; }));
    // Still streaming when the timeout came.
    EXPECT_LT(stream.queued, TaskStream::kSize);
    stream.Stop();
    ASSERT_TRUE(RunUntil(&loop_, [&] {
      return stream.pending == 0 && poisoned.reclaims == 1;
    }));
    EXPECT_EQ(UV_ETIMEDOUT, poisoned.status);
    const double at_most_ms = (poisoned.done_ns - poisoned.started_ns) / 1e6;
    printf("  among tasks of %llu ms budgets, %d of them: UV_ETIMEDOUT after "
           "%.2f ms of work (budget %llu ms)\n",
           static_cast<unsigned long long>(stream_ms), stream.queued,
           at_most_ms, static_cast<unsigned long long>(kBudgetMs));
    EXPECT_GE((poisoned.done_ns - poisoned.submitted_ns) / 1e6,
              static_cast<double>(kBudgetMs));
    EXPECT_LE(at_most_ms, static_cast<double>(kBudgetMs + kSlackMs));
    for (int i = 0; i < stream.queued; i++)
      ASSERT_EQ(0, stream.tasks[i].status) << i;
  }
}

TEST_F(ThreadpoolTimeoutTest, ExtensionCallbackCanGrantMoreTime) {
  const uv_threadpool_stats_t before = Stats();
  Task t;
  t.extension_ms = 500;  // granted once, then the task finishes
  t.work = [](Task*) { Spin(80 * kNsPerMs); };
  ASSERT_EQ(0, QueueTimed(&loop_, &t, 40, TaskTimedOut));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.done_calls == 1; }));
  EXPECT_EQ(0, t.status);
  EXPECT_EQ(1, t.timedout_calls.load());
  const uv_threadpool_stats_t after = Stats();
  EXPECT_EQ(before.extended + 1, after.extended);
  EXPECT_EQ(before.timed_out, after.timed_out);
}

TEST_F(ThreadpoolTimeoutTest, ExtensionCallbackCanRefuse) {
  Task t;
  t.extension_ms = 0;
  t.work = UntilStopped;
  ASSERT_EQ(0, QueueTimed(&loop_, &t, 40, TaskTimedOut));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.reclaims == 1; }));
  EXPECT_EQ(UV_ETIMEDOUT, t.status);
  EXPECT_EQ(1, t.timedout_calls.load());
  EXPECT_GE(t.done_ns - t.submitted_ns, 40 * kNsPerMs);
}

TEST_F(ThreadpoolTimeoutTest, PlainQueueWorkIsNeverTimed) {
  // Upstream's contract for code that does not know about timeouts (an
  // addon that frees its baton in after_work_cb): a pool default, even with
  // the submitting thread opted in, never reaches plain uv_queue_work().
  ASSERT_EQ(0, uv_threadpool_set_timeout(20));
  const uv_threadpool_stats_t before = Stats();
  Task plain;
  plain.work = [](Task* self) {
    Spin(80 * kNsPerMs);
    self->committed = uv_threadpool_should_stop() ? -2 : 1;
  };
  ASSERT_EQ(0, Queue(&loop_, &plain));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return plain.done_calls == 1; }));
  EXPECT_EQ(0, plain.status);
  EXPECT_EQ(1, plain.committed.load());  // never told to stop
  EXPECT_EQ(0, plain.reclaims);
  EXPECT_EQ(before.timed_out, Stats().timed_out);
}

TEST_F(ThreadpoolTimeoutTest, PoolDefaultReachesOnlyWhoAsks) {
  ASSERT_EQ(0, uv_threadpool_set_timeout(30));
  EXPECT_EQ(30u, uv_threadpool_get_timeout());
  // uv_queue_work_timed() with the default takes the pool's budget ...
  Task a;
  a.work = UntilStopped;
  ASSERT_EQ(0, QueueTimed(&loop_, &a, UV_THREADPOOL_TIMEOUT_DEFAULT));
  // ... and a request can opt out of any budget.
  Task c;
  c.work = [](Task*) { Spin(60 * kNsPerMs); };
  ASSERT_EQ(0, QueueTimed(&loop_, &c, 0));
  ASSERT_TRUE(RunUntil(&loop_, [&] {
    return a.reclaims == 1 && c.done_calls == 1;
  }));
  EXPECT_EQ(UV_ETIMEDOUT, a.status);
  EXPECT_EQ(0, c.status);
  // Every thread starts without a budget for its fs and DNS requests.
  uint64_t fresh = 1;
  std::thread([&] { fresh = uv_threadpool_set_thread_timeout(0); }).join();
  EXPECT_EQ(0u, fresh);
}

TEST_F(ThreadpoolTimeoutTest, StoppedTaskIsDeliveredAfterItReturned) {
  // Work that stops when told owns nothing once its callback runs: the
  // timeout is delivered after the work returned, and reclaimed at once.
  const uv_threadpool_stats_t before = Stats();
  Task t;
  t.work = UntilStopped;
  bool returned_at_done = false;
  int stopped = -1;
  t.on_done = [&](Task* self) {
    returned_at_done = self->returned.load();
    stopped = uv_threadpool_work_stopped();
  };
  ASSERT_EQ(0, QueueTimed(&loop_, &t, 30));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.reclaims == 1; }));
  EXPECT_EQ(UV_ETIMEDOUT, t.status);
  EXPECT_TRUE(returned_at_done);
  EXPECT_EQ(1, stopped);  // nothing of it takes effect any more
  EXPECT_EQ(before.stopped + 1, Stats().stopped);
}

TEST_F(ThreadpoolTimeoutTest, CommitInTheGracePeriodCompletesNormally) {
  // Told to stop, the work still got its result and commits before the loop
  // was told: the request completes normally, as if it had not timed out.
  const uv_threadpool_stats_t before = Stats();
  Task t;
  t.work = [](Task* self) {
    UntilStopped(self);
    self->committed = uv_threadpool_commit();
  };
  ASSERT_EQ(0, QueueTimed(&loop_, &t, 30));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.done_calls == 1; }));
  EXPECT_EQ(0, t.status);
  EXPECT_EQ(1, t.committed.load());
  EXPECT_EQ(0, t.reclaims);
  EXPECT_EQ(before.completed_late + 1, Stats().completed_late);
}

TEST_F(ThreadpoolTimeoutTest, WorkThatDoesNotStopIsAbandonedAfterTheGrace) {
  // A wait that neither the stop flag nor EINTR ends: the callback gets the
  // timeout while the work runs (the grace period is over), the reclaim
  // comes when it returns, and a commit then fails.
  Gate gate;
  Task t;
  t.work = [&](Task* self) {
    gate.Wait();
    self->committed = uv_threadpool_commit();
  };
  bool returned_at_done = true;
  int stopped = -1;
  t.on_done = [&](Task* self) {
    returned_at_done = self->returned.load();
    stopped = uv_threadpool_work_stopped();
  };
  ASSERT_EQ(0, QueueTimed(&loop_, &t, 30));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.done_calls == 1; }));
  EXPECT_EQ(UV_ETIMEDOUT, t.status);
  EXPECT_FALSE(returned_at_done);
  EXPECT_EQ(0, stopped);  // it may still take effect
  EXPECT_EQ(0, t.reclaims);
  gate.Open();
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.reclaims == 1; }));
  EXPECT_EQ(0, t.committed.load());
}

TEST_F(ThreadpoolTimeoutTest, QueuedTimedTaskCanBeCancelled) {
  const int n = PoolSize();
  Gate gate;
  auto busy = std::make_unique<Task[]>(n);
  for (int i = 0; i < n; i++) {
    busy[i].work = [&](Task*) { gate.Wait(); };
    ASSERT_EQ(0, Queue(&loop_, &busy[i]));
  }
  ASSERT_TRUE(gate.AwaitArrivals(n));
  Task queued;
  ASSERT_EQ(0, QueueTimed(&loop_, &queued, 10000));
  EXPECT_EQ(0, uv_cancel(reinterpret_cast<uv_req_t*>(&queued.req)));
  gate.Open();
  ASSERT_TRUE(RunUntil(&loop_, [&] {
    for (int i = 0; i < n; i++)
      if (busy[i].done_calls != 1) return false;
    return queued.done_calls == 1;
  }));
  EXPECT_EQ(UV_ECANCELED, queued.status);
  EXPECT_FALSE(queued.returned.load());
}

TEST_F(ThreadpoolTimeoutTest, FeatureOffBehavesLikeUpstream) {
  const uv_threadpool_stats_t before = Stats();
  ASSERT_EQ(0u, uv_threadpool_get_timeout());
  // A task far longer than any budget used elsewhere completes normally.
  Task slow;
  slow.work = [](Task*) { Spin(60 * kNsPerMs); };
  ASSERT_EQ(0, Queue(&loop_, &slow));
  // Nothing tells it to stop, and commit is a no-op.
  Task probe;
  probe.work = [](Task* self) {
    self->committed = uv_threadpool_commit();
    if (uv_threadpool_should_stop() || uv_work_should_stop(&self->req))
      self->committed = -2;
  };
  ASSERT_EQ(0, Queue(&loop_, &probe));
  ASSERT_TRUE(RunUntil(&loop_, [&] {
    return slow.done_calls == 1 && probe.done_calls == 1;
  }));
  EXPECT_EQ(0, slow.status);
  EXPECT_EQ(0, probe.status);
  EXPECT_EQ(1, probe.committed.load());
  EXPECT_EQ(0, slow.reclaims);

  // Cancelling a queued request works as upstream.
  const int n = PoolSize();
  Gate gate;
  auto busy = std::make_unique<Task[]>(n);
  for (int i = 0; i < n; i++) {
    busy[i].work = [&](Task*) { gate.Wait(); };
    ASSERT_EQ(0, Queue(&loop_, &busy[i]));
  }
  ASSERT_TRUE(gate.AwaitArrivals(n));
  Task queued;
  ASSERT_EQ(0, Queue(&loop_, &queued));
  EXPECT_EQ(0, uv_cancel(reinterpret_cast<uv_req_t*>(&queued.req)));
  EXPECT_EQ(UV_EBUSY, uv_cancel(reinterpret_cast<uv_req_t*>(&busy[0].req)));
  gate.Open();
  ASSERT_TRUE(RunUntil(&loop_, [&] {
    for (int i = 0; i < n; i++)
      if (busy[i].done_calls != 1) return false;
    return queued.done_calls == 1;
  }));
  EXPECT_EQ(UV_ECANCELED, queued.status);

  const uv_threadpool_stats_t after = Stats();
  EXPECT_EQ(before.timed_out, after.timed_out);
  EXPECT_EQ(before.abandoned, after.abandoned);
  EXPECT_EQ(before.cap_hits, after.cap_hits);
}

TEST_F(ThreadpoolTimeoutTest, CapStopsReplacementsAndReportsEABANDONCAP) {
  uv_threadpool_set_abandoned_limit(1);
  const uv_threadpool_stats_t before = Stats();
  Gate gate_a;
  Gate gate_b;
  Task a;
  Task b;
  a.work = [&](Task*) { gate_a.Wait(); };
  b.work = [&](Task*) { gate_b.Wait(); };

  ASSERT_EQ(0, QueueTimed(&loop_, &a, 30));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return a.done_calls == 1; }));
  EXPECT_EQ(UV_ETIMEDOUT, a.status);
  EXPECT_EQ(1u, Stats().abandoned_live);

  const int threads = CountThreads();
  ASSERT_EQ(0, QueueTimed(&loop_, &b, 30));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return b.done_calls == 1; }));
  EXPECT_EQ(UV_EABANDONCAP, b.status);
  EXPECT_EQ(threads, CountThreads());  // no replacement for b's thread
  const uv_threadpool_stats_t capped = Stats();
  EXPECT_EQ(before.abandoned + 1, capped.abandoned);
  EXPECT_EQ(before.cap_hits + 1, capped.cap_hits);
  EXPECT_EQ(1u, capped.abandoned_live);

  gate_b.Open();  // b's thread goes back to work
  ASSERT_TRUE(RunUntil(&loop_, [&] { return b.reclaims == 1; }));
  gate_a.Open();  // a's thread is reaped
  ASSERT_TRUE(RunUntil(&loop_, [&] { return a.reclaims == 1; }));
  ASSERT_TRUE(AwaitReaped());
  uv_threadpool_set_abandoned_limit(64);
  EXPECT_TRUE(PoolRunsAtOnce(PoolSize()));
}

// Past the cap every timed-out worker is kept until its work returns. Once
// all of them are, nothing queued can start: a timed request fails with
// UV_EPOOLSTALLED instead of waiting for ever (while the stall lasts, also
// one submitted later); an untimed one waits, as upstream's does.
TEST_F(ThreadpoolTimeoutTest, StalledPoolFailsQueuedTimedRequests) {
  uv_threadpool_set_abandoned_limit(0);
  const uv_threadpool_stats_t before = Stats();
  const int n = PoolSize();
  Gate gate;
  // Opened on every way out: a failed assertion must not leave the workers
  // blocked under TearDown's uv_run().
  std::unique_ptr<Gate, void (*)(Gate*)> opener(&gate,
                                                [](Gate* g) { g->Open(); });
  auto stuck = std::make_unique<Task[]>(n);
  for (int i = 0; i < n; i++) {
    stuck[i].work = [&](Task*) { gate.Wait(); };  // ignores every hint
    ASSERT_EQ(0, QueueTimed(&loop_, &stuck[i], 30));
  }
  Task timed;
  Task untimed;
  int timed_stopped = -1;
  timed.on_done = [&](Task*) { timed_stopped = uv_threadpool_work_stopped(); };
  ASSERT_EQ(0, QueueTimed(&loop_, &timed, 30));
  ASSERT_EQ(0, Queue(&loop_, &untimed));

  ASSERT_TRUE(RunUntil(&loop_, [&] {
    for (int i = 0; i < n; i++)
      if (stuck[i].done_calls != 1) return false;
    return timed.reclaims == 1;
  }));
  for (int i = 0; i < n; i++) EXPECT_EQ(UV_EABANDONCAP, stuck[i].status);
  EXPECT_EQ(UV_EPOOLSTALLED, timed.status);
  EXPECT_EQ(1, timed.done_calls);
  EXPECT_EQ(0u, timed.started_ns.load());  // it never ran
  EXPECT_EQ(1, timed_stopped);
  EXPECT_EQ(UV_EBUSY, uv_cancel(reinterpret_cast<uv_req_t*>(&timed.req)));
  EXPECT_EQ(0, untimed.done_calls);
  EXPECT_EQ(static_cast<uint64_t>(n), Stats().kept_live);

  Task later;  // submitted while the stall lasts
  ASSERT_EQ(0, QueueTimed(&loop_, &later, 30));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return later.reclaims == 1; }));
  EXPECT_EQ(UV_EPOOLSTALLED, later.status);
  EXPECT_EQ(0, untimed.done_calls);

  const uv_threadpool_stats_t stalled = Stats();
  EXPECT_EQ(before.stalled + 2, stalled.stalled);
  EXPECT_EQ(before.cap_hits + n, stalled.cap_hits);
  EXPECT_EQ(before.abandoned, stalled.abandoned);

  gate.Open();  // the kept workers return, then run the untimed request
  ASSERT_TRUE(RunUntil(&loop_, [&] {
    for (int i = 0; i < n; i++)
      if (stuck[i].reclaims != 1) return false;
    return untimed.done_calls == 1;
  }));
  EXPECT_EQ(0, untimed.status);
  EXPECT_TRUE(untimed.returned.load());
  EXPECT_EQ(0u, Stats().kept_live);

  uv_threadpool_set_abandoned_limit(64);
  Task after;  // the pool is whole again
  ASSERT_EQ(0, QueueTimed(&loop_, &after, 1000));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return after.done_calls == 1; }));
  EXPECT_EQ(0, after.status);
  EXPECT_EQ(before.stalled + 2, Stats().stalled);
}

TEST_F(ThreadpoolTimeoutTest, GetaddrinfoStillWorksWithABudget) {
  struct Lookup {
    uv_getaddrinfo_t req;
    int status = 1;
    int calls = 0;
  } lookup;
  uint64_t saved = uv_threadpool_set_thread_timeout(10000);
  ASSERT_EQ(0, uv_getaddrinfo(
                   &loop_, &lookup.req,
                   [](uv_getaddrinfo_t* req, int status, struct addrinfo* res) {
                     Lookup* l = reinterpret_cast<Lookup*>(req);
                     l->status = status;
                     l->calls++;
                     uv_freeaddrinfo(res);
                   },
                   "localhost", nullptr, nullptr));
  uv_threadpool_set_thread_timeout(saved);
  ASSERT_TRUE(RunUntil(&loop_, [&] { return lookup.calls == 1; }));
  EXPECT_EQ(0, lookup.status);
}

TEST(ThreadpoolTimeoutLoopTest, LoopClosedBeforeAbandonedWorkReturns) {
  uv_loop_t loop;
  ASSERT_EQ(0, uv_loop_init(&loop));
  Gate gate;
  Task t;
  t.work = [&](Task*) { gate.Wait(); };
  ASSERT_EQ(0, QueueTimed(&loop, &t, 20));
  ASSERT_EQ(0, uv_run(&loop, UV_RUN_DEFAULT));  // returns after the timeout
  EXPECT_EQ(UV_ETIMEDOUT, t.status);
  EXPECT_EQ(0, uv_loop_close(&loop));
  gate.Open();
  EXPECT_TRUE(AwaitReaped());
  EXPECT_TRUE(t.returned.load());
  EXPECT_EQ(0, t.reclaims);  // nobody left to tell
}

// Priority Executor.

struct Job {
  uv_priority_work_t req;
  std::function<void(Job*)> work;
  std::atomic<bool> ran{false};
  std::atomic<bool> returned{false};
  std::thread::id thread;
  std::mutex mutex;
  std::condition_variable cv;
  bool cleaned = false;

  static void Work(uv_priority_work_t* req) {
    Job* j = static_cast<Job*>(req->data);
    j->thread = std::this_thread::get_id();
    j->ran = true;
    if (j->work) j->work(j);
    j->returned = true;
  }
  static void Cleanup(uv_priority_work_t* req) {
    Job* j = static_cast<Job*>(req->data);
    std::lock_guard<std::mutex> lock(j->mutex);
    j->cleaned = true;
    j->cv.notify_all();
  }
  bool AwaitCleanup(int timeout_ms = 10000) {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                       [&] { return cleaned; });
  }
  int Run(uint64_t timeout_ms) {
    req.data = this;
    return uv_priority_work(&req, Work, Cleanup, timeout_ms);
  }
};

class PriorityExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(AwaitReaped()); }
  void TearDown() override { EXPECT_TRUE(AwaitReaped()); }
};

TEST_F(PriorityExecutorTest, RunsWorkOnAnotherThreadAndWaits) {
  Job j;
  j.work = [](Job*) { Spin(20 * kNsPerMs); };
  EXPECT_EQ(0, j.Run(0));
  EXPECT_TRUE(j.returned.load());  // uv_priority_work() waited for it
  EXPECT_NE(std::this_thread::get_id(), j.thread);
  EXPECT_FALSE(j.cleaned);  // cleanup is for abandoned work only
  EXPECT_EQ(UV_ENOENT, uv_priority_work_abandon(&j.req));
}

TEST_F(PriorityExecutorTest, TimeoutAbandonsTheWork) {
  constexpr uint64_t kBudgetMs = 50;
  Gate gate;
  Job j;
  j.work = [&](Job*) { gate.Wait(); };
  uint64_t start = uv_hrtime();
  EXPECT_EQ(UV_ETIMEDOUT, j.Run(kBudgetMs));
  double elapsed_ms = (uv_hrtime() - start) / 1e6;
  printf("  priority work abandoned after %.2f ms (budget %llu ms)\n",
         elapsed_ms, static_cast<unsigned long long>(kBudgetMs));
  EXPECT_GE(elapsed_ms, static_cast<double>(kBudgetMs));
  EXPECT_LE(elapsed_ms, static_cast<double>(kBudgetMs + kSlackMs));
  EXPECT_FALSE(j.returned.load());

  // The next caller gets a fresh executor while the old one is stuck.
  Job next;
  EXPECT_EQ(0, next.Run(0));

  gate.Open();
  EXPECT_TRUE(j.AwaitCleanup());
  EXPECT_TRUE(j.returned.load());
  EXPECT_NE(j.thread, next.thread);
}

TEST_F(PriorityExecutorTest, AbandonFromAnotherThread) {
  int fds[2];
  ASSERT_EQ(0, pipe(fds));
  Gate started;
  std::atomic<int> saved_errno{0};
  Job j;
  j.work = [&](Job*) {
    started.Open();
    char c;
    if (read(fds[0], &c, 1) < 0) saved_errno = errno;  // until interrupted
  };
  std::thread watchdog([&] {
    // Waits for the work to start, as Node's watchdog would find the loop
    // stuck in a synchronous call.
    started.Wait();
    while (uv_priority_work_abandon(&j.req) == UV_ENOENT)
      std::this_thread::yield();
  });
  EXPECT_EQ(UV_ECANCELED, j.Run(0));
  watchdog.join();
  EXPECT_TRUE(j.AwaitCleanup());
  EXPECT_EQ(EINTR, saved_errno.load());
  close(fds[0]);
  close(fds[1]);

  Job next;  // and the executor is usable again
  EXPECT_EQ(0, next.Run(0));
}

TEST_F(PriorityExecutorTest, CommittedWorkIsNotAbandoned) {
  Job j;
  std::atomic<int> committed{-1};
  j.work = [&](Job*) {
    committed = uv_threadpool_commit();
    Spin(250 * kNsPerMs);  // well past the timeout, once committed
  };
  EXPECT_EQ(0, j.Run(100));
  EXPECT_EQ(1, committed.load());
  EXPECT_TRUE(j.returned.load());
}

// The slow-resource list (fs). Each test makes its own FIFO.

class FsTimeoutTest : public ThreadpoolTimeoutTest {
 protected:
  void SetUp() override {
    ThreadpoolTimeoutTest::SetUp();
    char dir[] = "/tmp/uv-tp-timeout-XXXXXX";
    ASSERT_NE(nullptr, mkdtemp(dir));
    dir_ = dir;
    fifo_ = dir_ + "/fifo";
    ASSERT_EQ(0, mkfifo(fifo_.c_str(), 0600));
    uv_fs_slow_resource_clear();
  }
  void TearDown() override {
    unlink(fifo_.c_str());
    rmdir(dir_.c_str());
    ThreadpoolTimeoutTest::TearDown();
  }

  // Submits an fs request with a budget through the thread override, the
  // way Node's bindings would.
  template <typename F>
  int WithBudget(uint64_t ms, F submit) {
    uint64_t saved = uv_threadpool_set_thread_timeout(ms);
    int err = submit();
    uv_threadpool_set_thread_timeout(saved);
    return err;
  }

  std::string dir_;
  std::string fifo_;
};

TEST_F(FsTimeoutTest, FifoOpenWithoutWriterIsInterrupted) {
  FsReq r;
  r.req.data = &r;
  ASSERT_EQ(0, WithBudget(50, [&] {
    return uv_fs_open(&loop_, &r.req, fifo_.c_str(), O_RDONLY, 0, FsReq::Done);
  }));
  // open() of a FIFO without a writer blocks forever: only EINTR ends it.
  ASSERT_TRUE(RunUntil(&loop_, [&] { return r.reclaims == 1; }));
  EXPECT_EQ(1, r.calls);
  EXPECT_EQ(UV_ETIMEDOUT, r.result);
}

TEST_F(FsTimeoutTest, FifoReadIsInterrupted) {
  int fd = open(fifo_.c_str(), O_RDWR);  // a writer that never writes
  ASSERT_GE(fd, 0);
  FsReq r;
  r.req.data = &r;
  ASSERT_EQ(0, WithBudget(50, [&] {
    return uv_fs_read(&loop_, &r.req, fd, &r.buf, 1, -1, FsReq::Done);
  }));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return r.reclaims == 1; }));
  EXPECT_EQ(UV_ETIMEDOUT, r.result);
  uv_fs_t close_req;
  EXPECT_EQ(0, uv_fs_close(nullptr, &close_req, fd, nullptr));
  uv_fs_req_cleanup(&close_req);
}

TEST_F(FsTimeoutTest, TimedOutPathIsListedSlow) {
  const uv_threadpool_stats_t before = Stats();
  FsReq r;
  r.req.data = &r;
  ASSERT_EQ(0, WithBudget(50, [&] {
    return uv_fs_open(&loop_, &r.req, fifo_.c_str(), O_RDONLY, 0, FsReq::Done);
  }));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return r.calls == 1; }));
  ASSERT_EQ(UV_ETIMEDOUT, r.result);
  EXPECT_EQ(1u, uv_fs_slow_resource_count());
  EXPECT_EQ(1, uv_fs_slow_resource_check_path(fifo_.c_str()));

  // The next timed requests fail at once, without a callback or a worker
  // (synchronous ones are never refused: see test_uv_slow_resource.cc).
  uv_fs_t req;
  EXPECT_EQ(UV_ESLOWRESOURCE, WithBudget(50, [&] {
    return uv_fs_open(&loop_, &req, fifo_.c_str(), O_RDONLY, 0,
                      FsReq::NeverCalled);
  }));
  uv_fs_req_cleanup(&req);
  EXPECT_EQ(UV_ESLOWRESOURCE, WithBudget(50, [&] {
    return uv_fs_stat(&loop_, &req, fifo_.c_str(), FsReq::NeverCalled);
  }));
  uv_fs_req_cleanup(&req);
  EXPECT_EQ(UV_ESLOWRESOURCE, WithBudget(50, [&] {
    return uv_fs_access(&loop_, &req, fifo_.c_str(), R_OK, FsReq::NeverCalled);
  }));
  uv_fs_req_cleanup(&req);
#if defined(__linux__)
  // Another path to the same FIFO: same device and inode.
  std::string link = dir_ + "/link";
  ASSERT_EQ(0, symlink(fifo_.c_str(), link.c_str()));
  EXPECT_EQ(UV_ESLOWRESOURCE, WithBudget(50, [&] {
    return uv_fs_open(&loop_, &req, link.c_str(), O_RDONLY, 0,
                      FsReq::NeverCalled);
  }));
  uv_fs_req_cleanup(&req);
  // Removing a name always works.
  EXPECT_EQ(0, uv_fs_unlink(nullptr, &req, link.c_str(), nullptr));
  uv_fs_req_cleanup(&req);
#endif
  EXPECT_LE(before.slow_resource_hits + 3, Stats().slow_resource_hits);
  EXPECT_EQ(before.slow_resource_marks + 1, Stats().slow_resource_marks);

  ASSERT_TRUE(RunUntil(&loop_, [&] { return r.reclaims == 1; }));
  uv_fs_slow_resource_clear();
  EXPECT_EQ(0u, uv_fs_slow_resource_count());
  EXPECT_EQ(0, uv_fs_stat(nullptr, &req, fifo_.c_str(), nullptr));
  uv_fs_req_cleanup(&req);
}

TEST_F(FsTimeoutTest, TimedOutFdIsListedSlowAndCloseWorks) {
  int fd = open(fifo_.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  FsReq r;
  r.req.data = &r;
  ASSERT_EQ(0, WithBudget(50, [&] {
    return uv_fs_read(&loop_, &r.req, fd, &r.buf, 1, -1, FsReq::Done);
  }));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return r.calls == 1; }));
  ASSERT_EQ(UV_ETIMEDOUT, r.result);
  EXPECT_EQ(1, uv_fs_slow_resource_check_fd(fd));

  uv_fs_t req;
  char byte;
  uv_buf_t buf = uv_buf_init(&byte, 1);
  EXPECT_EQ(UV_ESLOWRESOURCE, WithBudget(50, [&] {
    return uv_fs_read(&loop_, &req, fd, &buf, 1, -1, FsReq::NeverCalled);
  }));
  uv_fs_req_cleanup(&req);
  EXPECT_EQ(UV_ESLOWRESOURCE, WithBudget(50, [&] {
    return uv_fs_fstat(&loop_, &req, fd, FsReq::NeverCalled);
  }));
  uv_fs_req_cleanup(&req);

  // Close always works, and forgets the fd (its number will be reused).
  // (After the abandoned read returned: closing an fd that abandoned work
  // may still use is the caller's choice, see the design notes.)
  ASSERT_TRUE(RunUntil(&loop_, [&] { return r.reclaims == 1; }));
  EXPECT_EQ(0, uv_fs_close(nullptr, &req, fd, nullptr));
  uv_fs_req_cleanup(&req);
  EXPECT_EQ(0, uv_fs_slow_resource_check_fd(fd));
  std::string plain = dir_ + "/plain";
  int fd2 = uv_fs_open(nullptr, &req, plain.c_str(), O_CREAT | O_RDWR, 0600,
                       nullptr);
  uv_fs_req_cleanup(&req);
  ASSERT_GE(fd2, 0);
  EXPECT_EQ(0, uv_fs_fstat(nullptr, &req, fd2, nullptr));
  uv_fs_req_cleanup(&req);
  EXPECT_EQ(0, uv_fs_close(nullptr, &req, fd2, nullptr));
  uv_fs_req_cleanup(&req);
  EXPECT_EQ(0, uv_fs_unlink(nullptr, &req, plain.c_str(), nullptr));
  uv_fs_req_cleanup(&req);
#if defined(__linux__)
  // The FIFO itself stays on the list, by device and inode.
  EXPECT_EQ(UV_ESLOWRESOURCE, WithBudget(50, [&] {
    return uv_fs_open(&loop_, &req, fifo_.c_str(), O_RDWR, 0,
                      FsReq::NeverCalled);
  }));
  uv_fs_req_cleanup(&req);
#endif
}

TEST_F(FsTimeoutTest, SlowResourceEntriesCanExpire) {
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(50, 50));
  FsReq r;
  r.req.data = &r;
  ASSERT_EQ(0, WithBudget(20, [&] {
    return uv_fs_open(&loop_, &r.req, fifo_.c_str(), O_RDONLY, 0, FsReq::Done);
  }));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return r.reclaims == 1; }));
  ASSERT_EQ(UV_ETIMEDOUT, r.result);
  // Expiry is a property of time: wait on the loop for it.
  ASSERT_TRUE(RunUntil(&loop_, [] { return uv_fs_slow_resource_count() == 0; },
                       5000));
  uv_fs_t req;
  EXPECT_EQ(0, uv_fs_stat(nullptr, &req, fifo_.c_str(), nullptr));
  uv_fs_req_cleanup(&req);
  ASSERT_EQ(0, uv_fs_slow_resource_set_policy(UV_FS_SLOW_RESOURCE_BASE_TTL_MS,
                                              UV_FS_SLOW_RESOURCE_MAX_TTL_MS));
}

// Report only (UV_THREADPOOL_ACTION_REPORT): what the report callback saw.
struct Report {
  uv_loop_t* loop;
  void* tag;
  uint64_t elapsed_ms;
  int done_calls_before;  // of the Task, if the tag is one
};
std::vector<Report>* reports = nullptr;

void RecordReport(uv_loop_t* loop, void* tag, uint64_t elapsed_ms) {
  ASSERT_NE(nullptr, reports);
  Task* t = static_cast<Task*>(tag);
  reports->push_back({loop, tag, elapsed_ms, t != nullptr ? t->done_calls : -1});
}

class ThreadpoolReportTest : public FsTimeoutTest {
 protected:
  void SetUp() override {
    FsTimeoutTest::SetUp();
    reports = &reports_;
    uv_threadpool_set_report_cb(RecordReport);
    ASSERT_EQ(0, uv_threadpool_set_action(UV_THREADPOOL_ACTION_REPORT));
  }
  void TearDown() override {
    ASSERT_EQ(0, uv_threadpool_set_action(UV_THREADPOOL_ACTION_STOP));
    FsTimeoutTest::TearDown();
    uv_threadpool_set_report_cb(nullptr);
    reports = nullptr;
  }

  // Submits with the calling thread's tag set to `tag`.
  template <typename F>
  int Tagged(void* tag, F submit) {
    void* saved = uv_threadpool_set_thread_tag(tag);
    int err = submit();
    EXPECT_EQ(tag, uv_threadpool_set_thread_tag(saved));
    return err;
  }

  std::vector<Report> reports_;
};

TEST_F(ThreadpoolReportTest, TaskPastBudgetRunsOnAndIsReportedOnce) {
  const uv_threadpool_stats_t before = Stats();
  std::atomic<bool> told_to_stop{false};
  Task t;
  t.work = [&](Task* t) {
    // Twice the budget and more, and never told to stop.
    uint64_t end = uv_hrtime() + 150 * kNsPerMs;
    while (uv_hrtime() < end)
      if (uv_work_should_stop(&t->req)) told_to_stop = true;
  };
  ASSERT_EQ(0, Tagged(&t, [&] { return QueueTimed(&loop_, &t, 40); }));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.done_calls == 1; }));
  EXPECT_EQ(0, t.status);
  EXPECT_FALSE(told_to_stop.load());
  EXPECT_EQ(0, t.reclaims);
  ASSERT_EQ(1u, reports_.size());
  EXPECT_EQ(&loop_, reports_[0].loop);
  EXPECT_EQ(&t, reports_[0].tag);
  EXPECT_GE(reports_[0].elapsed_ms, 40u);
  EXPECT_LT(reports_[0].elapsed_ms, 150u);
  EXPECT_EQ(0, reports_[0].done_calls_before);  // before its completion
  const uv_threadpool_stats_t after = Stats();
  EXPECT_EQ(before.reported + 1, after.reported);
  EXPECT_EQ(before.timed_out, after.timed_out);
  EXPECT_EQ(before.abandoned, after.abandoned);
}

TEST_F(ThreadpoolReportTest, UntaggedTaskIsCountedNotReported) {
  const uint64_t reported = Stats().reported;
  Task t;
  t.work = [](Task*) { Spin(80 * kNsPerMs); };
  ASSERT_EQ(0, QueueTimed(&loop_, &t, 20));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.done_calls == 1; }));
  EXPECT_EQ(0, t.status);
  EXPECT_TRUE(reports_.empty());
  EXPECT_EQ(reported + 1, Stats().reported);
}

TEST_F(ThreadpoolReportTest, FifoReadIsNotInterruptedNorListedSlow) {
  const uv_threadpool_stats_t before = Stats();
  int writer = open(fifo_.c_str(), O_RDWR);
  ASSERT_GE(writer, 0);
  FsReq r;
  ASSERT_EQ(0, Tagged(&r, [&] {
    return WithBudget(30, [&] {
      return uv_fs_read(&loop_, &r.req, writer, &r.buf, 1, -1, FsReq::Done);
    });
  }));
  // Reported while the read still blocks; then a byte arrives and the read
  // completes with it, as without a budget.
  ASSERT_TRUE(RunUntil(&loop_, [&] { return reports_.size() == 1; }));
  EXPECT_EQ(&r, reports_[0].tag);
  EXPECT_EQ(0, r.calls);
  ASSERT_EQ(1, write(writer, "y", 1));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return r.calls == 1; }));
  EXPECT_EQ(1, r.result);
  EXPECT_EQ('y', r.byte);
  EXPECT_EQ(0, uv_fs_slow_resource_check_fd(writer));
  const uv_threadpool_stats_t after = Stats();
  EXPECT_EQ(before.slow_resource_marks, after.slow_resource_marks);
  EXPECT_EQ(before.timed_out, after.timed_out);
  close(writer);
}

TEST_F(ThreadpoolReportTest, StopActionAppliesToTasksThatStartAfter) {
  ASSERT_EQ(0, uv_threadpool_set_action(UV_THREADPOOL_ACTION_STOP));
  Task t;
  t.work = UntilStopped;
  ASSERT_EQ(0, Tagged(&t, [&] { return QueueTimed(&loop_, &t, 30); }));
  ASSERT_TRUE(RunUntil(&loop_, [&] { return t.reclaims == 1; }));
  EXPECT_EQ(UV_ETIMEDOUT, t.status);
  EXPECT_TRUE(reports_.empty());
}

TEST(ThreadpoolTimeoutApiTest, ErrorNamesAndArguments) {
  EXPECT_STREQ("ESLOWRESOURCE", uv_timeout_err_name(UV_ESLOWRESOURCE));
  EXPECT_STREQ("EABANDONCAP", uv_timeout_err_name(UV_EABANDONCAP));
  EXPECT_STREQ("EPOOLSTALLED", uv_timeout_err_name(UV_EPOOLSTALLED));
  // Outside a done callback that got a timeout.
  EXPECT_EQ(UV_EINVAL, uv_threadpool_work_stopped());
  EXPECT_STREQ("ETIMEDOUT", uv_timeout_err_name(UV_ETIMEDOUT));
  EXPECT_NE(nullptr, uv_timeout_strerror(UV_ESLOWRESOURCE));
  EXPECT_EQ(UV_EINVAL, uv_threadpool_set_timeout(UV_THREADPOOL_TIMEOUT_DEFAULT));
  EXPECT_EQ(UV_EINVAL, uv_priority_work(nullptr, nullptr, nullptr, 0));
  EXPECT_EQ(UV_EINVAL, uv_threadpool_set_interrupt_signal(-1));
  EXPECT_EQ(UV_EINVAL, uv_threadpool_set_action(2));
  EXPECT_EQ(UV_THREADPOOL_ACTION_STOP, uv_threadpool_get_action());
  EXPECT_EQ(UV_EINVAL, uv_threadpool_on_reclaim([](void*) {}, nullptr));
  EXPECT_EQ(1, uv_threadpool_commit());    // not in a task
  EXPECT_EQ(0, uv_threadpool_should_stop());
#ifdef SIGRTMIN
  int signo = uv_threadpool_get_interrupt_signal();
  EXPECT_GE(signo, SIGRTMIN);
  EXPECT_LE(signo, SIGRTMAX);
#endif
}

}  // namespace
