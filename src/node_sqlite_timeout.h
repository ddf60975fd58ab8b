#ifndef SRC_NODE_SQLITE_TIMEOUT_H_
#define SRC_NODE_SQLITE_TIMEOUT_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <cstdint>

#include "env-inl.h"
#include "node_event_loop_timeout.h"
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

}  // namespace sqlite
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_SQLITE_TIMEOUT_H_
