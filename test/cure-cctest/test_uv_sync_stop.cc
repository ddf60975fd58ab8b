// uv/sync-stop.h: another thread stops a thread's synchronous calls. A
// blocked synchronous uv_fs_read() of a pipe returns UV_ETIMEDOUT when the
// section's token is asked for, and only then; the interrupt signal never
// reaches the owner outside a section (a blocking call there would fail with
// an EINTR its caller does not expect).

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"

namespace {

std::atomic<uint64_t> current_token{0};

uint64_t Token(void*) {
  return current_token.load();
}

// Runs fn on a thread of its own that registered a stop.
template <typename Fn>
void OnOwner(Fn fn) {
  std::thread owner([&] {
    uv_sync_stop_t* stop = uv_sync_stop_register(Token, nullptr);
    ASSERT_NE(stop, nullptr);
    fn(stop);
    uv_sync_stop_unregister(stop);
  });
  owner.join();
}

// A synchronous read of an empty pipe on the owner, blocked until `stop`
// is requested with `request_token` (or, if that misses, a byte arrives).
int BlockedRead(uv_sync_stop_t* stop, uint64_t request_token) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  current_token = 7;
  std::atomic<bool> requested{false};
  std::thread requester([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    requested = uv_sync_stop_request(stop, request_token) != 0;
    if (!requested) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      EXPECT_EQ(write(fds[1], "x", 1), 1);
    }
  });
  char c;
  uv_buf_t buf = uv_buf_init(&c, 1);
  uv_fs_t req;
  int r = uv_fs_read(nullptr, &req, fds[0], &buf, 1, -1, nullptr);
  uv_fs_req_cleanup(&req);
  requester.join();
  EXPECT_EQ(requested.load(), r == UV_ETIMEDOUT);
  close(fds[0]);
  close(fds[1]);
  current_token = 0;
  return r;
}

TEST(UvSyncStop, StopsABlockedSynchronousRead) {
  OnOwner([](uv_sync_stop_t* stop) {
    EXPECT_EQ(BlockedRead(stop, 7), UV_ETIMEDOUT);
    EXPECT_EQ(uv_sync_stop_take(), 7u);  // The stopped section's token,
    EXPECT_EQ(uv_sync_stop_take(), 0u);  // once.
  });
}

TEST(UvSyncStop, AnotherTokenLeavesTheCallAlone) {
  OnOwner([](uv_sync_stop_t* stop) {
    EXPECT_EQ(BlockedRead(stop, 8), 1);  // The byte arrived.
    EXPECT_EQ(uv_sync_stop_take(), 0u);
  });
}

TEST(UvSyncStop, NoTokenNoSection) {
  OnOwner([](uv_sync_stop_t* stop) {
    current_token = 0;
    EXPECT_EQ(uv_sync_stop_enter(), 0);
    EXPECT_EQ(uv_sync_stop_request(stop, 0), 0);
  });
}

TEST(UvSyncStop, CpuLoopsSeeTheStop) {
  OnOwner([](uv_sync_stop_t* stop) {
    current_token = 3;
    ASSERT_EQ(uv_sync_stop_enter(), 1);
    EXPECT_EQ(uv_sync_stop_inside(), 1);
    EXPECT_EQ(uv_threadpool_should_stop(), 0);
    std::thread requester([&] { EXPECT_EQ(uv_sync_stop_request(stop, 3), 1); });
    while (!uv_threadpool_should_stop()) {
    }
    requester.join();
    EXPECT_EQ(uv_sync_stop_leave(), 1);
    EXPECT_EQ(uv_threadpool_should_stop(), 0);  // Outside any section.
    current_token = 0;
  });
}

TEST(UvSyncStop, UnregisteredThreadsTakeUpstreamsPath) {
  EXPECT_EQ(uv_sync_stop_enter(), 0);
  EXPECT_EQ(uv_sync_stop_take(), 0u);
  EXPECT_EQ(uv_sync_stop_inside(), 0);
}

// A call that goes on after the first signal (a partial write) and blocks
// again is interrupted by the next request.
TEST(UvSyncStop, ASectionCanBeSignalledAgain) {
  if (uv_threadpool_get_interrupt_signal() <= 0) GTEST_SKIP() << "no signal";
  OnOwner([](uv_sync_stop_t* stop) {
    current_token = 5;
    ASSERT_EQ(uv_sync_stop_enter(), 1);
    for (int round = 0; round < 3; round++) {
      int fds[2];
      ASSERT_EQ(pipe(fds), 0);
      std::thread requester([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        EXPECT_EQ(uv_sync_stop_request(stop, 5), 1);
      });
      char c;
      errno = 0;
      EXPECT_EQ(read(fds[0], &c, 1), -1);  // Blocked until signalled.
      EXPECT_EQ(errno, EINTR);
      requester.join();
      close(fds[0]);
      close(fds[1]);
    }
    EXPECT_EQ(uv_sync_stop_leave(), 1);
    EXPECT_EQ(uv_sync_stop_take(), 5u);
    current_token = 0;
  });
}
// Stress: a requester that asks for the running section's token as fast as
// it can, while the owner enters and leaves sections and sleeps 1 us between
// them. A signal that arrived outside a section would end a nanosleep()
// with EINTR. At least 20,000 rounds, and on until the requester has met
// sections (a loaded machine may not run both threads at once for long),
// for at most 60 s.
TEST(UvSyncStop, NoSignalOutsideASection) {
  if (uv_threadpool_get_interrupt_signal() <= 0) GTEST_SKIP() << "no signal";
  OnOwner([](uv_sync_stop_t* stop) {
    std::atomic<bool> done{false};
    std::atomic<uint64_t> requests{0};
    std::thread requester([&] {
      while (!done.load()) {
        if (uv_sync_stop_request(stop, current_token.load())) requests++;
      }
    });
    int outside_eintr = 0;
    int stopped = 0;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (uint64_t i = 1;
         i <= 20000 ||
         (stopped < 10 && std::chrono::steady_clock::now() < deadline);
         i++) {
      current_token = i;
      if (uv_sync_stop_enter()) {
        // A few microseconds inside, where a request may land.
        for (volatile int spin = 0; spin < 1000; spin = spin + 1) {
        }
        stopped += uv_sync_stop_leave();
      }
      struct timespec ts = {0, 1000};
      if (nanosleep(&ts, nullptr) != 0 && errno == EINTR) outside_eintr++;
    }
    done = true;
    requester.join();
    current_token = 0;
    EXPECT_EQ(outside_eintr, 0);
    EXPECT_GT(stopped, 0) << "the requester never met a section";
    // A section may be signalled more than once.
    EXPECT_GE(requests.load(), static_cast<uint64_t>(stopped));
  });
}

