#ifndef SRC_NODE_SYNC_HOP_H_
#define SRC_NODE_SYNC_HOP_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "env.h"
#include "node_event_loop_timeout.h"
#include "util.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"

namespace node {

// nodecure: a synchronous binding's one-shot work on a long input, on
// libuv's Priority Executor.
//
// Some libraries do their work in one call that has nothing to poll and
// whose result is one object, so it cannot be cut into slices: ada parses
// a URL and converts a host to and from IDNA (new URL() of 16 MiB took
// 17 ms with an ASCII path, 166 ms with a non-ASCII one and 0.85 s with a
// host of 8 Mi non-ASCII characters on ./node-baseline), Node's dotenv
// parser reads a whole text (util.parseEnv()), ICU's ucnv_convert()
// converts a whole buffer (buffer.transcode()). (OpenSSL's work takes
// crypto/crypto_priority_job.h's PriorityJob, which carries its error
// queue.) Nothing asked for
// --event-loop-timeout's budget while they ran. For an input of more than
// kHopInputBytes, in a callback with a budget, such work runs on the
// Priority Executor (uv/timeout.h) while the loop thread waits in a section
// (StoppableSyncCall):
//
//   loop thread                             executor thread
//   RunAbandonable(): job = {copies, fn}
//   uv_priority_work() waits ...            job->fn()
//     the budget passes: the section is
//     stopped, the wait ends within 5 ms
//   UV_ETIMEDOUT: the TimeoutError is       ... fn() returns; OnAbandoned()
//   thrown; the job is the executor's       deletes the job
//
// or, if fn() returns first, the loop takes the result and goes on as
// upstream's code would.
//
// Ownership: the job owns copies of the inputs, which fn gets as
// std::string_views, fn itself (with what it captured by value, such as a
// base URL) and its result; they touch nothing of the Environment, of V8 or
// of the caller's memory, so an abandoned job is safe to let run. A
// caller's fn must keep to that: it captures nothing by reference, and
// calls only code that is safe on another thread (ada, ICU's converters,
// std::). Without a budget, for inputs of kHopInputBytes or less in all, or
// with no executor free (the cap on abandoned threads), fn runs in place on
// the caller's views, with no copy, as upstream's code did. Loop thread
// only.
constexpr size_t kHopInputBytes = 64 << 10;

template <typename Fn, typename... Views>
using HopResult = std::invoke_result_t<Fn&, Views...>;

template <typename Fn, typename... Views>
class AbandonableJob {
 public:
  using Result = HopResult<Fn, Views...>;

  AbandonableJob(Fn&& fn, Views... inputs)
      : fn_(std::move(fn)), inputs_{std::string(inputs)...} {
    req_.data = this;
  }
  AbandonableJob(const AbandonableJob&) = delete;
  AbandonableJob& operator=(const AbandonableJob&) = delete;

  uv_priority_work_t* req() { return &req_; }
  std::optional<Result>& result() { return result_; }
  void Run() {
    result_.emplace(std::apply(
        [this](const auto&... in) { return fn_(std::string_view(in)...); },
        inputs_));
  }

  static void OnWork(uv_priority_work_t* req) {
    static_cast<AbandonableJob*>(req->data)->Run();
  }
  static void OnAbandoned(uv_priority_work_t* req) {
    delete static_cast<AbandonableJob*>(req->data);
  }

 private:
  uv_priority_work_t req_;
  Fn fn_;
  std::array<std::string, sizeof...(Views)> inputs_;
  std::optional<Result> result_;
};

// fn(inputs...) (see above). Returns its result, or std::nullopt when the
// callback's budget stopped the wait: the TimeoutError is then thrown
// (`api` names the call in its message) and the caller returns at once.
// Each input is a std::string_view.
template <typename Fn, typename... Views>
auto RunAbandonable(Environment* env,
                    const char* api,
                    Fn fn,
                    Views... inputs)
    -> std::optional<HopResult<Fn, Views...>> {
  static_assert((std::is_same_v<Views, std::string_view> && ...));
  if ((inputs.size() + ... + 0) <= kHopInputBytes) return fn(inputs...);
  StoppableSyncCall call;
  if (!call.entered()) return fn(inputs...);
  // A stop that came while the caller prepared the input (a long string's
  // UTF-8, the copies) found no section to stop: taken here, before the
  // job starts, rather than after it ends.
  if (EventLoopTimeout::ThrowIfSyncCallDue(env, api)) return std::nullopt;
  using Job = AbandonableJob<Fn, Views...>;
  auto* job = new Job(std::move(fn), inputs...);
  const int r = uv_priority_work(job->req(), Job::OnWork, Job::OnAbandoned, 0);
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
  if (r != 0) job->Run();  // No executor: in place, as without it.
  std::optional<HopResult<Fn, Views...>> out = std::move(job->result());
  delete job;
  if (call.Leave()) uv_sync_stop_take();  // Complete: V8 throws next.
  return out;
}

}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_SYNC_HOP_H_
