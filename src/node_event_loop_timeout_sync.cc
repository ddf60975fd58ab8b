// nodecure: the synchronous half of --event-loop-timeout (EventLoopTimeout,
// src/node_event_loop_timeout.h): a *Sync API that blocks or runs long is a
// section of the loop thread's stop (uv/sync-stop.h), which a timeout of the
// running callback stops; the call returns on the loop thread and throws
// the callback's TimeoutError in V8's place.
//
//   loop thread (a callback with a budget)      watchdog thread
//   fs.readFileSync(fifo)
//     uv_fs_*() enters a section, which
//     SyncCallToken() gives the callback's epoch
//     ... open() blocks ...                       the budget passes: OnTimeout()
//                                                 requests V8's interrupt and
//                                                 uv_sync_stop_request(epoch)
//     open() returns EINTR (a CPU loop sees
//     uv_threadpool_should_stop() instead)
//     UVException() (src/api/exceptions.cc):
//     TakeStoppedCall() takes the stop and marks
//     the report's V8 interrupt consumed (Check()
//     drops it); StoppedFsCallError() is thrown
//     (other calls: StoppableSyncCall::ThrowIfStopped())
//
// A stopped call has returned on the loop thread before its error is made;
// only a call that a hop ran on another thread (a write or creating open
// on a network or FUSE mount, uv/sync-stop.h) may be abandoned there, and
// its error says so (err.outcome 'unknown'). Loop thread only, as the
// sections are.

#include "node_event_loop_timeout.h"

#include <string>
#include <vector>

#include "env-inl.h"
#include "node_timeout_watchdog-inl.h"
#include "util-inl.h"

