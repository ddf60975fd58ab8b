// nodecure: the one place a TimeoutError is made.
//
// Every error of a nodecure timeout is a TimeoutError (lib/internal/cure/
// errors.js, the global of doc/api/cure.md) with one of the codes below.
// They are made here, in C++, for every site:
//
//   where                               code                    through
//   V8 interrupts a callback (a report) ERR_EVENT_LOOP_TIMEOUT  EventLoopTimeout::CreateError()
//   a *Sync call is stopped             ERR_EVENT_LOOP_TIMEOUT  EventLoopTimeout::StoppedCallError()
//   an fs request past the threadpool   ERR_THREADPOOL_TIMEOUT, ThreadPoolTimeout::UVException()
//     budget, or refused (slow-         ERR_THREADPOOL_STALLED,
//     resource list)                    ERR_SLOW_RESOURCE
//   a crypto job                        ERR_THREADPOOL_*        ThreadPoolTimeout::NewWorkError()
//   a zlib chunk (lib/zlib.js)          ERR_THREADPOOL_*        newWorkTimeoutError()
//   dns.lookup(), lookupService()       ERR_THREADPOOL_*        newThreadpoolError()
//     (DNSException)
//
// The codes are listed once (NODE_CURE_TIMEOUT_ERROR_CODES) and exported to
// JS as internalBinding('cure').timeoutErrorCodes, where errors.js
// registers each with internal/errors' E(). No JavaScript runs to make an
// error: V8 asks for one where it interrupts a callback, where JS may not
// run. Only the prototype comes from JS: --event-loop-timeout's first use on
// a thread gives that thread's TimeoutError.prototype (enable() in
// lib/internal/cure/callbacks.js, before any budget, so before any error
// where JS may not run); elsewhere (a threadpool request's done callback,
// where JS may run) it is read from the builtin module each time, so that
// nothing is held from startup on (a user-land snapshot could not
// serialize it).

#ifndef SRC_NODE_CURE_ERRORS_H_
#define SRC_NODE_CURE_ERRORS_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <cstdint>
#include <string>

#include "v8.h"

namespace node {

class Environment;

namespace cure {

// Each code: its name here and its string, which is the error's `code`
// and never changes (doc/api/errors.md documents it).
#define NODE_CURE_TIMEOUT_ERROR_CODES(V)                                       \
  V(kEventLoopTimeout, "ERR_EVENT_LOOP_TIMEOUT")                               \
  V(kThreadpoolTimeout, "ERR_THREADPOOL_TIMEOUT")                              \
  V(kThreadpoolStalled, "ERR_THREADPOOL_STALLED")                              \
  V(kSlowResource, "ERR_SLOW_RESOURCE")

enum class TimeoutCode : uint8_t {
#define V(name, string) name,
  NODE_CURE_TIMEOUT_ERROR_CODES(V)
#undef V
};

const char* CodeString(TimeoutCode code);

// The code of a libuv threadpool error number (UV_ETIMEDOUT and
// UV_EABANDONCAP: the task ran past its budget; UV_EPOOLSTALLED;
// UV_ESLOWRESOURCE).
TimeoutCode ThreadpoolCode(int errorno);
// What became of a request with that number, for messages: "threadpool
// task ran longer than its budget of 100 ms (--threadpool-timeout)", ...
std::string ThreadpoolMessage(int errorno);

// Static only; each Environment's prototype is kept by its thread (an
// embedder may run several Environments on one thread). Loop thread only.
class TimeoutErrors {
 public:
  TimeoutErrors() = delete;

  // The thread's TimeoutError.prototype, from enable()
  // (setEventLoopTimeoutHooks()); kept until the Environment's cleanup.
  static void SetPrototype(Environment* env, v8::Local<v8::Object> prototype);

  // The TimeoutError with `code` and `message`, in env's context, with the
  // stack where it is made. Runs no JS once SetPrototype() ran (always so
  // where an event-loop budget interrupts); before that, reads the
  // prototype from the builtin module (JS). Empty only if V8 failed (an
  // exception is pending). Where JS can no longer run and no prototype was
  // given (an Environment being torn down, whose callbacks no longer run),
  // it is an Error with the same code and properties.
  static v8::MaybeLocal<v8::Object> New(Environment* env,
                                        TimeoutCode code,
                                        const std::string& message);

  // Sets `key` to `value` (a string; nothing if null) on `error`.
  static v8::Maybe<bool> SetString(Environment* env,
                                   v8::Local<v8::Object> error,
                                   v8::Local<v8::String> key,
                                   const char* value);

  // internalBinding('cure').timeoutErrorCodes: the code strings, in order.
  static v8::Local<v8::Array> CodeStrings(v8::Isolate* isolate);

 private:
  static void Cleanup(void* env);
  static v8::Local<v8::Object> Prototype(Environment* env);
};

}  // namespace cure
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_CURE_ERRORS_H_
