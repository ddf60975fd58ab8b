#ifndef SRC_NODE_EVENT_LOOP_TIMEOUT_H_
#define SRC_NODE_EVENT_LOOP_TIMEOUT_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "node_timeout_watchdog.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"
#include "v8-timeout-interrupt.h"
#include "v8.h"

namespace node {

class Environment;

// nodecure: --event-loop-timeout for one Environment (the main thread or a
// worker_thread). Its TimeoutWatchdog times each callback from the loop into
// JS; the Environment marks the outermost callback scope, JS marks each
// nextTick callback, timer and immediate (lib/internal/cure/callbacks.js) and
// V8 counts each promise reaction. When one runs past its budget this asks
// V8, through v8::TimeoutInterrupt, to throw a TimeoutError where the
// callback is running; V8 asks back (Check()) whether that callback is still
// the one running, so a late request never hits the next callback.
//
// Created on first use (the option or the node:cure API) and destroyed by an
// Environment cleanup hook, which stops the watchdog before the isolate goes.
//
// What happens to a callback past its budget is the action
// (--event-loop-timeout-action): kThrow throws the TimeoutError; kReport lets
// the callback run on and only reports it: at the same check where the error
// would be thrown, an error is made (its stack is where the callback was)
// but not thrown, the rest of the callback runs without a budget, and the
// error is published with action 'report' (the process warning is JS's:
// lib/internal/cure/report.js). Synchronous calls are then not stopped.
class EventLoopTimeout final : public v8::TimeoutInterrupt::Delegate {
 public:
  enum class Action : uint32_t { kThrow, kReport };

  // The Environment's instance, created if needed.
  static EventLoopTimeout* From(Environment* env);
  // The Environment's instance, or null if the feature was never used on
  // its thread: for readers, which must not install the V8 delegate (and
  // so switch the isolate's builtins to their polling paths).
  static EventLoopTimeout* Find(Environment* env);
  // InternalCallbackScope::Close() begins: the outermost callback's own code
  // has returned. What its scope still runs (async_hooks' after, microtasks,
  // ticks) is timed afresh as a new callback, so a timeout that fires from
  // now on for the old one is stale (Check() drops it) and never thrown into
  // Node's own code. A no-op between callbacks and without a watchdog;
  // inline: a test of a thread-local word on every callback.
  static void RestartOutermostCallback(Environment* env) {
    if (current_ != nullptr) RestartOutermostCallbackSlow(env);
  }

  EventLoopTimeout(const EventLoopTimeout&) = delete;
  EventLoopTimeout& operator=(const EventLoopTimeout&) = delete;

  TimeoutWatchdog* watchdog() { return &watchdog_; }
  // The watchdog's shared words as an ArrayBuffer's memory, for JS. They
  // stay valid while the buffer lives, even after the Environment is gone.
  std::shared_ptr<v8::BackingStore> fields_store();
  void SetBudget(uint64_t budget_ms) { watchdog_.SetBudget(budget_ms); }
  uint64_t budget() const { return watchdog_.budget(); }
  // --event-loop-turn-timeout (TimeoutWatchdog::SetTurnBudget()).
  void SetTurnBudget(uint64_t budget_ms) {
    watchdog_.SetTurnBudget(budget_ms);
  }
  uint64_t turn_budget() const { return watchdog_.turn_budget(); }
  // Callbacks (and turns) past their budget handled by throwing, and those
  // only reported (one report per callback).
  uint64_t timeouts() const {
    return watchdog_.timeouts() -
           report_mode_timeouts_.load(std::memory_order_relaxed);
  }
  uint64_t reports() const { return reports_made_; }
  void SetAction(Action action) {
    action_.store(action, std::memory_order_relaxed);
  }
  Action action() const { return action_.load(std::memory_order_relaxed); }
  // Set by JS when the feature is first used: publish(error, budgetMs,
  // action, elapsedMs), called once per timeout or report in the
  // interrupted callback's async context after it returned
  // (lib/internal/cure/callbacks.js: the cure:event-loop-timeout channel).
  void SetPublish(v8::Local<v8::Function> publish);

