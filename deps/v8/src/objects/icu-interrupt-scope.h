// Copyright 2026 the nodecure authors. All rights reserved.
// Use of this source code is governed by a BSD-style license that can be
// found in the LICENSE file.

#ifndef V8_OBJECTS_ICU_INTERRUPT_SCOPE_H_
#define V8_OBJECTS_ICU_INTERRUPT_SCOPE_H_

#ifndef V8_INTL_SUPPORT
#error Internationalization is expected to be enabled.
#endif  // V8_INTL_SUPPORT

#include <optional>

#include "src/execution/timeout-interrupt.h"
#include "src/objects/objects.h"

// patches/icu adds icu::InterruptCallback. An ICU without it (a bundled
// copy the patch did not apply to: tools/nodecure/configure.py says so)
// builds the scope below as one that never stops anything.
#if __has_include("interruptcallback.h")
#include "interruptcallback.h"
#define V8_NODECURE_ICU_INTERRUPT 1
#else
#define V8_NODECURE_ICU_INTERRUPT 0
#endif

namespace v8 {
namespace internal {

class Isolate;

// nodecure: while it lives (and a TimeoutInterrupt delegate is installed),
// the quadratic loops of ICU on this thread (canonical reordering of a run
// of combining marks, the variants of a language tag) ask
// TimeoutInterrupts::ShouldAbort() every 2^18 steps, and stop when told to
// (icu::InterruptCallback, patches/icu). The output of an ICU call made
// while the scope lived is to be discarded if Stopped(): the caller throws
// the timeout (TimeoutInterrupts::ThrowIfDue()) or, if none is due any
// more, makes the call again outside a scope. One scope at a time on a
// thread; ICU calls inside it run on this thread.
class V8_NODISCARD IcuInterruptScope final {
 public:
#if V8_NODECURE_ICU_INTERRUPT
  explicit IcuInterruptScope(Isolate* isolate)
      : active_(TimeoutInterrupts::AnyInstalled()) {
    if (active_) icu::InterruptCallback::set(&Poll, isolate);
  }
  ~IcuInterruptScope() {
    if (active_) icu::InterruptCallback::set(nullptr, nullptr);
  }

  bool Stopped() const { return active_ && icu::InterruptCallback::stopped(); }
#else
  explicit IcuInterruptScope(Isolate*) {}
  bool Stopped() const { return false; }
#endif
  IcuInterruptScope(const IcuInterruptScope&) = delete;
  IcuInterruptScope& operator=(const IcuInterruptScope&) = delete;

  // How many times CallIcuInterruptibly() makes a call in a scope: a stop
  // that ThrowIfDue() then did not throw (deferred while Node's own code
  // runs, or dropped) is followed by a second call that polls, whose polls
  // find a deferred timeout due once the deferral ends.
  static constexpr int kPollingAttempts = 2;

#if V8_NODECURE_ICU_INTERRUPT
 private:
  static UBool Poll(void* isolate) {
    return TimeoutInterrupts::ShouldAbort(static_cast<Isolate*>(isolate));
  }

  const bool active_;
#endif
};

// nodecure: for several calls of a break iterator made as one (a segments
// object's containing()): while it lives, and a TimeoutInterrupt delegate
// is installed, a stopped call leaves the iterator as it was before the
// first of them (icu::InterruptCallback::Checkpoint), so that making them
// again gives upstream's results. Open it inside the call() given to
// CallIcuInterruptibly(), around the calls.
class V8_NODISCARD IcuCheckpoint final {
 public:
#if V8_NODECURE_ICU_INTERRUPT
  IcuCheckpoint() {
    if (TimeoutInterrupts::AnyInstalled()) checkpoint_.emplace();
  }
#else
  IcuCheckpoint() = default;
#endif
  IcuCheckpoint(const IcuCheckpoint&) = delete;
  IcuCheckpoint& operator=(const IcuCheckpoint&) = delete;

#if V8_NODECURE_ICU_INTERRUPT
 private:
  std::optional<icu::InterruptCallback::Checkpoint> checkpoint_;
#endif
};

// nodecure: makes call() (ICU calls that patches/icu lets stop) in an
// IcuInterruptScope. When ICU stopped, call()'s output is to be discarded,
// and the ICU objects it used must be as call() found them (ICU's break
// iterators reset themselves; see IcuCheckpoint): the due timeout is
// thrown (returns false), or, if none is due any more, call() is made
// again, in a scope once more (kPollingAttempts), then outside one
// (returns true).
template <typename Call>
V8_WARN_UNUSED_RESULT bool CallIcuInterruptibly(Isolate* isolate, Call call) {
  for (int attempt = 0; attempt < IcuInterruptScope::kPollingAttempts;
       attempt++) {
    bool stopped;
    {
      IcuInterruptScope interruptible(isolate);
      call();
      stopped = interruptible.Stopped();
    }
    if (V8_LIKELY(!stopped)) return true;
    if (IsException(TimeoutInterrupts::ThrowIfDue(isolate), isolate)) {
      return false;
    }
  }
  call();
  return true;
}

}  // namespace internal
}  // namespace v8

#undef V8_NODECURE_ICU_INTERRUPT

#endif  // V8_OBJECTS_ICU_INTERRUPT_SCOPE_H_