// A section that waits for work it gave the Priority Executor (a *Sync API
// whose work cannot be stopped in place) leaves the wait when it is stopped:
// uv_priority_work() returns UV_ETIMEDOUT while the work still runs, and the
// work, abandoned, is cleaned up on its executor once it returns.
TEST(UvSyncStop, AStoppedSectionLeavesThePriorityExecutorsWork) {
  struct Work {
    uv_priority_work_t req;
    std::atomic<bool> started{false};
    std::atomic<bool> release{false};
    std::atomic<bool> returned{false};
    std::atomic<bool> cleaned{false};
  };
  Work* w = new Work;  // the executor's once abandoned
  w->req.data = w;
  OnOwner([w](uv_sync_stop_t* stop) {
    current_token = 5;
    ASSERT_EQ(uv_sync_stop_enter(), 1);
    std::thread requester([&] {
      while (!w->started.load()) std::this_thread::yield();
      EXPECT_EQ(uv_sync_stop_request(stop, 5), 1);
    });
    int r = uv_priority_work(
        &w->req,
        [](uv_priority_work_t* req) {
          Work* w = static_cast<Work*>(req->data);
          w->started = true;
          // CPU work with no check of its own, as OpenSSL between callbacks.
          while (!w->release.load()) {
          }
          w->returned = true;
        },
        [](uv_priority_work_t* req) {
          static_cast<Work*>(req->data)->cleaned = true;
        },
        0);
    requester.join();
    EXPECT_EQ(r, UV_ETIMEDOUT);
    EXPECT_FALSE(w->returned.load());  // The caller did not wait for it.
    EXPECT_EQ(uv_sync_stop_leave(), 1);
    EXPECT_EQ(uv_sync_stop_take(), 5u);
    current_token = 0;
  });
  w->release = true;
  while (!w->cleaned.load()) std::this_thread::yield();
  EXPECT_TRUE(w->returned.load());
  delete w;
}

// A section stopped before the call (its budget ran out just before): the
// caller does not wait, the work never runs, and the job is still cleaned
// up on its executor, which then ends (the Hangman joins it). It used to
// wait for a job that nobody would run, counted as abandoned for ever.
TEST(UvSyncStop, AJobAbandonedBeforeItStartsIsCleanedUp) {
  struct Work {
    uv_priority_work_t req;
    std::atomic<bool> ran{false};
    std::atomic<bool> cleaned{false};
  };
  // Abandoned executors of earlier tests end first: ours is then the only
  // one the counter can show.
  auto live = [] {
    uv_threadpool_stats_t stats;
    uv_threadpool_get_stats(&stats);
    return stats.abandoned_live;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (live() != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(live(), 0u);
  Work* w = new Work;
  w->req.data = w;
  OnOwner([w](uv_sync_stop_t* stop) {
    current_token = 6;
    ASSERT_EQ(uv_sync_stop_enter(), 1);
    std::thread requester([&] { EXPECT_EQ(uv_sync_stop_request(stop, 6), 1); });
    requester.join();
    ASSERT_EQ(uv_threadpool_should_stop(), 1);
    EXPECT_EQ(uv_priority_work(
                  &w->req,
                  [](uv_priority_work_t* req) {
                    static_cast<Work*>(req->data)->ran = true;
                  },
                  [](uv_priority_work_t* req) {
                    static_cast<Work*>(req->data)->cleaned = true;
                  },
                  0),
              UV_ETIMEDOUT);
    EXPECT_EQ(uv_sync_stop_leave(), 1);
    EXPECT_EQ(uv_sync_stop_take(), 6u);
    current_token = 0;
  });
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!(w->cleaned.load() && live() == 0) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(w->cleaned.load());
  EXPECT_FALSE(w->ran.load());  // Nobody waited for it: not run at all.
  EXPECT_EQ(live(), 0u);  // joined
  delete w;
}

// Outside a section the wait is upstream's kind of synchronous call: it
// ends when the work returns.
TEST(UvSyncStop, WithoutASectionThePriorityExecutorIsWaitedFor) {
  struct Work {
    uv_priority_work_t req;
    std::atomic<bool> returned{false};
  } w;
  w.req.data = &w;
  OnOwner([&w](uv_sync_stop_t*) {
    EXPECT_EQ(uv_priority_work(
                  &w.req,
                  [](uv_priority_work_t* req) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                    static_cast<Work*>(req->data)->returned = true;
                  },
                  nullptr,
                  0),
              0);
    EXPECT_TRUE(w.returned.load());
  });
}

}  // namespace
