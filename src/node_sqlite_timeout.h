#ifndef SRC_NODE_SQLITE_TIMEOUT_H_
#define SRC_NODE_SQLITE_TIMEOUT_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "env-inl.h"
#include "node_event_loop_timeout.h"
#include "sqlite3.h"
#include "v8.h"

namespace node {
namespace sqlite {

// nodecure: --event-loop-timeout stops a statement of node:sqlite.
//
// DatabaseSync runs SQL on the loop thread, synchronously: a statement over
// a large table, a join, a recursive query runs as long as it runs (a
// recursive count to 10 million took 1.8 s here), and nothing asked for the
// budget. SQLite lets its embedder stop a statement between the opcodes of
// its virtual machine: a progress handler, called every kProgressOps
// opcodes, that returns nonzero makes the statement fail with
// SQLITE_INTERRUPT, which SQLite handles as for sqlite3_interrupt(): the
// statement's changes, and an implicit transaction's, are rolled back, so a
// stopped write never lands, and an explicit transaction stays as SQLite
// leaves it after an interrupted statement.
//
//   loop thread                               watchdog thread
//   sqlite3_step()                            the budget passes: OnTimeout()
//     ... opcodes ...                         records the report's epoch
//     OnProgress(): DueSyncCallEpoch() says   (DueSyncCallEpoch()) and asks
//     this callback's epoch: kept in          V8 for its interrupt
//     *stopped_epoch, returns 1
//   SQLITE_INTERRUPT: the error path
//   (THROW_ERR_SQLITE_ERROR(isolate, db)) calls ThrowIfStopped(): the stop
//   is taken (TakeDueSyncCall(); V8 drops its interrupt) and the TimeoutError
//   "Synchronous sqlite stopped: ..." thrown in place of SQLite's error.
//
// No section and no signal: SQLite's VFS takes an EINTR from fsync() for an
// I/O error, so a stop is only ever asked for between opcodes, where SQLite
// expects it. One opcode is not divided: a LIKE or GLOB of a long pattern
// over a long value, a sort of a large result, and a busy wait
// (DatabaseSync's `timeout`) run to their end, and so does a user-defined
// function's JavaScript, which V8 stops itself (its TimeoutError then passes
// through SQLite as any exception of such a function does).
//
// Cost: DatabaseSync installs the handler at open; with no budget it is a
// call per kProgressOps opcodes that reads two words and returns 0.
// Loop thread only (the Environment's thread).
constexpr int kProgressOps = 1000;

// The progress handler's work, for the database whose *stopped_epoch it is.
inline int OnProgress(Environment* env, uint64_t* stopped_epoch) {
  const uint64_t epoch = EventLoopTimeout::DueSyncCallEpoch(env);
  if (epoch == 0) return 0;
  *stopped_epoch = epoch;
  return 1;
}

// On the error path of a SQLite call: if the progress handler stopped it,
// takes the stop and, unless a JavaScript exception is already pending
// (a user-defined function threw), throws the TimeoutError and returns
// true. Clears *stopped_epoch either way.
inline bool ThrowIfStopped(v8::Isolate* isolate,
                           uint64_t* stopped_epoch,
                           bool js_exception_pending) {
  const uint64_t epoch = *stopped_epoch;
  if (epoch == 0) return false;
  *stopped_epoch = 0;
  if (js_exception_pending) return false;
  Environment* env = Environment::GetCurrent(isolate);
  if (env == nullptr || !EventLoopTimeout::TakeDueSyncCall(env, epoch)) {
    return false;
  }
  v8::Local<v8::Value> error = EventLoopTimeout::StoppedCallError(env, "sqlite");
  if (!error.IsEmpty()) isolate->ThrowException(error);
  return true;
}

// nodecure: a long SQL text's parse (DatabaseSync's prepare() and each
// statement of exec(), a tag store's statements).
//
// SQLite's parser runs no opcodes, so the progress handler above never
// sees it: prepare() of 16 MiB of SQL (an IN list a request built) took
// 0.8 s. Its tokenizer checks the connection's interrupt flag, which
// sqlite3_interrupt() sets from any thread. So, for a text of more than
// kParseStopBytes, on a connection where no statement is running and no
// authorizer is set, the parse is a foreign stop of the callback
// (EventLoopTimeout::ArmForeignStop()):
//
//   loop thread                               watchdog thread
//   ParseStop: no statement busy: armed
//   sqlite3_prepare_v2() ... tokens ...       the budget passes: OnTimeout()
//                                             -> Stop(): keeps the epoch,
//                                                sqlite3_interrupt(db)
//   SQLITE_INTERRUPT
//   Finish(rc): disarmed (no Stop() after it returns); it fired and the
//   parse failed: *stopped_epoch = the epoch, and the error path
//   (ThrowIfStopped()) throws the TimeoutError in place of SQLite's error
//
// The flag: SQLite clears it when a parse or a step begins on a connection
// with no statement running, and only then. So nothing is armed while a
// statement runs (an iterator half way): the flag would stop that one too,
// and stay set. Nor while JavaScript may run inside the parse (an
// authorizer), which could start statements or catch a TimeoutError. The
// tokenizer checks the flag at spaces and comments and at the end of the
// text, and code generation follows that last check: a stop that lands
// there lets the parse succeed with the flag set. Finish() then clears it
// with an empty parse (which resets it on a connection with no statement
// running), so that nothing later (a close()'s checkpoint) sees it, and
// publishes no epoch: the TimeoutError comes from V8 after the call.
//
// exec() runs sqlite3_exec()'s loop itself (node_sqlite.cc) so that only
// each statement's parse is armed, never its steps or the user-defined
// functions they call, and asks DueSyncCallEpoch() between statements.
//
// Cost: a text of kParseStopBytes or less arms nothing (a length test); a
// longer one, in a callback with a budget, walks the connection's
// statements once (sqlite3_next_stmt()) and takes the foreign stop's mutex
// twice. Loop thread only; Stop() on the watchdog's, under that mutex: it
// touches only stopped_epoch_ (atomic) and calls sqlite3_interrupt(), which
// SQLite allows from any thread while the connection is open (the caller
// keeps it open).
constexpr size_t kParseStopBytes = 64 << 10;

class ParseStop final : public EventLoopTimeout::ForeignStop {
 public:
  ParseStop(Environment* env,
            sqlite3* connection,
            size_t sql_bytes,
            bool has_authorizer,
            uint64_t* stopped_epoch)
      : env_(env), connection_(connection), stopped_epoch_out_(stopped_epoch) {
    armed_ = sql_bytes > kParseStopBytes && !has_authorizer &&
             EventLoopTimeout::SyncCallsStoppable(env) &&
             !AnyStatementBusy(connection) &&
             EventLoopTimeout::ArmForeignStop(env, this);
  }
  ~ParseStop() { CHECK(!armed_); }  // Finish() was called
  ParseStop(const ParseStop&) = delete;
  ParseStop& operator=(const ParseStop&) = delete;

