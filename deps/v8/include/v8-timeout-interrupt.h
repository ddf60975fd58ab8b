// Copyright nodecure contributors. All rights reserved.
// Use of this source code is governed by a BSD-style license that can be
// found in V8's LICENSE file.

#ifndef INCLUDE_V8_TIMEOUT_INTERRUPT_H_
#define INCLUDE_V8_TIMEOUT_INTERRUPT_H_

#include <stddef.h>
#include <stdint.h>

#include "v8-local-handle.h"  // NOLINT(build/include_directory)
#include "v8config.h"         // NOLINT(build/include_directory)

namespace v8 {

class Isolate;
class Value;

/**
 * nodecure: a catchable timeout for running JavaScript.
 *
 * An embedder that bounds the time of its callbacks asks, from any thread,
 * for the JavaScript running in an isolate to be interrupted with an ordinary
 * exception (for Node.js, a TimeoutError) instead of being terminated. V8
 * throws it at the next point where that code checks for interrupts: a loop
 * back edge or a function entry in any tier, a backtracking regexp, a long
 * builtin that polls. There it is caught by try/catch, rejects the promise of
 * an async function, and unwinds like any throw.
 *
 * Each request carries an epoch of the embedder's (e.g. the id of the
 * callback that ran too long). Before delivering it V8 asks the delegate, on
 * the isolate's thread, whether that epoch is still the running one, so a
 * request that arrives too late is dropped rather than thrown into the next,
 * innocent callback, and one that arrives where nothing can receive it stays
 * armed until something can. Termination (TerminateExecution()) has priority
 * over a timeout and is never turned into one.
 *
 * The request uses the isolate's API interrupt as its trip wire, which every
 * tier checks, optimized loops included; no callback is queued.
 */
class V8_EXPORT TimeoutInterrupt {
 public:
  enum class Decision {
    kDeliver,  // Throw the error now.
    kDefer,    // Keep the request armed; ask again at the next check.
    kDrop,     // The request is stale: forget it.
  };

  class Delegate {
   public:
    virtual ~Delegate() = default;
    /**
     * Called on the isolate's thread where a requested timeout could be
     * thrown. Must not call into V8.
     */
    virtual Decision Check(uint64_t epoch) = 0;
    /**
     * Called on the isolate's thread after Check() said kDeliver: the value
     * to throw. JavaScript execution is not allowed here; allocate the object
     * through the API (e.g. Exception::Error and Object::SetPrototype). An
     * empty handle drops the request.
     */
    virtual Local<Value> CreateError(Isolate* isolate, uint64_t epoch) = 0;
  };

  /**
   * Installs (or, with nullptr, removes) the isolate's delegate. On the
   * isolate's thread; remove it before the isolate is disposed. Removing it
   * forgets any pending request.
   */
  static void SetDelegate(Isolate* isolate, Delegate* delegate);

  /**
   * Names the embedder's own scripts: those whose resource name starts with
   * `prefix` (at most kMaxEmbedderPrefix bytes; Node.js: "node:"). A timeout
   * that is due while one of them runs in the innermost script frame, past
   * its entry check, is deferred to the next check in other code (or at the
   * entry of one called from other code, where none of it has run), for at
   * most `max_ms` milliseconds from the first check that deferred it; then
   * it is thrown where it is due, as without this. So the embedder's
   * bookkeeping (a lazy getter, the setup of an object after the native
   * call that ran too long) is not left half done by an exception that its
   * own callers cannot expect. An empty prefix turns it off (the default).
   * On the isolate's thread, after SetDelegate().
   */
  static constexpr size_t kMaxEmbedderPrefix = 15;
  static void SetEmbedderScripts(Isolate* isolate, const char* prefix,
                                 uint32_t max_ms);

  /**
   * Requests a timeout for the given epoch. Thread-safe; a no-op without a
   * delegate. A later request replaces an earlier one that is still pending.
   */
  static void Request(Isolate* isolate, uint64_t epoch);

  /**
   * The address of the count of microtasks that the isolate's default
   * microtask queue has run, which V8 increments after each one. An embedder
   * that bounds each promise reaction samples it (from any thread; reads may
   * be torn only on platforms where intptr_t is not atomic) together with its
   * own callback ids. Valid for the isolate's lifetime.
   */
  static const intptr_t* MicrotaskCounter(Isolate* isolate);

 private:
  TimeoutInterrupt() = delete;
};

}  // namespace v8

#endif  // INCLUDE_V8_TIMEOUT_INTERRUPT_H_
