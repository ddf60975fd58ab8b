#include "node_event_loop_timeout.h"

#include <string>

#include "async_context_frame.h"
#include "async_wrap-inl.h"
#include "node_cure_errors.h"
#include "env-inl.h"
#include "node_internals.h"
#include "node_threadpool_timeout.h"
#include "node_timeout_watchdog-inl.h"
#include "util-inl.h"

namespace node {

using v8::Array;
using v8::Context;
using v8::EscapableHandleScope;
using v8::Exception;
using v8::Function;
using v8::Global;
using v8::HandleScope;
using v8::Isolate;
using v8::Local;
using v8::Name;
using v8::Null;
using v8::Number;
using v8::Object;
using v8::PropertyFilter;
using v8::SKIP_STRINGS;
using v8::String;
using v8::TimeoutInterrupt;
using v8::Undefined;
using v8::Value;

namespace {
// How long V8 holds back a TimeoutError that is due in Node's own code (see
// the constructor): the internal code after a native call is short, and a
// long internal loop is still stopped, this much later.
constexpr uint32_t kInternalDeferMs = 10;

}  // namespace

EventLoopTimeout* EventLoopTimeout::From(Environment* env) {
  if (current_ != nullptr) {
    CHECK_EQ(current_->env_, env);
    return current_;
  }
  current_ = new EventLoopTimeout(env);
  return current_;
}

EventLoopTimeout* EventLoopTimeout::Find(Environment* env) {
  return current_ != nullptr && current_->env_ == env ? current_ : nullptr;
}

// A TimeoutError was thrown into the running callback, which may go on (it
// catches it, or a library's error handling runs): its next one comes one
// budget after this one, not one budget after the watchdog's last report,
// which a long builtin or call may have delayed (the next would then be
// thrown at once, into the code handling the first, often outside any
// catch). Timed afresh as a callback of its own, with the budget it had.
void EventLoopTimeout::RestartAfterThrow(TimeoutWatchdog* watchdog) {
  if ((watchdog->callback_id() & 1) == 0) return;
  const uint32_t own = watchdog->fields()[TimeoutWatchdog::kCallbackBudget];
  watchdog->BeginCallback();
  watchdog->SetCallbackBudget(own);
}

void EventLoopTimeout::RestartOutermostCallbackSlow(Environment* env) {
  if (current_->env_ != env ||
      env->async_callback_scope_depth() != 1) {
    return;
  }
  TimeoutWatchdog* watchdog = &current_->watchdog_;
  if (watchdog->callback_id() & 1) watchdog->BeginCallback();
}

EventLoopTimeout::EventLoopTimeout(Environment* env)
    : env_(env),
      isolate_(env->isolate()),
      watchdog_(OnTimeout, this),
      fields_(watchdog_.fields()) {
  CHECK_EQ(uv_mutex_init(&foreign_stop_mutex_), 0);
  {
    v8::HandleScope scope(isolate_);
    microtask_queue_ = env->context()->GetMicrotaskQueue();
  }
  watchdog_.SetProgressCounter(TimeoutInterrupt::MicrotaskCounter(isolate_));
  TimeoutInterrupt::SetDelegate(isolate_, this);
  // A stopped synchronous call may leave a job on the Priority Executor
  // that runs inside OpenSSL until it returns: exit() must not free what
  // it uses under it.
  ThreadPoolTimeout::GuardExit();
  // A TimeoutError lands in the application's code, not half way through
  // Node's own (a lazy getter, the setup of an object after a native call
  // that overran, an internal listener): V8 defers one that is due in a
  // script named node:* to the next check in other code, for at most
  // kInternalDeferMs (doc/api/cure.md).
  TimeoutInterrupt::SetEmbedderScripts(isolate_, "node:", kInternalDeferMs);
  env->set_callback_watchdog(&watchdog_);
  env->AddCleanupHook(Cleanup, this);
  // Null if the thread has a stop already (only one Environment per thread
  // uses this class): its synchronous calls are then not stopped.
  sync_stop_ = uv_sync_stop_register(SyncCallToken, this);
}

EventLoopTimeout::~EventLoopTimeout() {
  CHECK_EQ(owners_.load(), 0);
  CHECK_NULL(foreign_stop_);
  uv_mutex_destroy(&foreign_stop_mutex_);
}

void EventLoopTimeout::Cleanup(void* data) {
  auto* self = static_cast<EventLoopTimeout*>(data);
  // The thread first: no request after this.
  self->watchdog_.Stop();
  uv_sync_stop_unregister(self->sync_stop_);
  self->sync_stop_ = nullptr;
  TimeoutInterrupt::SetDelegate(self->isolate_, nullptr);
  self->env_->set_callback_watchdog(nullptr);
  self->publish_.Reset();
  self->fields_store_.reset();
  CHECK_EQ(current_, self);
  current_ = nullptr;
  self->Release();
}

void EventLoopTimeout::Release() {
  if (owners_.fetch_sub(1) == 1) delete this;
}

std::shared_ptr<v8::BackingStore> EventLoopTimeout::fields_store() {
  if (!fields_store_) {
    owners_.fetch_add(1);
    fields_store_ = v8::ArrayBuffer::NewBackingStore(
        watchdog_.fields(),
        TimeoutWatchdog::kFieldCount * sizeof(uint32_t),
        [](void*, size_t, void* self) {
          static_cast<EventLoopTimeout*>(self)->Release();
        },
        this);
  }
  return fields_store_;
}

void EventLoopTimeout::SetPublish(Local<Function> publish) {
  publish_.Reset(isolate_, publish);
}

void EventLoopTimeout::OnTimeout(void* data,
                                 uint64_t epoch,
                                 uint64_t budget_ms) {
  auto* self = static_cast<EventLoopTimeout*>(data);
  const bool report = self->action() == Action::kReport;
  self->reported_since_.store(self->watchdog_.reporting_since(),
                              std::memory_order_relaxed);
  if (report)
    self->report_mode_timeouts_.fetch_add(1, std::memory_order_relaxed);
  if (self->watchdog_.reporting_turn()) {
    self->reported_turn_budget_ms_.store(budget_ms,
                                         std::memory_order_relaxed);
    self->turn_report_epoch_.store(epoch, std::memory_order_release);
  } else {
    self->reported_budget_ms_.store(budget_ms, std::memory_order_relaxed);
  }
  self->reports_.fetch_add(1, std::memory_order_relaxed);
  // V8 first: when a stopped call returns, the TimeoutError is armed, so
  // that JS which goes on after it (a partial write) is stopped too.
  TimeoutInterrupt::Request(self->isolate_, epoch);
  if (!report) {
    self->stop_requested_epoch_.store(epoch, std::memory_order_release);
    uv_sync_stop_request(self->sync_stop_, epoch);
    self->StopForeignCall(epoch);
  }
}

TimeoutInterrupt::Decision EventLoopTimeout::Check(uint64_t epoch) {
  // A report whose stopped synchronous call threw its own TimeoutError?
  if (epoch == consumed_epoch_ &&
      reports_.load(std::memory_order_relaxed) == consumed_report_) {
    return TimeoutInterrupt::Decision::kDrop;
  }
  // A turn that ran too long: for whichever promise reaction of the callback
  // it named runs now, while the turn and that callback go on. Only inside
  // a reaction (V8 runs microtasks): Node's own code runs under a live
  // callback id between the callbacks of the queues (ticks, timers,
  // immediates), and a callback of those may not be the one that holds the
  // loop; V8 itself never throws it between two reactions (CanThrowHere()).
  // Nor into a reaction run with no budget or a longer one of its own
  // (runWithEventLoopTimeout()).
  if (epoch == turn_report_epoch_.load(std::memory_order_acquire)) {
    const uint32_t callback = watchdog_.callback_id();
    const uint32_t own =
        watchdog_.fields()[TimeoutWatchdog::kCallbackBudget];
    if ((callback & 1) != 0 && static_cast<uint32_t>(epoch) == callback &&
        (epoch >> 32) == watchdog_.turn() && microtask_queue_ != nullptr &&
        microtask_queue_->IsRunningMicrotasks() &&
        (own == TimeoutWatchdog::kUseDefaultBudget ||
         (own != TimeoutWatchdog::kNoBudget &&
          own <= reported_turn_budget_ms_.load(std::memory_order_relaxed)))) {
      return TimeoutInterrupt::Decision::kDeliver;
    }
    return TimeoutInterrupt::Decision::kDrop;
  }
  // Still the callback that ran too long, and still running?
  if ((epoch & 1) != 0 && epoch == watchdog_.epoch())
    return TimeoutInterrupt::Decision::kDeliver;
  return TimeoutInterrupt::Decision::kDrop;
}

// A TimeoutError with the code ERR_EVENT_LOOP_TIMEOUT
// (src/node_cure_errors.h). No JavaScript runs here.
Local<Object> EventLoopTimeout::NewError(const std::string& message) {
  return cure::TimeoutErrors::New(
             env_, cure::TimeoutCode::kEventLoopTimeout, message)
      .FromMaybe(Local<Object>());
}

Local<Value> EventLoopTimeout::CreateError(Isolate* isolate, uint64_t epoch) {
  EscapableHandleScope scope(isolate);
  Local<Context> context = env_->context();
  // Made here, where the callback is interrupted: its stack is the
  // callback's at this point, also when it is only reported.
  const bool turn =
      epoch == turn_report_epoch_.load(std::memory_order_acquire);
  const uint64_t budget_ms =
      (turn ? reported_turn_budget_ms_ : reported_budget_ms_)
          .load(std::memory_order_relaxed);
  Local<Object> error = NewError(Overrun(true, turn));
  if (error.IsEmpty()) return Local<Value>();
  if (action() == Action::kReport) {
    // The rest of the callback runs on without a budget: one report per
    // callback. V8 throws nothing for an empty handle.
    if (watchdog_.callback_id() & 1) {
      watchdog_.BeginCallback();
      watchdog_.SetCallbackBudget(TimeoutWatchdog::kNoBudget);
    }
    reports_made_++;
    SchedulePublish(context, error, Action::kReport, budget_ms);
    return Local<Value>();
  }
  RestartAfterThrow(&watchdog_);
  SchedulePublish(context, error, Action::kThrow, budget_ms);
  return scope.Escape(error);
}

uint64_t EventLoopTimeout::ElapsedMs() const {
  const uint64_t since = reported_since_.load(std::memory_order_relaxed);
  const uint64_t now = uv_hrtime();
  return since != 0 && now > since ? (now - since) / 1000000 : 0;
}

std::string EventLoopTimeout::Overrun(bool capital, bool turn) const {
  const std::string ms =
      std::to_string(turn ? reported_turn_budget_ms_.load(
                                std::memory_order_relaxed)
                          : reported_budget_ms_.load(
                                std::memory_order_relaxed));
  if (turn) {
    return std::string(capital ? "T" : "t") +
           "urn of the event loop ran longer than its budget of " + ms +
           " ms (--event-loop-turn-timeout)";
  }
  return std::string(capital ? "C" : "c") +
         "allback ran longer than its budget of " + ms +
         " ms (--event-loop-timeout)";
}

// What JS keeps on a JS resource for its callback's async context: its own
// symbol-keyed data properties (AsyncLocalStorage's stores, the frame of
// AsyncContextFrame), copied as they are now, at the overrun, into an object
// with a null prototype; empty if there are none. Runs no JS: not for a
// proxy or an API object (a native resource keeps its frame in C++), and
// an accessor is left out. Taken now because Node.js 24 clears a timer's
// and an immediate's as soon as its callback returns
// (lib/internal/timers.js: removeStoresFromResource()), before the publish.
static Local<Object> KeptBy(Local<Context> context, Local<Object> resource) {
  Isolate* isolate = context->GetIsolate();
  if (resource->IsProxy() || resource->InternalFieldCount() > 0) return {};
  Local<Array> keys;
  if (!resource
           ->GetOwnPropertyNames(
               context, static_cast<PropertyFilter>(SKIP_STRINGS))
           .ToLocal(&keys) ||
      keys->Length() == 0) {
    return {};
  }
  Local<Object> kept = Object::New(isolate, Null(isolate), nullptr, nullptr, 0);
  Local<String> value_string = FIXED_ONE_BYTE_STRING(isolate, "value");
  for (uint32_t i = 0; i < keys->Length(); i++) {
    Local<Value> key;
    Local<Value> descriptor;
    Local<Value> value;
    if (!keys->Get(context, i).ToLocal(&key) || !key->IsName() ||
        !resource->GetOwnPropertyDescriptor(context, key.As<Name>())
             .ToLocal(&descriptor) ||
        !descriptor->IsObject() ||
        !descriptor.As<Object>()
             ->HasOwnProperty(context, value_string)
             .FromMaybe(false) ||
        !descriptor.As<Object>()->Get(context, value_string).ToLocal(&value) ||
        kept->CreateDataProperty(context, key.As<Name>(), value).IsNothing()) {
      continue;
    }
  }
  return kept;
}

// The resource that publish() runs in: `resource` itself, or, if something
// was kept at the overrun, an object whose prototype is `resource` and
// whose own properties are what was kept, each replaced by the resource's
// value now unless that is undefined (cleared). So a store that the
// callback's code restored after the overrun (Node.js 22, async_hooks)
// wins, and one Node.js cleared since comes back.
static Local<Object> WithKept(Local<Context> context,
                              Local<Object> resource,
                              Local<Object> kept) {
  Isolate* isolate = context->GetIsolate();
  v8::TryCatch try_catch(isolate);  // A getter of the resource may throw.
  Local<Array> keys;
  if (kept.IsEmpty() ||
      !kept->GetOwnPropertyNames(context,
                                 static_cast<PropertyFilter>(SKIP_STRINGS))
           .ToLocal(&keys)) {
    return resource;
  }
  Local<Object> merged = Object::New(isolate, resource, nullptr, nullptr, 0);
  for (uint32_t i = 0; i < keys->Length(); i++) {
    Local<Value> key;
    Local<Value> then;
    Local<Value> now;
    if (!keys->Get(context, i).ToLocal(&key) ||
        !kept->Get(context, key).ToLocal(&then) ||
        !resource->Get(context, key).ToLocal(&now) ||
        merged
            ->CreateDataProperty(
                context, key.As<Name>(), now->IsUndefined() ? then : now)
            .IsNothing()) {
      return resource;
    }
  }
  return merged;
}

void EventLoopTimeout::SchedulePublish(Local<Context> context,
                                       Local<Object> error,
                                       Action action,
                                       uint64_t budget_ms) {
  if (publish_.IsEmpty()) return;
  // The async context of the callback being interrupted, read as JS's
  // executionAsyncResource() does, without running any JS: an own element
  // of the resource stack that JS keeps, else the one native code pushed.
  AsyncHooks* hooks = env_->async_hooks();
  const async_context ids = {env_->execution_async_id(),
                             env_->trigger_async_id()};
  // With AsyncContextFrame, the frame is the one the callback began in, not
  // the one current now (that of an AsyncLocalStorage run() inside it, which
  // ends before the publish): a native resource's (AsyncWrap's own); for a
  // JS resource, publish() finds the frame that JS keeps on it (KeptBy()).
  Local<Object> resource;
  Local<Object> kept;
  Local<Value> frame = async_context_frame::current(isolate_);
  const uint32_t depth = hooks->fields()[AsyncHooks::kStackLength];
  if (depth > 0) {
    const uint32_t index = depth - 1;
    Local<Array> js_resources = hooks->js_execution_async_resources();
    Local<Value> value;
    if (index < js_resources->Length() &&
        js_resources->HasRealIndexedProperty(context, index).FromMaybe(false) &&
        js_resources->Get(context, index).ToLocal(&value) &&
        value->IsObject()) {
      resource = value.As<Object>();
      kept = KeptBy(context, resource);
    } else {
      resource = hooks->native_execution_async_resource(index);
      if (!resource.IsEmpty() &&
          env_->async_wrap_ctor_template()->HasInstance(resource)) {
        AsyncWrap* wrap = BaseObject::FromJSObject<AsyncWrap>(resource);
        if (wrap != nullptr) frame = wrap->context_frame();
      }
    }
  }
  if (resource.IsEmpty()) resource = Object::New(isolate_);

  env_->SetImmediate([publish = Global<Function>(isolate_, publish_),
                      error = Global<Object>(isolate_, error),
                      resource = Global<Object>(isolate_, resource),
                      kept = Global<Object>(isolate_, kept),
                      frame = Global<Value>(isolate_, frame),
                      ids,
                      budget_ms,
                      report = action == Action::kReport,
                      elapsed_ms = ElapsedMs()](Environment* env) {
    Isolate* isolate = env->isolate();
    HandleScope handle_scope(isolate);
    Local<Context> context = env->context();
    Context::Scope context_scope(context);
    // Like the callback's own scope, but without emitting async_hooks'
    // before/after for it a second time.
    Local<Object> in =
        WithKept(context, resource.Get(isolate), kept.Get(isolate));
    InternalCallbackScope scope(env,
                                in,
                                ids,
                                InternalCallbackScope::kSkipAsyncHooks,
                                frame.Get(isolate));
    if (scope.Failed()) return;
    Local<Value> argv[] = {
        error.Get(isolate),
        Number::New(isolate, static_cast<double>(budget_ms)),
        report ? FIXED_ONE_BYTE_STRING(isolate, "report")
               : FIXED_ONE_BYTE_STRING(isolate, "throw"),
        Number::New(isolate, static_cast<double>(elapsed_ms))};
    if (publish.Get(isolate)
            ->Call(context, Undefined(isolate), arraysize(argv), argv)
            .IsEmpty()) {
      scope.MarkAsFailed();
    }
  });
}

}  // namespace node
