// Copyright nodecure contributors. All rights reserved.
// Use of this source code is governed by a BSD-style license that can be
// found in V8's LICENSE file.

#ifndef V8_EXECUTION_TIMEOUT_INTERRUPT_H_
#define V8_EXECUTION_TIMEOUT_INTERRUPT_H_

#include <atomic>

#include "src/common/globals.h"
#include "src/execution/stack-guard.h"
#include "src/objects/tagged.h"

namespace v8 {
namespace internal {

class Isolate;

// nodecure: the V8 side of v8::TimeoutInterrupt (include/v8-timeout-interrupt.h).
// A request is kept in a process-wide table, per isolate, and armed with the
// isolate's API interrupt. Only the interrupt checks that pass an exception
// on (the runtime stack guards of every tier, the regexp engines,
// JSON.stringify) call HandleInterrupts() below and may throw it; every other
// check re-arms the wire through KeepArmed(), so the request is never lost.
class TimeoutInterrupts final : public AllStatic {
 public:
  // StackGuard::HandleInterrupts(level), then a pending timeout that its
  // delegate wants delivered now is thrown: returns the exception sentinel.
  static Tagged<Object> HandleInterrupts(
      Isolate* isolate, StackGuard::InterruptLevel level =
                            StackGuard::InterruptLevel::kAnyEffect);

  // At the end of StackGuard::HandleInterrupts: while a timeout is pending
  // for the isolate, its API interrupt stays requested.
  static void KeepArmed(Isolate* isolate) {
    if (pending_.load(std::memory_order_relaxed) != 0) KeepArmedSlow(isolate);
  }

  // Whether any isolate has a delegate: long builtins take their polling
  // paths only then, so that with the feature off they run as upstream's.
  static bool AnyInstalled() {
    return installed_.load(std::memory_order_relaxed) != 0;
  }

  // For long loops that poll only for us (raw-pointer loops cannot serve
  // interrupts at all): whether to stop now because a delegate is installed
  // and termination, or a timeout that would be thrown, is pending. Neither
  // allocates nor runs JS, and consumes nothing: the caller stops, leaves
  // its no-GC scope and calls ThrowIfDue() (or, where JS may run,
  // HandleInterrupts()). Cheap while no interrupt is requested: a load and
  // a stack-limit compare.
  static bool ShouldAbort(Isolate* isolate);

  // Whether a timeout that would be thrown is pending, read from the
  // requests rather than from the stack guard: for work inside a
  // PostponeInterruptsScope (RegExp compilation), where the stack guard
  // keeps the interrupt postponed. One relaxed load while none is pending.
  // Like ShouldAbort(), neither allocates nor runs JS.
  static bool IsDue(Isolate* isolate);
  // IsDue(), and what Deliver() checks besides: that the frames let it
  // throw here and that the embedder does not defer it. For work that fails
  // when it stops and cannot go on after (the parser and the bytecode
  // generator, which stop as for a stack overflow): ThrowIfDue() then
  // throws. Walks the stack: not from a fast C call. Starts the embedder's
  // deferral, as Deliver() would; neither allocates nor runs JS.
  static bool WouldThrowHere(Isolate* isolate);

  // After ShouldAbort() said yes, outside the no-GC scope: throws the
  // termination or the TimeoutError that is due, and serves no other
  // interrupt, so that no JS runs (only the error is allocated: raw pointers
  // must be read again). Returns the exception sentinel, or undefined if
  // nothing is due any more (the caller then goes on).
  static Tagged<Object> ThrowIfDue(Isolate* isolate);

  // For long loops of the runtime over a client-sized range that may run
  // JavaScript anyway (getters): serves the interrupts that are due, as a
  // stack check does, and returns true if that threw (a TimeoutError or
  // termination). A load and a compare while none is requested. Call it
  // every kPollInterval iterations.
  static bool PollThrew(Isolate* isolate);
  static constexpr size_t kPollInterval = size_t{1} << 16;

  // The long operations of the bigint library (multiplication, division,
  // conversion to and from strings of millions of digits) poll
  // BigIntPlatform::InterruptRequested(). Inside this scope, which the
  // runtime's BigInt functions open around them, that also says yes for a
  // timeout that would be thrown (ShouldAbort()): the operation stops and
  // its caller throws it (ThrowIfDue()), or computes again if nothing is
  // due any more. Outside (fast C calls from generated code, which cannot
  // throw) only termination stops them, as upstream.
  class V8_NODISCARD BigIntScope final {
   public:
    BigIntScope() { bigint_depth_++; }
    ~BigIntScope() { bigint_depth_--; }
    BigIntScope(const BigIntScope&) = delete;
    BigIntScope& operator=(const BigIntScope&) = delete;
  };
  static bool InBigIntScope() { return bigint_depth_ != 0; }

 private:
  friend class TimeoutInterruptTable;
  static void KeepArmedSlow(Isolate* isolate);
  static Tagged<Object> Deliver(Isolate* isolate);

  // Isolates with a pending request, process-wide: the fast path when no
  // timeout is pending (always, with the feature off) is one relaxed load.
  static std::atomic<int> pending_;
  // Isolates with a delegate, process-wide.
  static std::atomic<int> installed_;
  // BigIntScopes open on this thread.
  static thread_local int bigint_depth_;
};

}  // namespace internal
}  // namespace v8

#endif  // V8_EXECUTION_TIMEOUT_INTERRUPT_H_
