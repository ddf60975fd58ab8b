#ifndef SRC_NODE_TIMEOUT_WATCHDOG_H_
#define SRC_NODE_TIMEOUT_WATCHDOG_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <atomic>
#include <cstdint>

#include "uv.h"

namespace node {

// nodecure: bounds the time of one callback on an event loop
// (--event-loop-timeout, doc/api/cure.md).
//
// The loop thread marks where each callback begins and ends by writing a
// 32-bit callback id into shared memory: odd while a callback runs, even when
// the loop is between callbacks; every BeginCallback() makes a new id. That is
// one plain store per callback: no syscall, no lock, no fence. The id lives in
// memory that JS code may write too (a Uint32Array over fields()), so that
// each process.nextTick callback and each promise reaction can start a
// callback of its own without calling into C++.
//
// Work that runs many short pieces inside one callback without telling the
// loop (V8 running promise reactions one after another) is told apart by a
// progress counter that it increments after each piece: a callback is the
// same one only while both the id and that counter stay the same.
//
// A thread of the watchdog's own samples the id every tick (budget/32,
// between 1 and 10 ms) and calls the TimeoutCallback when one id has been
// seen running for the budget: between T and T + tick after the callback
// began. If the callback goes on, it is reported again one budget later.
// After about a second without a callback, or with the budget at 0, the
// thread sleeps until BeginCallback() or SetBudget() wakes it, so an idle
// process costs nothing.
//
// A turn is what runs from the loop's entry into JS until the loop has
// control again: the outermost callback and the nextTick callbacks and
// promise reactions that follow it (BeginTurn() counts turns). Each of those
// is a callback with a budget of its own, so a chain of short ones (an
// `await` loop that never waits for I/O) would hold the loop for ever. With
// a turn budget (--event-loop-turn-timeout) the callback running when its
// turn has lasted that long is reported too, at most once a turn budget; the
// turn budget is at least the running callback's own, and a callback with no
// budget (kNoBudget) is not counted in its turn. A turn report names the
// turn and the callback id, not the progress counter: it is for whichever
// promise reaction of that callback runs when it arrives.
//
// Thread-safety: BeginCallback(), EndCallback() and SetCallbackBudget() on
// the loop thread only; everything else on any thread.
class TimeoutWatchdog {
 public:
  // Called on the watchdog's thread with the epoch of the callback that ran
  // past its budget (see epoch()) and the budget in milliseconds. It must not
  // call into the loop or into V8 other than through thread-safe entry
  // points.
  using TimeoutCallback = void (*)(void* data, uint64_t epoch,
                                   uint64_t budget_ms);

  // Values of the per-callback budget override (fields()[kCallbackBudget]).
  static constexpr uint32_t kUseDefaultBudget = 0;
  static constexpr uint32_t kNoBudget = UINT32_MAX;

  // The shared words, as indices into fields().
  enum Field : uint32_t {
    kCallbackId,      // odd: a callback runs; even: between callbacks
    kCallbackBudget,  // this callback's budget in ms, or one of the above
    kSleeping,        // 1 while the thread sleeps until a callback begins
    kFieldCount
  };

  TimeoutWatchdog(TimeoutCallback callback, void* data);
  ~TimeoutWatchdog();

  TimeoutWatchdog(const TimeoutWatchdog&) = delete;
  TimeoutWatchdog& operator=(const TimeoutWatchdog&) = delete;

  // The default budget of a callback in milliseconds; 0 turns the watchdog
  // off. The thread is started by the first non-zero budget (default or
  // per callback), so a watchdog that is never given one costs no thread.
  void SetBudget(uint64_t budget_ms);
  uint64_t budget() const { return budget_ms_.load(std::memory_order_relaxed); }

  // The budget of a turn in milliseconds; 0 (the default): turns are not
  // timed. Starts the thread as SetBudget() does.
  void SetTurnBudget(uint64_t budget_ms);
  uint64_t turn_budget() const {
    return turn_budget_ms_.load(std::memory_order_relaxed);
  }

  // Loop thread: a new callback begins (possibly inside the one that ran
  // before it, e.g. a nextTick callback after the callback that queued it)
  // and ends. BeginCallback() returns the new callback's id.
  inline uint32_t BeginCallback();
  inline void EndCallback();
  // Loop thread: the outermost callback of a new turn begins.
  inline uint32_t BeginTurn();
  // The turn's number, which BeginTurn() increments.
  uint32_t turn() const { return turn_.load(std::memory_order_relaxed); }
  // Loop thread: the budget of the running callback, in ms, or
  // kUseDefaultBudget / kNoBudget. Reset by every BeginCallback().
  inline void SetCallbackBudget(uint32_t budget_ms);
  inline uint32_t callback_id() const;
  // Loop thread: what identifies the running callback: the callback id in the
  // low 32 bits, the progress counter's low 32 bits above them.
  inline uint64_t epoch() const;
  // Before the first budget is set: a counter that the loop thread increments
  // after each piece of work that counts as a callback of its own (nullptr:
  // none). It must outlive the watchdog's thread.
  void SetProgressCounter(const intptr_t* counter);

  // The shared words, kFieldCount of them, for a Uint32Array over them.
  uint32_t* fields();

  // Any thread: wakes the watchdog's thread if it sleeps until a callback
  // begins. BeginCallback() does it; JS, which begins callbacks with stores
  // into fields(), calls it when it sees fields()[kSleeping] set.
  void WakeIfSleeping();

  // How many times the TimeoutCallback was called.
  uint64_t timeouts() const { return timeouts_.load(std::memory_order_relaxed); }

  // Inside the TimeoutCallback only: whether it reports a turn past the turn
  // budget rather than a callback past its own. The epoch is then the turn's
  // number above the callback id (not the progress counter: the report is
  // for whichever promise reaction of that callback runs when it arrives)
  // and budget_ms is the turn's.
  bool reporting_turn() const { return reporting_turn_; }
  // Inside the TimeoutCallback only: when (uv_hrtime()) the reported
  // callback, or turn, was first seen running: within a tick of its start.
  uint64_t reporting_since() const { return reporting_since_; }

  // Stops the thread (if any) and waits for it. Idempotent; the destructor
  // calls it. No TimeoutCallback runs once Stop() returns.
  void Stop();

 private:
  void Start();
  static void ThreadMain(void* arg);
  void Run();
  uint64_t TickNs(uint64_t budget_ms) const;
  void Report(uint64_t id, uint64_t budget, bool turn, uint64_t since);
  // The progress counter's low 32 bits (0 without one); any thread.
  inline uint64_t progress() const;

  // Written by the loop thread (and by JS through fields()), read by the
  // watchdog's thread; kSleeping the other way round.
  alignas(64) std::atomic<uint32_t> fields_[kFieldCount];
  std::atomic<bool> started_{false};  // written under mutex_

  alignas(64) std::atomic<uint64_t> budget_ms_{0};
  std::atomic<uint64_t> turn_budget_ms_{0};
  std::atomic<uint64_t> timeouts_{0};
  // Written by the loop thread (BeginTurn()), read by the watchdog's thread.
  std::atomic<uint32_t> turn_{0};
  bool reporting_turn_ = false;  // the watchdog's thread only
  uint64_t reporting_since_ = 0;  // the watchdog's thread only
  const intptr_t* progress_ = nullptr;

  const TimeoutCallback callback_;
  void* const data_;

  uv_mutex_t mutex_;
  uv_cond_t cond_;
  uv_thread_t thread_;
  bool stopping_ = false;  // guarded by mutex_
};

}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_TIMEOUT_WATCHDOG_H_
