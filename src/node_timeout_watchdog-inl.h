#ifndef SRC_NODE_TIMEOUT_WATCHDOG_INL_H_
#define SRC_NODE_TIMEOUT_WATCHDOG_INL_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include "node_timeout_watchdog.h"

namespace node {

uint32_t TimeoutWatchdog::BeginCallback() {
  // Only this thread (and JS on it) writes the id, so a load and a store
  // suffice. Release: the watchdog that sees the new id sees its budget.
  uint32_t id =
      (fields_[kCallbackId].load(std::memory_order_relaxed) + 2) | 1;
  fields_[kCallbackBudget].store(kUseDefaultBudget,
                                 std::memory_order_relaxed);
  fields_[kCallbackId].store(id, std::memory_order_release);
  if (fields_[kSleeping].load(std::memory_order_relaxed)) [[unlikely]] {
    WakeIfSleeping();
  }
  return id;
}

uint32_t TimeoutWatchdog::BeginTurn() {
  // Before the callback id: a watchdog that sees the new id sees the turn.
  turn_.store(turn_.load(std::memory_order_relaxed) + 1,
              std::memory_order_relaxed);
  return BeginCallback();
}

void TimeoutWatchdog::EndCallback() {
  uint32_t id = fields_[kCallbackId].load(std::memory_order_relaxed);
  fields_[kCallbackId].store(id & ~1u, std::memory_order_release);
}

void TimeoutWatchdog::SetCallbackBudget(uint32_t budget_ms) {
  fields_[kCallbackBudget].store(budget_ms, std::memory_order_relaxed);
  if (budget_ms != kUseDefaultBudget && budget_ms != kNoBudget &&
      !started_.load(std::memory_order_relaxed)) [[unlikely]] {
    Start();
  }
  if (fields_[kSleeping].load(std::memory_order_relaxed)) [[unlikely]] {
    WakeIfSleeping();
  }
}

uint32_t TimeoutWatchdog::callback_id() const {
  return fields_[kCallbackId].load(std::memory_order_relaxed);
}

uint64_t TimeoutWatchdog::progress() const {
  return progress_ == nullptr
             ? 0
             : static_cast<uint32_t>(
                   __atomic_load_n(progress_, __ATOMIC_RELAXED));
}

uint64_t TimeoutWatchdog::epoch() const {
  return progress() << 32 | callback_id();
}

}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_TIMEOUT_WATCHDOG_INL_H_
