// nodecure: internalBinding('cure'), the native side of node:cure
// (lib/cure.js, lib/internal/cure/*.js, doc/api/cure.md).

#include "env-inl.h"
#include "node_binding.h"
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

// setCallbackBudget(ms): the rest of the running callback is timed afresh,
// as a callback of its own, with a budget of ms (0: the default,
// 0xFFFFFFFF: none); returns the budget it had.
static void SetCallbackBudget(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(args[0]->IsUint32());
  TimeoutWatchdog* watchdog = EventLoopTimeout::From(env)->watchdog();
  uint32_t previous = watchdog->fields()[TimeoutWatchdog::kCallbackBudget];
  // Inside a callback only: between callbacks there is nothing to time.
  if (watchdog->callback_id() & 1) {
    watchdog->BeginCallback();
    watchdog->SetCallbackBudget(args[0].As<v8::Uint32>()->Value());
  }
  args.GetReturnValue().Set(previous);
}

// wakeWatchdog(): JS began a callback and saw the watchdog asleep.
static void WakeWatchdog(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  EventLoopTimeout::From(env)->watchdog()->WakeIfSleeping();
}

// setEventLoopTimeoutHooks(TimeoutError.prototype, publish)
static void SetEventLoopTimeoutHooks(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(args[0]->IsObject());
  CHECK(args[1]->IsFunction());
  EventLoopTimeout::From(env)->SetHooks(args[0].As<Object>(),
                                        args[1].As<Function>());
}

static void Initialize(Local<Object> target,
                       Local<Value> unused,
                       Local<Context> context,
                       void* priv) {
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
  // --threadpool-timeout (src/node_threadpool_timeout.cc).
  ThreadPoolTimeout::InitializeBinding(context, target);
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
  ThreadPoolTimeout::RegisterExternalReferences(registry);
}

}  // namespace cure
}  // namespace node

NODE_BINDING_CONTEXT_AWARE_INTERNAL(cure, node::cure::Initialize)
NODE_BINDING_EXTERNAL_REFERENCE(cure, node::cure::RegisterExternalReferences)