namespace node {

using v8::Array;
using v8::Context;
using v8::EscapableHandleScope;
using v8::Global;
using v8::Isolate;
using v8::JustVoid;
using v8::Local;
using v8::Maybe;
using v8::Nothing;
using v8::Object;
using v8::String;
using v8::Value;

uint64_t EventLoopTimeout::SyncCallToken(void* data) {
  auto* self = static_cast<EventLoopTimeout*>(data);
  TimeoutWatchdog& watchdog = self->watchdog_;
  if ((watchdog.callback_id() & 1) == 0) return 0;  // between callbacks
  if (self->action() == Action::kReport) return 0;  // calls are not stopped
  // The loop thread's own word (this callback's override).
  const uint32_t budget = self->fields_[TimeoutWatchdog::kCallbackBudget];
  if (budget == TimeoutWatchdog::kNoBudget ||
      (budget == TimeoutWatchdog::kUseDefaultBudget &&
       watchdog.budget() == 0)) {
    return 0;
  }
  return watchdog.epoch();
}

bool EventLoopTimeout::TakeStoppedCall(Environment* env) {
  EventLoopTimeout* self = Find(env);
  if (self == nullptr) return false;
  // A stop of this callback's last section (an older one that nobody
  // reported, e.g. existsSync()'s, is forgotten).
  const uint64_t epoch = self->watchdog_.epoch();
  if (uv_sync_stop_take() != epoch) return false;
  // The stop was requested after its report was counted (OnTimeout()).
  self->consumed_epoch_ = epoch;
  self->consumed_report_ = self->reports_.load(std::memory_order_relaxed);
  return true;
}

uint64_t EventLoopTimeout::DueSyncCallEpoch(Environment* env) {
  EventLoopTimeout* self = Find(env);
  if (self == nullptr) return 0;
  const uint64_t epoch =
      self->stop_requested_epoch_.load(std::memory_order_acquire);
  if (epoch == 0 || epoch != SyncCallToken(self)) return 0;
  return epoch;
}

bool EventLoopTimeout::TakeDueSyncCall(Environment* env, uint64_t epoch) {
  EventLoopTimeout* self = Find(env);
  if (self == nullptr || epoch == 0 || epoch != SyncCallToken(self) ||
      self->stop_requested_epoch_.load(std::memory_order_acquire) != epoch) {
    return false;
  }
  // As TakeStoppedCall(): the report that asked for the stop is consumed.
  self->consumed_epoch_ = epoch;
  self->consumed_report_ = self->reports_.load(std::memory_order_relaxed);
  return true;
}

bool EventLoopTimeout::ThrowIfSyncCallDue(Environment* env, const char* api) {
  const uint64_t epoch = DueSyncCallEpoch(env);
  if (epoch == 0 || !TakeDueSyncCall(env, epoch)) return false;
  Local<Value> error = StoppedCallError(env, api);
  if (!error.IsEmpty()) env->isolate()->ThrowException(error);
  return true;
}

namespace {

struct StoppableIteration {
  Environment* env;
  std::vector<Global<Value>>* out;
  bool stopped = false;
};

// v8::Array::Iterate()'s callback: no call into V8 but the Global's.
Array::CallbackResult PushItemOrStop(uint32_t /* index */,
                                     Local<Value> element,
                                     void* data) {
  auto* iteration = static_cast<StoppableIteration*>(data);
  // Counted by the elements taken, not by `index`: a sparse array's are
  // its keys, which could all miss the multiples.
  const size_t taken = iteration->out->size();
  if ((taken + 1) % EventLoopTimeout::kElementsPerPoll == 0) {
    Environment* env = iteration->env;
    const uint64_t epoch = EventLoopTimeout::DueSyncCallEpoch(env);
    if (epoch != 0 && EventLoopTimeout::TakeDueSyncCall(env, epoch)) {
      iteration->stopped = true;
      return Array::CallbackResult::kBreak;
    }
  }
  iteration->out->emplace_back(iteration->env->isolate(), element);
  return Array::CallbackResult::kContinue;
}

}  // namespace

Maybe<void> EventLoopTimeout::FromV8ArrayStoppably(
    Environment* env,
    Local<Array> array,
    std::vector<Global<Value>>* out,
    const char* api) {
  out->reserve(array->Length());
  StoppableIteration iteration{env, out};
  if (array->Iterate(env->context(), PushItemOrStop, &iteration).IsNothing()) {
    return Nothing<void>();
  }
  if (!iteration.stopped) return JustVoid();
  Local<Value> error = StoppedCallError(env, api);
  if (!error.IsEmpty()) env->isolate()->ThrowException(error);
  return Nothing<void>();
}

bool EventLoopTimeout::SyncCallsStoppable(Environment* env) {
  EventLoopTimeout* self = Find(env);
  return self != nullptr && SyncCallToken(self) != 0;
}

bool EventLoopTimeout::ArmForeignStop(Environment* env, ForeignStop* stop) {
  EventLoopTimeout* self = Find(env);
  if (self == nullptr) return false;
  const uint64_t token = SyncCallToken(self);
  if (token == 0) return false;  // no budget, or only reports
  uv_mutex_lock(&self->foreign_stop_mutex_);
  const bool arm = self->foreign_stop_ == nullptr;  // not inside another
  if (arm) {
    self->foreign_stop_ = stop;
    self->foreign_stop_token_ = token;
  }
  uv_mutex_unlock(&self->foreign_stop_mutex_);
  return arm;
}

void EventLoopTimeout::DisarmForeignStop(Environment* env) {
  EventLoopTimeout* self = Find(env);
  CHECK_NOT_NULL(self);
  uv_mutex_lock(&self->foreign_stop_mutex_);
  self->foreign_stop_ = nullptr;  // or cleared by StopForeignCall()
  uv_mutex_unlock(&self->foreign_stop_mutex_);
}

void EventLoopTimeout::StopForeignCall(uint64_t epoch) {
  uv_mutex_lock(&foreign_stop_mutex_);
  if (foreign_stop_ != nullptr && foreign_stop_token_ == epoch) {
    foreign_stop_->Stop(epoch);
    foreign_stop_ = nullptr;  // once
  }
  uv_mutex_unlock(&foreign_stop_mutex_);
}

Local<Value> EventLoopTimeout::StoppedCallError(Environment* env,
                                                const char* api) {
  EventLoopTimeout* self = Find(env);
  CHECK_NOT_NULL(self);
  Isolate* isolate = env->isolate();
  EscapableHandleScope scope(isolate);
  Local<Context> context = env->context();
  Local<Object> error = self->NewError(
      std::string("Synchronous ") + api + " stopped: the " +
          self->Overrun(false, false));
  if (error.IsEmpty()) return Local<Value>();
  RestartAfterThrow(&self->watchdog_);
  self->SchedulePublish(
      context,
      error,
      Action::kThrow,
      self->reported_budget_ms_.load(std::memory_order_relaxed));
  return scope.Escape(error);
}

Local<Value> EventLoopTimeout::StoppedFsCallError(Environment* env,
                                                  const char* syscall,
                                                  const char* path,
                                                  const char* dest) {
  Isolate* isolate = env->isolate();
  EscapableHandleScope scope(isolate);
  Local<Context> context = env->context();
  Local<Value> error =
      StoppedCallError(env, syscall != nullptr ? syscall : "fs call");
  if (error.IsEmpty()) return Local<Value>();
  Local<Object> e = error.As<Object>();
  const struct {
    Local<String> key;
    const char* value;
  } properties[] = {{env->syscall_string(), syscall},
                    {env->path_string(), path},
                    {env->dest_string(), dest},
                    {FIXED_ONE_BYTE_STRING(isolate, "outcome"),
                     uv_sync_stop_call_abandoned() ? "unknown" : "none"}};
  for (const auto& property : properties) {
    Local<String> value;
    if (property.value == nullptr) continue;
    if (!String::NewFromUtf8(isolate, property.value).ToLocal(&value) ||
        e->Set(context, property.key, value).IsNothing()) {
      return Local<Value>();
    }
  }
  return scope.Escape(e);
}

bool StoppableSyncCall::ThrowIfStopped(Environment* env, const char* api) {
  if (!Leave() || !EventLoopTimeout::TakeStoppedCall(env)) return false;
  Local<Value> error = EventLoopTimeout::StoppedCallError(env, api);
  if (!error.IsEmpty()) env->isolate()->ThrowException(error);
  return true;
}

}  // namespace node
