// The libuv threadpool contract that nodecure's timed pool must keep for
// every existing uv_queue_work user (Node's bindings, N-API async work,
// addons): work runs off the loop thread, its done callback runs once on the
// loop thread with status 0, a queued request can be cancelled, and the pool
// runs UV_THREADPOOL_SIZE (default 4) tasks at once.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "uv.h"

namespace {

struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  int arrived = 0;
  bool open = false;

  // Returns once `open` is set; counts the arrivals.
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex);
    arrived++;
    cv.notify_all();
    cv.wait(lock, [this] { return open; });
  }
  // Waits until `n` threads are inside Wait(), or gives up after 10 s.
  bool AwaitArrivals(int n) {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(10),
                       [&] { return arrived >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    cv.notify_all();
  }
};

struct Task {
  uv_work_t req;
  std::thread::id loop_thread;
  std::thread::id work_thread;
  std::thread::id done_thread;
  Gate* gate = nullptr;
  int done_calls = 0;
  int status = 1;
};

void Work(uv_work_t* req) {
  Task* t = static_cast<Task*>(req->data);
  t->work_thread = std::this_thread::get_id();
  if (t->gate != nullptr) t->gate->Wait();
}

void Done(uv_work_t* req, int status) {
  Task* t = static_cast<Task*>(req->data);
  t->done_thread = std::this_thread::get_id();
  t->done_calls++;
  t->status = status;
}

class ThreadpoolTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(0, uv_loop_init(&loop_)); }
  void TearDown() override {
    ASSERT_EQ(0, uv_run(&loop_, UV_RUN_DEFAULT));
    ASSERT_EQ(0, uv_loop_close(&loop_));
  }
  void Queue(Task* t) {
    t->req.data = t;
    t->loop_thread = std::this_thread::get_id();
    ASSERT_EQ(0, uv_queue_work(&loop_, &t->req, Work, Done));
  }
  uv_loop_t loop_;
};

TEST_F(ThreadpoolTest, WorkRunsOffLoopAndDoneRunsOnceOnLoop) {
  Task t;
  Queue(&t);
  ASSERT_EQ(0, uv_run(&loop_, UV_RUN_DEFAULT));
  EXPECT_EQ(1, t.done_calls);
  EXPECT_EQ(0, t.status);
  EXPECT_NE(t.loop_thread, t.work_thread);
  EXPECT_EQ(t.loop_thread, t.done_thread);
}

TEST_F(ThreadpoolTest, RunsFourTasksAtOnceAndCancelsQueuedOnes) {
  // Four tasks block in the pool until the gate opens: all four must be
  // running at once (UV_THREADPOOL_SIZE defaults to 4). A fifth request
  // stays queued, so it can be cancelled and completes with UV_ECANCELED.
  Gate gate;
  std::vector<Task> tasks(4);
  for (Task& t : tasks) {
    t.gate = &gate;
    Queue(&t);
  }
  ASSERT_TRUE(gate.AwaitArrivals(4));
  Task queued;
  Queue(&queued);
  EXPECT_EQ(0, uv_cancel(reinterpret_cast<uv_req_t*>(&queued.req)));
  gate.Open();
  ASSERT_EQ(0, uv_run(&loop_, UV_RUN_DEFAULT));
  for (const Task& t : tasks) {
    EXPECT_EQ(1, t.done_calls);
    EXPECT_EQ(0, t.status);
  }
  EXPECT_EQ(1, queued.done_calls);
  EXPECT_EQ(UV_ECANCELED, queued.status);
}

TEST_F(ThreadpoolTest, RunningWorkCannotBeCancelled) {
  Gate gate;
  Task t;
  t.gate = &gate;
  Queue(&t);
  ASSERT_TRUE(gate.AwaitArrivals(1));
  EXPECT_EQ(UV_EBUSY, uv_cancel(reinterpret_cast<uv_req_t*>(&t.req)));
  gate.Open();
  ASSERT_EQ(0, uv_run(&loop_, UV_RUN_DEFAULT));
  EXPECT_EQ(1, t.done_calls);
  EXPECT_EQ(0, t.status);
}

}  // namespace
