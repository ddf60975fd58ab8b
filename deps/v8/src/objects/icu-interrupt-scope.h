// Copyright 2026 the nodecure authors. All rights reserved.
// Use of this source code is governed by a BSD-style license that can be
// found in the LICENSE file.

#ifndef V8_OBJECTS_ICU_INTERRUPT_SCOPE_H_
#define V8_OBJECTS_ICU_INTERRUPT_SCOPE_H_

#ifndef V8_INTL_SUPPORT
#error Internationalization is expected to be enabled.
#endif  // V8_INTL_SUPPORT

#include "interruptcallback.h"  // patches/icu
#include "src/execution/timeout-interrupt.h"

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
  explicit IcuInterruptScope(Isolate* isolate)
      : active_(TimeoutInterrupts::AnyInstalled()) {
    if (active_) icu::InterruptCallback::set(&Poll, isolate);
  }
  ~IcuInterruptScope() {
    if (active_) icu::InterruptCallback::set(nullptr, nullptr);
  }
  IcuInterruptScope(const IcuInterruptScope&) = delete;
  IcuInterruptScope& operator=(const IcuInterruptScope&) = delete;

  bool Stopped() const { return active_ && icu::InterruptCallback::stopped(); }

 private:
  static UBool Poll(void* isolate) {
    return TimeoutInterrupts::ShouldAbort(static_cast<Isolate*>(isolate));
  }

  const bool active_;
};

}  // namespace internal
}  // namespace v8

#endif  // V8_OBJECTS_ICU_INTERRUPT_SCOPE_H_
