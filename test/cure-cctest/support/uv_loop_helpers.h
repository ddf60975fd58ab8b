// nodecure: helpers shared by the libuv-level GoogleTest units: the pool's
// counters, waiting for abandoned threads, running a loop until a condition,
// an fs request that follows the lifetime rule of uv/timeout.h.
#ifndef TEST_CURE_CCTEST_SUPPORT_UV_LOOP_HELPERS_H_
#define TEST_CURE_CCTEST_SUPPORT_UV_LOOP_HELPERS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

#include "gtest/gtest.h"
#include "uv.h"
#include "uv/timeout.h"

namespace uv_test {

constexpr uint64_t kNsPerMs = 1000000;

inline uv_threadpool_stats_t Stats() {
  uv_threadpool_stats_t s;
  uv_threadpool_get_stats(&s);
  return s;
}

// Every abandoned thread reaped (joined). The Hangman has no completion
// event: poll, with a deadline.
inline bool AwaitReaped(uint64_t timeout_ms = 10000) {
  uint64_t deadline = uv_hrtime() + timeout_ms * kNsPerMs;
  while (Stats().abandoned_live != 0) {
    if (uv_hrtime() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Runs the loop until pred() holds or timeout_ms passes.
inline bool RunUntil(uv_loop_t* loop,
                     const std::function<bool()>& pred,
                     uint64_t timeout_ms = 10000) {
  uv_timer_t timer;  // keeps the loop alive and bounds each iteration
  uv_timer_init(loop, &timer);
  uv_timer_start(&timer, [](uv_timer_t*) {}, 5, 5);
  uint64_t deadline = uv_hrtime() + timeout_ms * kNsPerMs;
  bool ok;
  while (!(ok = pred()) && uv_hrtime() < deadline) uv_run(loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
  return ok;
}

// An fs request with a one-byte buffer. A request that timed out belongs to
// its work until the reclaim: only then is it cleaned up.
struct FsReq {
  uv_fs_t req;
  char byte = 'x';
  uv_buf_t buf = uv_buf_init(&byte, 1);
  int calls = 0;
  ssize_t result = 1;
  int reclaims = 0;

  FsReq() { req.data = this; }
  FsReq(const FsReq&) = delete;
  FsReq& operator=(const FsReq&) = delete;

  static void Done(uv_fs_t* req) {
    FsReq* r = static_cast<FsReq*>(req->data);
    r->calls++;
    r->result = req->result;
    if (req->result == UV_ETIMEDOUT || req->result == UV_EABANDONCAP ||
        req->result == UV_EPOOLSTALLED) {
      EXPECT_EQ(0, uv_threadpool_on_reclaim(Reclaim, r));
      return;
    }
    uv_fs_req_cleanup(req);
  }
  static void Reclaim(void* arg) {
    FsReq* r = static_cast<FsReq*>(arg);
    r->reclaims++;
    uv_fs_req_cleanup(&r->req);
  }
  static void NeverCalled(uv_fs_t*) { ADD_FAILURE() << "callback called"; }
};

}  // namespace uv_test

#endif  // TEST_CURE_CCTEST_SUPPORT_UV_LOOP_HELPERS_H_