  // Synchronous calls (*Sync APIs; src/node_event_loop_timeout_sync.cc). Each
  // one that may block or run long is a
  // section of the loop thread's stop (uv/sync-stop.h; libuv makes every
  // synchronous uv_fs_*() call one, StoppableSyncCall the others) that a
  // timeout of the running callback stops: a blocking system call returns
  // EINTR, a CPU loop sees uv_threadpool_should_stop(). Nothing is
  // abandoned: the call returns on the loop thread.
  //
  // Loop thread, after a synchronous call failed: true if it failed because
  // it was stopped so. The V8 timeout requested for the same report is then
  // dropped: the caller throws StoppedCallError() in its place.
  static bool TakeStoppedCall(Environment* env);
  // The TimeoutError of a stopped synchronous call (code
  // ERR_EVENT_LOOP_TIMEOUT), `api` named in its message; published like
  // the ones V8 throws.
  static v8::Local<v8::Value> StoppedCallError(Environment* env,
                                               const char* api);
  // The same for a synchronous uv_fs_*() call, with upstream's syscall,
  // path and dest properties and err.outcome: 'none' (its system call was
  // interrupted before it did anything), or 'unknown' (a write or creating
  // open on a network or FUSE mount abandoned while it ran:
  // uv_sync_stop_call_abandoned()): UVException()'s hook.
  static v8::Local<v8::Value> StoppedFsCallError(Environment* env,
                                                 const char* syscall,
                                                 const char* path,
                                                 const char* dest);

  // Loop thread: for a synchronous call that polls for its stop without a
  // section (no signal may reach it: node:sqlite's progress handler, whose
  // library would take an EINTR for an I/O error). The running callback's
  // epoch if its timeout was reported to stop synchronous calls
  // (OnTimeout()) and it would stop one now (SyncCallToken()), else 0. A
  // few loads.
  static uint64_t DueSyncCallEpoch(Environment* env);
  // Loop thread, after such a poll stopped a call at `epoch`: as
  // TakeStoppedCall(), true if that is still the running callback's epoch
  // and its report stands; the V8 timeout of that report is then dropped,
  // and the caller throws StoppedCallError() in its place.
  static bool TakeDueSyncCall(Environment* env, uint64_t epoch);
  // Loop thread: the poll of a loop of Node's own that runs long on a
  // request's input and touches nothing another thread could be stopped in
  // (converting a parsed text to properties, measuring a string): if
  // DueSyncCallEpoch() says the running callback's timeout would stop a
  // synchronous call now, takes that stop (TakeDueSyncCall()) and throws
  // StoppedCallError(env, api); true if it did, and the caller returns at
  // once. A few loads when nothing is due: poll every few thousand steps.
  static bool ThrowIfSyncCallDue(Environment* env, const char* api);
  // Loop thread: FromV8Array() (util.h) for an array that a request can
  // make millions of elements long (a blob's parts): making a v8::Global of
  // each of 4 Mi elements took 0.1 s, and destroying them half that. Every
  // kElementsPerPoll elements it takes a due stop as ThrowIfSyncCallDue()
  // does, but throws StoppedCallError(env, api) only after
  // v8::Array::Iterate() returned, since its callback may not call into V8;
  // Nothing then, and `out` holds the Globals made so far.
  static constexpr uint32_t kElementsPerPoll = 4096;
  static v8::Maybe<void> FromV8ArrayStoppably(
      Environment* env,
      v8::Local<v8::Array> array,
      std::vector<v8::Global<v8::Value>>* out,
      const char* api);

  // A synchronous call that only its library can stop, and only from
  // another thread: SQLite's parser calls no progress handler, but its
  // tokenizer checks the flag that sqlite3_interrupt() sets
  // (src/node_sqlite_timeout.h). Loop thread: ArmForeignStop() just before
  // the call, DisarmForeignStop() just after, if it armed. It arms only
  // when the running callback has a budget and the action is to throw, and
  // not inside another armed call; it takes the call's token as a section
  // does (SyncCallToken()). Watchdog thread: OnTimeout() for that token
  // calls stop->Stop(epoch) once, under foreign_stop_mutex_, so never after
  // DisarmForeignStop() returned. The mutex is a leaf: Stop() takes no lock
  // of ours, and the watchdog calls OnTimeout() without its own.
  class ForeignStop {
   public:
    virtual void Stop(uint64_t epoch) = 0;

   protected:
    ~ForeignStop() = default;
  };
  // Loop thread: whether the running callback's synchronous calls would be
  // stopped now (a budget, the throw action): a few loads, to skip the
  // preparation of a foreign stop that could not arm.
  static bool SyncCallsStoppable(Environment* env);
  static bool ArmForeignStop(Environment* env, ForeignStop* stop);
  static void DisarmForeignStop(Environment* env);

  // v8::TimeoutInterrupt::Delegate, on the Environment's thread.
  v8::TimeoutInterrupt::Decision Check(uint64_t epoch) override;
  v8::Local<v8::Value> CreateError(v8::Isolate* isolate,
                                   uint64_t epoch) override;

 private:
  static void RestartOutermostCallbackSlow(Environment* env);
  // A TimeoutError was thrown into the running callback: its next one comes
  // one budget from now.
  static void RestartAfterThrow(TimeoutWatchdog* watchdog);

