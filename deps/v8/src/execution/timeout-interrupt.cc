// Copyright nodecure contributors. All rights reserved.
// Use of this source code is governed by a BSD-style license that can be
// found in V8's LICENSE file.

#include "src/execution/timeout-interrupt.h"

#include <string.h>

#include <unordered_map>

#include "include/v8-timeout-interrupt.h"
#include "include/v8-version.h"
#include "src/api/api-inl.h"
#include "src/base/platform/mutex.h"
#include "src/base/platform/time.h"
#include "src/common/assert-scope.h"
#include "src/execution/frames-inl.h"
#include "src/objects/deoptimization-data-inl.h"
#include "src/execution/isolate.h"
#include "src/execution/microtask-queue.h"
#include "src/objects/contexts-inl.h"
#include "src/objects/js-function-inl.h"

namespace v8 {
namespace internal {

namespace {

// V8 13.6's frame and cast API, in one place: what the next V8 renames is
// adapted here (doc/contributing/rebasing.md).
bool IsJavaScriptFrame(const StackFrame* frame) {
  return frame->is_javascript();
}
Tagged<DeoptimizationData> GetDeoptData(OptimizedJSFrame* frame,
                                        int* deopt_index) {
  return frame->GetDeoptimizationData(frame->LookupCode(), deopt_index);
}
template <typename T>
Tagged<T> CastTo(Tagged<Object> object) {
  return Cast<T>(object);
}

// A promise hook that the embedder set on the native context (Node's
// async_hooks and AsyncLocalStorage). V8 runs one between a reaction's
// handler and the end of its microtask, or inside the `new Promise` or
// `then()` of the running code, and reports an exception thrown in it as
// uncaught instead of passing it on (promise-misc.tq).
bool IsPromiseHook(Tagged<JSFunction> function) {
  Tagged<NativeContext> context = function->native_context();
  Tagged<Object> object = function;
  return object == context->promise_hook_init_function() ||
         object == context->promise_hook_before_function() ||
         object == context->promise_hook_after_function() ||
         object == context->promise_hook_resolve_function();
}

// Whether `frame` is stopped at its function's entry check. Allocation
// free: for optimized code, from the deoptimization data of the call site
// (a site without is treated as an entry: nothing is thrown there anyway).
bool AtFunctionEntry(JavaScriptFrame* frame) {
  if (frame->is_unoptimized()) {
    return UnoptimizedJSFrame::cast(frame)->GetBytecodeOffset() ==
           kFunctionEntryBytecodeOffset;
  }
  if (frame->LookupCode()->kind() == CodeKind::BUILTIN) return false;
  int deopt_index = SafepointEntry::kNoDeoptIndex;
  Tagged<DeoptimizationData> data =
      GetDeoptData(static_cast<OptimizedJSFrame*>(frame), &deopt_index);
  if (deopt_index == SafepointEntry::kNoDeoptIndex) return true;
  return data->GetBytecodeOffsetOrBuiltinContinuationId(deopt_index) ==
         BytecodeOffset(kFunctionEntryBytecodeOffset);
}

// Whether the innermost activation (the frames since the last entry from
// C++, such as the microtask runner's call of one reaction) runs code from a
// script, past the entry check of a generator or async function being
// resumed. If not (only the microtask runner between two reactions, or the
// builtin that resumes an async function after an `await`, or the entry
// check of that function, which comes before its own handlers), nothing
// there could catch the exception and the reaction would be lost, its chain
// never settled: the timeout waits for the next check in script code.
bool InScriptCode(Isolate* isolate) {
  for (StackFrameIterator it(isolate); !it.done(); it.Advance()) {
    StackFrame* frame = it.frame();
    if (frame->is_entry() || frame->is_construct_entry()) return false;
    if (!IsJavaScriptFrame(frame)) continue;
    JavaScriptFrame* js = JavaScriptFrame::cast(frame);
    Tagged<SharedFunctionInfo> shared = js->function()->shared();
    if (!IsScript(shared->script())) continue;
    return !(IsResumableFunction(shared->kind()) && AtFunctionEntry(js));
  }
  return false;
}

// Whether an exception thrown now can unwind the stack to the code that ran
// too long: in script code (InScriptCode()), and not from a promise hook:
// the timeout waits until the hook returned, to the code that created the
// promise, or, after a reaction, to the end of the microtask, where the
// delegate drops it. Nor from an optimized frame stopped at a call that
// TurboFan emitted without deoptimization data, one it assumes cannot throw
// (such as a call of the StringIndexOf builtin): that frame can neither be
// summarized for the error's stack trace (a fatal error) nor reach its own
// catch blocks; the timeout waits for the next check there. When it says
// no, ShouldAbort() stops saying yes for that request (Entry::refused), so
// that a polling builtin does not start over for ever.
bool CanThrowHere(Isolate* isolate) {
  for (JavaScriptStackFrameIterator it(isolate); !it.done(); it.Advance()) {
    JavaScriptFrame* frame = it.frame();
    if (IsPromiseHook(frame->function())) return false;
    if (!frame->is_optimized() ||
        frame->LookupCode()->kind() == CodeKind::BUILTIN) {
      continue;
    }
    int deopt_index = SafepointEntry::kNoDeoptIndex;
    GetDeoptData(static_cast<OptimizedJSFrame*>(frame), &deopt_index);
    if (deopt_index == SafepointEntry::kNoDeoptIndex) return false;
  }
  return InScriptCode(isolate);
}

// Whether `shared` comes from a script whose name starts with `prefix`.
bool IsEmbedderScript(Tagged<SharedFunctionInfo> shared, const char* prefix,
                      size_t length) {
  Tagged<Object> script = shared->script();
  if (!IsScript(script)) return false;
  Tagged<Object> name = CastTo<Script>(script)->name();
  if (!IsString(name)) return false;
  Tagged<String> string = CastTo<String>(name);
  if (string->length() < length) return false;
  for (size_t i = 0; i < length; i++) {
    if (string->Get(static_cast<int>(i)) !=
        static_cast<uint8_t>(prefix[i])) {
      return false;
    }
  }
  return true;
}

// Whether a timeout thrown now would start in the embedder's own code
// (SetEmbedderScripts()): the innermost script frame runs one of its
// scripts past the entry check, or stands at the entry check of one that
// was called from another (or from C++: the embedder's own call). At the
// entry of one called from other script code nothing of it has run: the
// throw is as good as one at the call. Allocation free.
bool InEmbedderCode(Isolate* isolate, const char* prefix, size_t length) {
  bool at_entry = false;
  for (StackFrameIterator it(isolate); !it.done(); it.Advance()) {
    StackFrame* frame = it.frame();
    if (frame->is_entry() || frame->is_construct_entry()) return at_entry;
    if (!IsJavaScriptFrame(frame)) continue;
    JavaScriptFrame* js = JavaScriptFrame::cast(frame);
    Tagged<SharedFunctionInfo> shared = js->function()->shared();
    if (!IsScript(shared->script())) continue;
    if (!IsEmbedderScript(shared, prefix, length)) return false;
    if (at_entry || !AtFunctionEntry(js)) return true;
    at_entry = true;  // Its caller decides.
  }
  return at_entry;
}

}  // namespace

std::atomic<int> TimeoutInterrupts::pending_{0};
std::atomic<int> TimeoutInterrupts::installed_{0};
thread_local int TimeoutInterrupts::bigint_depth_ = 0;

// The delegate and the pending request of each isolate that has a delegate.
class TimeoutInterruptTable final : public AllStatic {
 public:
  struct Entry {
    v8::TimeoutInterrupt::Delegate* delegate = nullptr;
    bool pending = false;
    uint64_t epoch = 0;
    // Deliver() found that `epoch` could not be thrown where it was due
    // (CanThrowHere()): ShouldAbort() no longer stops polling builtins for
    // it, which would start over for ever; it is thrown at the next check
    // in script code.
    bool refused = false;
    // SetEmbedderScripts(): the prefix of the embedder's script names
    // (empty: none) and how long a timeout may wait for other code.
    char prefix[v8::TimeoutInterrupt::kMaxEmbedderPrefix + 1] = {};
    size_t prefix_length = 0;
    uint32_t defer_max_ms = 0;
    // Deliver() deferred `epoch` out of the embedder's code until then
    // (null: not deferred). Meanwhile ShouldAbort() does not stop polling
    // builtins for it.
    base::TimeTicks defer_until;
  };

