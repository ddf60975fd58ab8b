// nodecure: internalBinding('cure'), the native side of node:cure
// (lib/cure.js, lib/internal/cure/*.js, doc/api/cure.md).

#include <optional>

#include "env-inl.h"
#include "node_binding.h"
#include "node_cure_errors.h"
#include "node_event_loop_timeout.h"
#include "node_external_reference.h"
#include "node_threadpool_timeout.h"
#include "node_timeout_watchdog-inl.h"
#include "util-inl.h"

namespace node {
namespace cure {

using v8::ArrayBuffer;
using v8::Context;
using v8::Function;
using v8::FunctionCallbackInfo;
using v8::Integer;
using v8::Isolate;
using v8::Local;
using v8::Number;
using v8::Object;
using v8::Uint32Array;
using v8::Value;

// setEventLoopTimeout(ms): the default budget of this thread's callbacks.
static void SetEventLoopTimeout(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(args[0]->IsNumber());
  double ms = args[0].As<Number>()->Value();
  CHECK(ms >= 0 && ms <= 2147483647);  // Validated in JS.
  EventLoopTimeout::From(env)->SetBudget(static_cast<uint64_t>(ms));
}

// setEventLoopTurnTimeout(ms): the budget of this thread's turns.
static void SetEventLoopTurnTimeout(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(args[0]->IsNumber());
  double ms = args[0].As<Number>()->Value();
  CHECK(ms >= 0 && ms <= 2147483647);  // Validated in JS.
  EventLoopTimeout::From(env)->SetTurnBudget(static_cast<uint64_t>(ms));
}

// setEventLoopTimeoutAction(action): 0 throws (the default), 1 reports
// (EventLoopTimeout::Action).
static void SetEventLoopTimeoutAction(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(args[0]->IsUint32());
  const uint32_t action = args[0].As<v8::Uint32>()->Value();
  CHECK_LE(action, 1);  // Validated in JS.
  EventLoopTimeout::From(env)->SetAction(
      static_cast<EventLoopTimeout::Action>(action));
}

// getEventLoopTimeoutState(): [budget in ms, timeouts so far, turn budget
// in ms, reports so far, action]. Side-effect free: without a watchdog on
// this thread, the feature is off ([0, 0, 0, 0, 0]).
static void GetEventLoopTimeoutState(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  EventLoopTimeout* timeout = EventLoopTimeout::Find(env);
  const uint64_t budget = timeout != nullptr ? timeout->budget() : 0;
  const uint64_t timeouts = timeout != nullptr ? timeout->timeouts() : 0;
  const uint64_t turn = timeout != nullptr ? timeout->turn_budget() : 0;
  const uint64_t reports = timeout != nullptr ? timeout->reports() : 0;
  const uint32_t action =
      timeout != nullptr ? static_cast<uint32_t>(timeout->action()) : 0;
  Local<Value> values[] = {
      Number::New(env->isolate(), static_cast<double>(budget)),
      Number::New(env->isolate(), static_cast<double>(timeouts)),
      Number::New(env->isolate(), static_cast<double>(turn)),
      Number::New(env->isolate(), static_cast<double>(reports)),
      Number::New(env->isolate(), action)};
  args.GetReturnValue().Set(
      v8::Array::New(env->isolate(), values, arraysize(values)));
}

// getCallbackFields(): a Uint32Array over the watchdog's shared words
// (TimeoutWatchdog::Field), through which JS marks callbacks and budgets.
static void GetCallbackFields(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  Local<ArrayBuffer> buffer = ArrayBuffer::New(
      env->isolate(), EventLoopTimeout::From(env)->fields_store());
  args.GetReturnValue().Set(
      Uint32Array::New(buffer, 0, TimeoutWatchdog::kFieldCount));
}

// setCallbackBudget(ms[, open]): the rest of the running callback is timed
// afresh, as a callback of its own, with a budget of ms (0: the default,
// 0xFFFFFFFF: none); returns the budget it had. Between callbacks there is
// nothing to time: the main module's first evaluation, and a callback that
// began before the feature was first used on the thread. There, with
// `open` (runWithEventLoopTimeout() and its wrapper, whose fn must get its
// budget wherever it is called), a callback is opened for the rest of the
// call and kOpenedCallback returned; given back as ms, it closes that
// callback again (the loop is then between callbacks, as before).
static constexpr uint32_t kOpenedCallback = 0xFFFFFFFE;
static_assert(kOpenedCallback != TimeoutWatchdog::kNoBudget &&
              kOpenedCallback > 2147483647u);  // above any budget of JS's
static void SetCallbackBudget(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(args[0]->IsUint32());
  const uint32_t budget = args[0].As<v8::Uint32>()->Value();
  TimeoutWatchdog* watchdog = EventLoopTimeout::From(env)->watchdog();
  if (budget == kOpenedCallback) {
    // (A callback scope of C++'s inside fn may have ended it already.)
    if (watchdog->callback_id() & 1) watchdog->EndCallback();
    return;
  }
  uint32_t previous = watchdog->fields()[TimeoutWatchdog::kCallbackBudget];
  const bool inside = (watchdog->callback_id() & 1) != 0;
  if (inside || args[1]->IsTrue()) {
    watchdog->BeginCallback();
    watchdog->SetCallbackBudget(budget);
    if (!inside) previous = kOpenedCallback;
  }
  args.GetReturnValue().Set(previous);
}

// wakeWatchdog(): JS began a callback and saw the watchdog asleep.
static void WakeWatchdog(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  EventLoopTimeout::From(env)->watchdog()->WakeIfSleeping();
}

// setEventLoopTimeoutHooks(TimeoutError.prototype, publish): when the
// feature is first used on the thread.
static void SetEventLoopTimeoutHooks(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(args[0]->IsObject());
  CHECK(args[1]->IsFunction());
  TimeoutErrors::SetPrototype(env, args[0].As<Object>());
  EventLoopTimeout::From(env)->SetPublish(args[1].As<Function>());
}

// A string argument, or null for undefined.
class OptionalUtf8 {
 public:
  OptionalUtf8(Isolate* isolate, Local<Value> value) {
    if (!value->IsUndefined()) value_.emplace(isolate, value);
  }
  const char* get() const { return value_ ? **value_ : nullptr; }

