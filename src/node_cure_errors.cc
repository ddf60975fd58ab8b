#include "node_cure_errors.h"

#include <unordered_map>

#include "env-inl.h"
#include "node_errors.h"
#include "node_realm-inl.h"
#include "util-inl.h"
#include "uv.h"
#include "uv/timeout.h"

namespace node {
namespace cure {

using v8::Array;
using v8::Context;
using v8::EscapableHandleScope;
using v8::Exception;
using v8::Function;
using v8::Isolate;
using v8::Just;
using v8::Local;
using v8::Maybe;
using v8::MaybeLocal;
using v8::NewStringType;
using v8::Object;
using v8::String;
using v8::Value;

const char* CodeString(TimeoutCode code) {
  switch (code) {
#define V(name, string)                                                        \
  case TimeoutCode::name:                                                      \
    return string;
    NODE_CURE_TIMEOUT_ERROR_CODES(V)
#undef V
  }
  UNREACHABLE();
}

TimeoutCode ThreadpoolCode(int errorno) {
  switch (errorno) {
    case UV_ESLOWRESOURCE:
      return TimeoutCode::kSlowResource;
    case UV_EPOOLSTALLED:
      return TimeoutCode::kThreadpoolStalled;
    default:
      return TimeoutCode::kThreadpoolTimeout;
  }
}

std::string ThreadpoolMessage(int errorno) {
  switch (errorno) {
    case UV_ESLOWRESOURCE:
      return "resource refused: an earlier request on it ran past the "
             "threadpool budget (--threadpool-timeout)";
    case UV_EPOOLSTALLED:
      return "threadpool stalled: every worker is stuck in a task past its "
             "budget (--threadpool-timeout) and too many threads are "
             "abandoned to replace them; the request never ran";
    default:
      break;
  }
  std::string message = "threadpool task ran longer than its budget of " +
                        std::to_string(uv_threadpool_get_timeout()) +
                        " ms (--threadpool-timeout)";
  if (errorno == UV_EABANDONCAP)
    message += "; its thread was not replaced: too many abandoned threads";
  return message;
}

namespace {
// The prototypes given by the Environments of this thread.
thread_local std::unordered_map<Environment*, v8::Global<Object>> prototypes;
}  // namespace

void TimeoutErrors::SetPrototype(Environment* env, Local<Object> prototype) {
  auto [it, inserted] = prototypes.try_emplace(env);
  if (inserted) env->AddCleanupHook(Cleanup, env);
  it->second.Reset(env->isolate(), prototype);
}

void TimeoutErrors::Cleanup(void* env) {
  CHECK_EQ(prototypes.erase(static_cast<Environment*>(env)), 1);
}

Local<Object> TimeoutErrors::Prototype(Environment* env) {
  auto it = prototypes.find(env);
  if (it != prototypes.end()) return it->second.Get(env->isolate());
  // Not kept: a handle held from startup on would be one that a user-land
  // snapshot (--build-snapshot) cannot serialize.
  if (!env->can_call_into_js()) return Local<Object>();
  Isolate* isolate = env->isolate();
  Local<Context> context = env->context();
  Local<Function> require = env->principal_realm()->builtin_module_require();
  if (require.IsEmpty()) return Local<Object>();
  errors::TryCatchScope try_catch(env);
  Local<Value> id = OneByteString(isolate, "internal/cure/errors");
  Local<Value> exports;
  Local<Value> error_class;
  Local<Value> prototype;
  if (!require->Call(context, v8::Null(isolate), 1, &id).ToLocal(&exports) ||
      !exports->IsObject() ||
      !exports.As<Object>()
           ->Get(context, OneByteString(isolate, "TimeoutError"))
           .ToLocal(&error_class) ||
      !error_class->IsObject() ||
      !error_class.As<Object>()
           ->Get(context, OneByteString(isolate, "prototype"))
           .ToLocal(&prototype) ||
      !prototype->IsObject()) {
    return Local<Object>();
  }
  return prototype.As<Object>();
}

MaybeLocal<Object> TimeoutErrors::New(Environment* env,
                                      TimeoutCode code,
                                      const std::string& message) {
  Isolate* isolate = env->isolate();
  EscapableHandleScope scope(isolate);
  Local<Context> context = env->context();
  Local<String> text;
  if (!String::NewFromUtf8(isolate,
                           message.data(),
                           NewStringType::kNormal,
                           static_cast<int>(message.size()))
           .ToLocal(&text)) {
    return MaybeLocal<Object>();
  }
  // Its stack is the current one: where the callback was interrupted, or
  // the done callback of the request (as upstream's UVException()).
  Local<Object> error = Exception::Error(text).As<Object>();
  Local<Object> prototype = Prototype(env);
  if (!prototype.IsEmpty() &&
      error->SetPrototype(context, prototype).IsNothing()) {
    return MaybeLocal<Object>();
  }
  if (error
          ->CreateDataProperty(
              context, env->code_string(), OneByteString(isolate,
                                                         CodeString(code)))
          .IsNothing()) {
    return MaybeLocal<Object>();
  }
  return scope.Escape(error);
}

Maybe<bool> TimeoutErrors::SetString(Environment* env,
                                     Local<Object> error,
                                     Local<String> key,
                                     const char* value) {
  if (value == nullptr) return Just(true);
  Local<String> string;
  if (!String::NewFromUtf8(env->isolate(), value).ToLocal(&string))
    return v8::Nothing<bool>();
  return error->Set(env->context(), key, string);
}

Local<Array> TimeoutErrors::CodeStrings(Isolate* isolate) {
  Local<Value> codes[] = {
#define V(name, string) OneByteString(isolate, string),
      NODE_CURE_TIMEOUT_ERROR_CODES(V)
#undef V
  };
  return Array::New(isolate, codes, arraysize(codes));
}

}  // namespace cure
}  // namespace node