  static base::Mutex& mutex() { return Get().mutex; }
  static std::unordered_map<Isolate*, Entry>& entries() {
    return Get().entries;
  }

  // Under mutex(): makes `entry` pending for `epoch`.
  static void Arm(Entry& entry, uint64_t epoch) {
    if (!entry.pending) {
      entry.pending = true;
      TimeoutInterrupts::pending_.fetch_add(1, std::memory_order_relaxed);
    }
    if (entry.epoch != epoch) {
      entry.refused = false;
      entry.defer_until = base::TimeTicks();
    }
    entry.epoch = epoch;
  }

  // Under mutex(): a delegate was installed (1) or removed (-1).
  static void CountInstalled(int delta) {
    TimeoutInterrupts::installed_.fetch_add(delta, std::memory_order_relaxed);
  }

  // Under mutex(): forgets the request of `entry` if it is pending.
  static void Clear(Entry& entry) {
    entry.refused = false;
    entry.defer_until = base::TimeTicks();
    if (!entry.pending) return;
    entry.pending = false;
    TimeoutInterrupts::pending_.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  struct Table {
    base::Mutex mutex;
    std::unordered_map<Isolate*, Entry> entries;
  };
  static Table& Get() {
    static Table* table = new Table();  // Never destroyed: used by threads.
    return *table;
  }
};

// static
Tagged<Object> TimeoutInterrupts::HandleInterrupts(
    Isolate* isolate, StackGuard::InterruptLevel level) {
  Tagged<Object> result = isolate->stack_guard()->HandleInterrupts(level);
  if (pending_.load(std::memory_order_relaxed) == 0 ||
      IsException(result, isolate)) {
    return result;
  }
  return Deliver(isolate);
}

// static
bool TimeoutInterrupts::ShouldAbort(Isolate* isolate) {
  if (!AnyInstalled()) return false;
  StackLimitCheck check(isolate);
  if (!check.InterruptRequested()) return false;
  if (isolate->stack_guard()->CheckTerminateExecution()) return true;
  return IsDue(isolate);
}

// static
bool TimeoutInterrupts::IsDue(Isolate* isolate) {
  if (pending_.load(std::memory_order_relaxed) == 0) return false;
  v8::TimeoutInterrupt::Delegate* delegate;
  uint64_t epoch;
  base::TimeTicks defer_until;
  {
    base::MutexGuard guard(&TimeoutInterruptTable::mutex());
    auto& entries = TimeoutInterruptTable::entries();
    auto it = entries.find(isolate);
    if (it == entries.end() || !it->second.pending || it->second.refused) {
      return false;
    }
    delegate = it->second.delegate;
    epoch = it->second.epoch;
    defer_until = it->second.defer_until;
  }
  if (!defer_until.IsNull() && base::TimeTicks::Now() < defer_until) {
    return false;
  }
  // No stack walk here: this runs inside fast C calls that have no exit
  // frame to walk from.
  return delegate->Check(epoch) == v8::TimeoutInterrupt::Decision::kDeliver;
}

// static
bool TimeoutInterrupts::PollThrew(Isolate* isolate) {
  StackLimitCheck check(isolate);
  if (!check.InterruptRequested()) return false;
  return IsException(HandleInterrupts(isolate), isolate);
}

// static
Tagged<Object> TimeoutInterrupts::ThrowIfDue(Isolate* isolate) {
  // kNoGC: serves termination only.
  Tagged<Object> result =
      isolate->stack_guard()->HandleInterrupts(StackGuard::InterruptLevel::kNoGC);
  if (IsException(result, isolate) ||
      pending_.load(std::memory_order_relaxed) == 0) {
    return result;
  }
  return Deliver(isolate);
}

// static
void TimeoutInterrupts::KeepArmedSlow(Isolate* isolate) {
  base::MutexGuard guard(&TimeoutInterruptTable::mutex());
  auto& entries = TimeoutInterruptTable::entries();
  auto it = entries.find(isolate);
  if (it != entries.end() && it->second.pending) {
    isolate->stack_guard()->RequestApiInterrupt();
  }
}

namespace {

// Deliver() for a request its delegate wants thrown, where it could be:
// whether to wait instead, because it would start in the embedder's own
// code (InEmbedderCode()) and the request has waited less than the
// embedder's limit since it was first deferred.
bool DeferFromEmbedderCode(Isolate* isolate, uint64_t epoch) {
  char prefix[v8::TimeoutInterrupt::kMaxEmbedderPrefix + 1];
  size_t length;
  uint32_t max_ms;
  {
    base::MutexGuard guard(&TimeoutInterruptTable::mutex());
    auto& entries = TimeoutInterruptTable::entries();
    auto it = entries.find(isolate);
    if (it == entries.end() || it->second.epoch != epoch ||
        it->second.prefix_length == 0) {
      return false;
    }
    length = it->second.prefix_length;
    memcpy(prefix, it->second.prefix, length);
    max_ms = it->second.defer_max_ms;
  }
  if (!InEmbedderCode(isolate, prefix, length)) return false;
  const base::TimeTicks now = base::TimeTicks::Now();
  base::MutexGuard guard(&TimeoutInterruptTable::mutex());
  auto& entries = TimeoutInterruptTable::entries();
  auto it = entries.find(isolate);
  if (it == entries.end() || it->second.epoch != epoch) return false;
  if (it->second.defer_until.IsNull()) {
    it->second.defer_until = now + base::TimeDelta::FromMilliseconds(max_ms);
  }
  return now < it->second.defer_until;
}

}  // namespace

// static
bool TimeoutInterrupts::WouldThrowHere(Isolate* isolate) {
  if (!IsDue(isolate)) return false;
  if (isolate->has_exception() || isolate->is_execution_terminating()) {
    return false;
  }
  uint64_t epoch;
  {
    base::MutexGuard guard(&TimeoutInterruptTable::mutex());
    auto& entries = TimeoutInterruptTable::entries();
    auto it = entries.find(isolate);
    if (it == entries.end() || !it->second.pending) return false;
    epoch = it->second.epoch;
  }
  return CanThrowHere(isolate) && !DeferFromEmbedderCode(isolate, epoch);
}

// static
Tagged<Object> TimeoutInterrupts::Deliver(Isolate* isolate) {
  v8::TimeoutInterrupt::Delegate* delegate;
  uint64_t epoch;
  {
    base::MutexGuard guard(&TimeoutInterruptTable::mutex());
    auto& entries = TimeoutInterruptTable::entries();
    auto it = entries.find(isolate);
    if (it == entries.end() || !it->second.pending) {
      return ReadOnlyRoots(isolate).undefined_value();
    }
    delegate = it->second.delegate;
    epoch = it->second.epoch;
  }
  // Termination, or an exception on its way, goes first; the request stays
  // armed (KeepArmed() has re-requested the interrupt).
  if (isolate->has_exception() || isolate->is_execution_terminating()) {
    return ReadOnlyRoots(isolate).undefined_value();
  }

  const v8::TimeoutInterrupt::Decision decision = delegate->Check(epoch);
  if (decision == v8::TimeoutInterrupt::Decision::kDefer) {
    return ReadOnlyRoots(isolate).undefined_value();
  }
  if (decision == v8::TimeoutInterrupt::Decision::kDeliver &&
      !CanThrowHere(isolate)) {
    base::MutexGuard guard(&TimeoutInterruptTable::mutex());
    auto& entries = TimeoutInterruptTable::entries();
    auto it = entries.find(isolate);
    if (it != entries.end() && it->second.epoch == epoch) {
      it->second.refused = true;
    }
    return ReadOnlyRoots(isolate).undefined_value();
  }
  if (decision == v8::TimeoutInterrupt::Decision::kDeliver &&
      DeferFromEmbedderCode(isolate, epoch)) {
    return ReadOnlyRoots(isolate).undefined_value();
  }
  if (decision == v8::TimeoutInterrupt::Decision::kDeliver &&
      IsSmi(Tagged<Object>(isolate->context().ptr()))) {
    // Called from a builtin that has no context of its own (StringIndexOf)
    // after a runtime call made without one (the flattening of a cons
    // string): the error is created in, and thrown from, the context of the
    // innermost JavaScript frame, which CanThrowHere() found.
    JavaScriptStackFrameIterator it(isolate);
    if (it.done()) return ReadOnlyRoots(isolate).undefined_value();
    isolate->set_context(CastTo<Context>(it.frame()->context()));
  }
  {
    // Consumed, unless another request replaced it meanwhile.
    base::MutexGuard guard(&TimeoutInterruptTable::mutex());
    auto& entries = TimeoutInterruptTable::entries();
    auto it = entries.find(isolate);
    if (it != entries.end() && it->second.epoch == epoch) {
      TimeoutInterruptTable::Clear(it->second);
    }
  }
  if (decision == v8::TimeoutInterrupt::Decision::kDrop) {
    return ReadOnlyRoots(isolate).undefined_value();
  }

  HandleScope scope(isolate);
  v8::Local<v8::Value> error;
  {
    DisallowJavascriptExecution no_js(isolate);
    error = delegate->CreateError(reinterpret_cast<v8::Isolate*>(isolate),
                                  epoch);
  }
  if (isolate->has_exception()) return ReadOnlyRoots(isolate).exception();
  if (error.IsEmpty()) return ReadOnlyRoots(isolate).undefined_value();
  return isolate->Throw(*Utils::OpenHandle(*error));
}

}  // namespace internal

// static
void TimeoutInterrupt::SetDelegate(Isolate* v8_isolate, Delegate* delegate) {
  using internal::TimeoutInterruptTable;
  internal::Isolate* isolate = reinterpret_cast<internal::Isolate*>(v8_isolate);
  base::MutexGuard guard(&TimeoutInterruptTable::mutex());
  auto& entries = TimeoutInterruptTable::entries();
  auto it = entries.find(isolate);
  if (it != entries.end()) {
    TimeoutInterruptTable::Clear(it->second);
    if (delegate == nullptr) {
      entries.erase(it);
      TimeoutInterruptTable::CountInstalled(-1);
    } else {
      it->second.delegate = delegate;
    }
  } else if (delegate != nullptr) {
    entries[isolate].delegate = delegate;
    TimeoutInterruptTable::CountInstalled(1);
  }
}

// static
void TimeoutInterrupt::SetEmbedderScripts(Isolate* v8_isolate,
                                          const char* prefix,
                                          uint32_t max_ms) {
  using internal::TimeoutInterruptTable;
  internal::Isolate* isolate = reinterpret_cast<internal::Isolate*>(v8_isolate);
  const size_t length = prefix == nullptr ? 0 : strlen(prefix);
  CHECK_LE(length, kMaxEmbedderPrefix);
  base::MutexGuard guard(&TimeoutInterruptTable::mutex());
  auto& entries = TimeoutInterruptTable::entries();
  auto it = entries.find(isolate);
  CHECK(it != entries.end());  // After SetDelegate().
  if (length != 0) memcpy(it->second.prefix, prefix, length);
  it->second.prefix[length] = '\0';
  it->second.prefix_length = length;
  it->second.defer_max_ms = max_ms;
}

// static
void TimeoutInterrupt::Request(Isolate* v8_isolate, uint64_t epoch) {
  using internal::TimeoutInterruptTable;
  internal::Isolate* isolate = reinterpret_cast<internal::Isolate*>(v8_isolate);
  // The interrupt is requested under the table's lock, so that the delegate
  // (and with it the isolate) cannot go away in between.
  base::MutexGuard guard(&TimeoutInterruptTable::mutex());
  auto& entries = TimeoutInterruptTable::entries();
  auto it = entries.find(isolate);
  if (it == entries.end()) return;
  TimeoutInterruptTable::Arm(it->second, epoch);
  isolate->stack_guard()->RequestApiInterrupt();
}

// static
const intptr_t* TimeoutInterrupt::MicrotaskCounter(Isolate* v8_isolate) {
  internal::Isolate* isolate = reinterpret_cast<internal::Isolate*>(v8_isolate);
  internal::MicrotaskQueue* queue = isolate->default_microtask_queue();
  return reinterpret_cast<const intptr_t*>(
      reinterpret_cast<internal::Address>(queue) +
      internal::MicrotaskQueue::kFinishedMicrotaskCountOffset);
}

}  // namespace v8