  // The thread's instance. One per Environment: Environments are keyed by
  // their isolate in V8's table, and Node runs one Environment per isolate
  // (a thread). Constant-initialised: read without a TLS wrapper call.
  static inline thread_local EventLoopTimeout* current_ = nullptr;

  explicit EventLoopTimeout(Environment* env);
  ~EventLoopTimeout() override;

  static void OnTimeout(void* data, uint64_t epoch, uint64_t budget_ms);
  // Watchdog thread: the armed ForeignStop's Stop(), if it has `epoch`.
  void StopForeignCall(uint64_t epoch);
  // uv_sync_stop_token_cb: the running callback's epoch if it has a budget.
  static uint64_t SyncCallToken(void* data);
  v8::Local<v8::Object> NewError(const std::string& message);
  // On the Environment's thread, with JS disallowed: captures the running
  // callback's async context and queues the publish() call for `error`.
  void SchedulePublish(v8::Local<v8::Context> context,
                       v8::Local<v8::Object> error,
                       Action action,
                       uint64_t budget_ms);
  // How long the reported callback (or turn) has run, in ms.
  uint64_t ElapsedMs() const;
  static void Cleanup(void* data);
  // What a report ran past, for messages: "callback ran longer than its
  // budget of 100 ms (--event-loop-timeout)", or, for a turn report, the
  // turn's.
  std::string Overrun(bool capital, bool turn) const;
  // Drops one of the two owners: the Environment (through Cleanup()) and
  // the ArrayBuffer over the fields, if JS has one.
  void Release();

  Environment* const env_;
  v8::Isolate* const isolate_;
  TimeoutWatchdog watchdog_;
  // watchdog_.fields(), kept so that SyncCallToken(), on every synchronous
  // call of a budgeted callback, reads them without a call.
  uint32_t* const fields_;
  v8::Global<v8::Function> publish_;
  std::shared_ptr<v8::BackingStore> fields_store_;
  std::atomic<int> owners_{1};
  // The context's queue, to tell whether V8 runs promise reactions (turn
  // reports are delivered only there; Check()).
  v8::MicrotaskQueue* microtask_queue_ = nullptr;
  std::atomic<uint64_t> reported_budget_ms_{0};
  std::atomic<uint64_t> reported_turn_budget_ms_{0};  // of turn reports
  // When the reported callback (or turn) began, as uv_hrtime().
  std::atomic<uint64_t> reported_since_{0};
  std::atomic<Action> action_{Action::kThrow};
  // Watchdog reports while the action was kReport, and reports made.
  std::atomic<uint64_t> report_mode_timeouts_{0};
  uint64_t reports_made_ = 0;  // loop thread only
  // The epoch of the last turn report (TimeoutWatchdog::reporting_turn()).
  std::atomic<uint64_t> turn_report_epoch_{0};
  // Timeouts reported by the watchdog; a report whose stopped call threw
  // its own TimeoutError is not thrown again by V8 (Check()).
  std::atomic<uint64_t> reports_{0};
  uv_sync_stop_t* sync_stop_ = nullptr;  // the loop thread's
  // The epoch of the last report that stopped synchronous calls
  // (OnTimeout(), uv_sync_stop_request()), for DueSyncCallEpoch().
  std::atomic<uint64_t> stop_requested_epoch_{0};
  uint64_t consumed_epoch_ = 0;          // loop thread only
  uint64_t consumed_report_ = 0;
  // The armed ForeignStop and its token (ArmForeignStop()): written by the
  // loop thread, read and cleared by the watchdog's, both under the mutex.
  uv_mutex_t foreign_stop_mutex_;
  ForeignStop* foreign_stop_ = nullptr;
  uint64_t foreign_stop_token_ = 0;
};

// Loop thread: one synchronous call that --event-loop-timeout may stop
// (EventLoopTimeout above) and that is not a uv_fs_*() call, which libuv
// brackets itself. A no-op unless the running callback has a budget.
class StoppableSyncCall {
 public:
  StoppableSyncCall() : entered_(uv_sync_stop_enter() != 0) {}
  ~StoppableSyncCall() { Leave(); }
  StoppableSyncCall(const StoppableSyncCall&) = delete;
  StoppableSyncCall& operator=(const StoppableSyncCall&) = delete;

  bool entered() const { return entered_; }
  // Ends the section (idempotent); true if it was stopped.
  bool Leave() {
    if (!entered_) return false;
    entered_ = false;
    return uv_sync_stop_leave() != 0;
  }
  // Ends the section; if it was stopped, throws its TimeoutError and
  // returns true.
  bool ThrowIfStopped(Environment* env, const char* api);

 private:
  bool entered_;
};

}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_EVENT_LOOP_TIMEOUT_H_