  // After the parse, with its result code.
  void Finish(int rc) {
    if (!armed_) return;
    armed_ = false;
    EventLoopTimeout::DisarmForeignStop(env_);
    const uint64_t epoch = stopped_epoch_.load(std::memory_order_acquire);
    if (epoch == 0) return;
    if (rc != SQLITE_OK) {
      *stopped_epoch_out_ = epoch;
      return;
    }
    sqlite3_stmt* none = nullptr;
    sqlite3_prepare_v2(connection_, "", 0, &none, nullptr);
    CHECK_NULL(none);
  }

  void Stop(uint64_t epoch) override {
    stopped_epoch_.store(epoch, std::memory_order_release);
    sqlite3_interrupt(connection_);
  }

 private:
  static bool AnyStatementBusy(sqlite3* connection) {
    for (sqlite3_stmt* s = sqlite3_next_stmt(connection, nullptr);
         s != nullptr;
         s = sqlite3_next_stmt(connection, s)) {
      if (sqlite3_stmt_busy(s)) return true;
    }
    return false;
  }

  Environment* const env_;
  sqlite3* const connection_;
  uint64_t* const stopped_epoch_out_;
  std::atomic<uint64_t> stopped_epoch_{0};
  bool armed_ = false;
};

}  // namespace sqlite
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_SQLITE_TIMEOUT_H_