 private:
  std::optional<Utf8Value> value_;
};

// newThreadpoolError(errno, syscall, path, dest, hostname, outcome): the
// TimeoutError of a threadpool request (DNSException); undefined for an
// argument it lacks.
static void NewThreadpoolError(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  Isolate* isolate = env->isolate();
  CHECK(args[0]->IsInt32());
  const OptionalUtf8 syscall(isolate, args[1]);
  const OptionalUtf8 path(isolate, args[2]);
  const OptionalUtf8 dest(isolate, args[3]);
  const OptionalUtf8 hostname(isolate, args[4]);
  Local<Object> error;
  if (ThreadPoolTimeout::NewThreadpoolError(env,
                                            args[0].As<v8::Int32>()->Value(),
                                            syscall.get(),
                                            path.get(),
                                            dest.get(),
                                            hostname.get(),
                                            args[5])
          .ToLocal(&error)) {
    args.GetReturnValue().Set(error);
  }
}

// newWorkTimeoutError(errno, kind, name): the TimeoutError of a crypto job
// or a zlib chunk (lib/zlib.js); name may be undefined.
static void NewWorkTimeoutError(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  Isolate* isolate = env->isolate();
  CHECK(args[0]->IsInt32());
  CHECK(args[1]->IsString());
  Utf8Value kind(isolate, args[1]);
  const OptionalUtf8 name(isolate, args[2]);
  Local<Object> error;
  if (ThreadPoolTimeout::NewWorkError(
          env, args[0].As<v8::Int32>()->Value(), *kind, name.get())
          .ToLocal(&error)) {
    args.GetReturnValue().Set(error);
  }
}

// --threadpool-timeout (src/node_threadpool_timeout.h): process-wide, as
// the pool is.

static void GetThreadpoolTimeout(const FunctionCallbackInfo<Value>& args) {
  args.GetReturnValue().Set(
      static_cast<double>(ThreadPoolTimeout::budget()));
}

// Whether a budget was ever set: only then is a UV_ETIMEDOUT ours.
static void IsThreadpoolTimeoutEverEnabled(
    const FunctionCallbackInfo<Value>& args) {
  args.GetReturnValue().Set(ThreadPoolTimeout::ever_enabled());
}

// 0: a task past its budget is stopped (throw), 1: only reported.
static void GetThreadpoolTimeoutAction(
    const FunctionCallbackInfo<Value>& args) {
  args.GetReturnValue().Set(ThreadPoolTimeout::report_only() ? 1 : 0);
}

static void SetThreadpoolTimeoutAction(
    const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(env->is_main_thread());  // Checked in JS: the pool is process-wide.
  CHECK(args[0]->IsUint32());
  const uint32_t action = args[0].As<v8::Uint32>()->Value();
  CHECK_LE(action, 1);  // Validated in JS.
  ThreadPoolTimeout::SetReportOnly(action == 1);
}

static void SetThreadpoolTimeout(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(env->is_main_thread());  // Checked in JS: the pool is process-wide.
  CHECK(args[0]->IsNumber());
  double ms = args[0].As<Number>()->Value();
  CHECK(ms >= 0 && ms <= 2147483647);  // Validated in JS.
  ThreadPoolTimeout::SetBudget(static_cast<uint64_t>(ms));
}

// getThreadpoolStats(): the uv_threadpool_stats_t counters, in order.
static void GetThreadpoolStats(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  uv_threadpool_stats_t stats;
  uv_threadpool_get_stats(&stats);
  const uint64_t counters[] = {stats.timed_out,
                               stats.extended,
                               stats.abandoned,
                               stats.abandoned_live,
                               stats.cap_hits,
                               stats.slow_resources,
                               stats.slow_resource_marks,
                               stats.slow_resource_hits,
                               stats.kept_live,
                               stats.stalled,
                               stats.reported,
                               stats.hopped};
  Local<Value> values[arraysize(counters)];
  for (size_t i = 0; i < arraysize(counters); i++)
    values[i] = Number::New(isolate, static_cast<double>(counters[i]));
  args.GetReturnValue().Set(
      v8::Array::New(isolate, values, arraysize(values)));
}

static void ClearSlowResources(const FunctionCallbackInfo<Value>& args) {
  uv_fs_slow_resource_clear();
}

static void Initialize(Local<Object> target,
                       Local<Value> unused,
                       Local<Context> context,
                       void* priv) {
  Isolate* isolate = context->GetIsolate();
  SetMethod(context, target, "setEventLoopTimeout", SetEventLoopTimeout);
  SetMethod(
      context, target, "setEventLoopTurnTimeout", SetEventLoopTurnTimeout);
  SetMethod(context,
            target,
            "setEventLoopTimeoutAction",
            SetEventLoopTimeoutAction);
  SetMethodNoSideEffect(
      context, target, "getEventLoopTimeoutState", GetEventLoopTimeoutState);
  SetMethod(context, target, "getCallbackFields", GetCallbackFields);
  SetMethod(context, target, "setCallbackBudget", SetCallbackBudget);
  SetMethod(context, target, "wakeWatchdog", WakeWatchdog);
  SetMethod(
      context, target, "setEventLoopTimeoutHooks", SetEventLoopTimeoutHooks);
  // TimeoutErrors (src/node_cure_errors.h).
  SetMethod(context, target, "newThreadpoolError", NewThreadpoolError);
  SetMethod(context, target, "newWorkTimeoutError", NewWorkTimeoutError);
  USE(target->Set(context,
                  FIXED_ONE_BYTE_STRING(isolate, "timeoutErrorCodes"),
                  TimeoutErrors::CodeStrings(isolate)));
  // --threadpool-timeout.
  SetMethodNoSideEffect(
      context, target, "getThreadpoolTimeout", GetThreadpoolTimeout);
  SetMethodNoSideEffect(context,
                        target,
                        "isThreadpoolTimeoutEverEnabled",
                        IsThreadpoolTimeoutEverEnabled);
  SetMethod(context, target, "setThreadpoolTimeout", SetThreadpoolTimeout);
  SetMethodNoSideEffect(
      context, target, "getThreadpoolTimeoutAction", GetThreadpoolTimeoutAction);
  SetMethod(
      context, target, "setThreadpoolTimeoutAction", SetThreadpoolTimeoutAction);
  SetMethodNoSideEffect(
      context, target, "getThreadpoolStats", GetThreadpoolStats);
  SetMethod(context, target, "clearSlowResources", ClearSlowResources);
  // The uv error numbers of lib/internal/cure/threadpool.js.
  USE(target->Set(context,
                  FIXED_ONE_BYTE_STRING(isolate, "UV_ETIMEDOUT"),
                  Integer::New(isolate, UV_ETIMEDOUT)));
  USE(target->Set(context,
                  FIXED_ONE_BYTE_STRING(isolate, "UV_EABANDONCAP"),
                  Integer::New(isolate, UV_EABANDONCAP)));
  USE(target->Set(context,
                  FIXED_ONE_BYTE_STRING(isolate, "UV_ESLOWRESOURCE"),
                  Integer::New(isolate, UV_ESLOWRESOURCE)));
  USE(target->Set(context,
                  FIXED_ONE_BYTE_STRING(isolate, "UV_EPOOLSTALLED"),
                  Integer::New(isolate, UV_EPOOLSTALLED)));

}

static void RegisterExternalReferences(ExternalReferenceRegistry* registry) {
  registry->Register(SetEventLoopTimeout);
  registry->Register(SetEventLoopTurnTimeout);
  registry->Register(SetEventLoopTimeoutAction);
  registry->Register(GetEventLoopTimeoutState);
  registry->Register(GetCallbackFields);
  registry->Register(SetCallbackBudget);
  registry->Register(WakeWatchdog);
  registry->Register(SetEventLoopTimeoutHooks);
  registry->Register(NewThreadpoolError);
  registry->Register(NewWorkTimeoutError);
  registry->Register(GetThreadpoolTimeout);
  registry->Register(IsThreadpoolTimeoutEverEnabled);
  registry->Register(SetThreadpoolTimeout);
  registry->Register(GetThreadpoolTimeoutAction);
  registry->Register(SetThreadpoolTimeoutAction);
  registry->Register(GetThreadpoolStats);
  registry->Register(ClearSlowResources);
}

}  // namespace cure
}  // namespace node

NODE_BINDING_CONTEXT_AWARE_INTERNAL(cure, node::cure::Initialize)
NODE_BINDING_EXTERNAL_REFERENCE(cure, node::cure::RegisterExternalReferences)
