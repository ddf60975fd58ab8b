#ifndef SRC_NODE_URL_HOP_H_
#define SRC_NODE_URL_HOP_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <cstddef>
#include <optional>
#include <utility>

#include "env.h"
#include "node_event_loop_timeout.h"
#include "util.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"

namespace node {
namespace url {

// nodecure: ada's work on a long input, on libuv's Priority Executor.
//
// ada parses a URL, and converts a host to and from IDNA, in one call that
// is linear but not at memory speed: new URL() of 16 MiB took 17 ms with an
// ASCII path, 166 ms with a non-ASCII one and 0.85 s with a host of 8 Mi
// non-ASCII characters (IDNA) on ./node-baseline, with nothing asking for
// --event-loop-timeout's budget. ada has no callback to poll, and its
// result is one object, so the work cannot be cut into slices. For an input
// of more than kHopInputBytes, in a callback with a budget, it runs on the
// Priority Executor (uv/timeout.h) while the loop thread waits in a section
// (StoppableSyncCall):
//
//   loop thread                             executor thread
//   RunAbandonable(): job = {copies, fn}
//   uv_priority_work() waits ...            job->fn() (ada)
//     the budget passes: the section is
//     stopped, the wait ends within 5 ms
//   UV_ETIMEDOUT: the TimeoutError is       ... fn() returns; OnAbandoned()
//   thrown; the job is the executor's       deletes the job
//
// or, if fn() returns first, the loop takes the result and goes on as
// upstream's code would.
//
// Ownership: fn owns copies of its inputs (captured by value: the input's
// UTF-8, a copy of the base URL) and the job owns fn and its result; they
// touch nothing of the Environment, of V8 or of the caller's memory, so an
// abandoned job is safe to let run. Without a budget, for an input of
// kHopInputBytes or less, or with no executor free (the cap on abandoned
// threads), fn() runs in place, as upstream's code did. Loop thread only.
constexpr size_t kHopInputBytes = 64 << 10;

template <typename Fn>
class AbandonableJob {
 public:
  using Result = decltype(std::declval<Fn&>()());

  explicit AbandonableJob(Fn&& fn) : fn_(std::move(fn)) { req_.data = this; }
  AbandonableJob(const AbandonableJob&) = delete;
  AbandonableJob& operator=(const AbandonableJob&) = delete;

  uv_priority_work_t* req() { return &req_; }
  std::optional<Result>& result() { return result_; }
  void RunInPlace() { result_.emplace(fn_()); }

  static void OnWork(uv_priority_work_t* req) {
    static_cast<AbandonableJob*>(req->data)->RunInPlace();
  }
  static void OnAbandoned(uv_priority_work_t* req) {
    delete static_cast<AbandonableJob*>(req->data);
  }

 private:
  uv_priority_work_t req_;
  Fn fn_;
  std::optional<Result> result_;
};

// fn() (see above) for an input of `input_bytes`. Returns its result, or
// std::nullopt when the callback's budget stopped the wait: the
// TimeoutError is then thrown (`api` names the call in its message) and the
// caller returns at once.
template <typename Fn>
auto RunAbandonable(Environment* env,
                    const char* api,
                    size_t input_bytes,
                    Fn fn) -> std::optional<decltype(fn())> {
  if (input_bytes <= kHopInputBytes) return fn();
  StoppableSyncCall call;
  if (!call.entered()) return fn();
  auto* job = new AbandonableJob<Fn>(std::move(fn));
  const int r = uv_priority_work(job->req(),
                                 AbandonableJob<Fn>::OnWork,
                                 AbandonableJob<Fn>::OnAbandoned,
                                 0);
  if (r == UV_ETIMEDOUT || r == UV_ECANCELED) {
    // The job is the executor's now (OnAbandoned() deletes it).
    if (!call.ThrowIfStopped(env, api)) {
      // Not this section's stop (no other thread abandons the wait): as
      // for any stopped call, a TimeoutError rather than no result.
      v8::Local<v8::Value> error = EventLoopTimeout::StoppedCallError(env, api);
      if (!error.IsEmpty()) env->isolate()->ThrowException(error);
    }
    return std::nullopt;
  }
  if (r != 0) job->RunInPlace();  // No executor: in place, as without it.
  std::optional<decltype(fn())> out = std::move(job->result());
  delete job;
  if (call.Leave()) uv_sync_stop_take();  // Complete: V8 throws next.
  return out;
}

}  // namespace url
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_URL_HOP_H_
