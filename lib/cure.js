'use strict';

// node:cure — nodecure's timeouts (doc/api/cure.md).

const {
  codes: {
    ERR_WORKER_UNSUPPORTED_OPERATION,
  },
} = require('internal/errors');
const {
  validateFunction,
  validateInteger,
} = require('internal/validators');
const { TimeoutError } = require('internal/cure/errors');
const callbacks = require('internal/cure/callbacks');

const kMaxBudget = 2147483647;

function binding() {
  return internalBinding('cure');
}

// The default budget of a callback on this thread's event loop, in ms
// (0: off).
function getEventLoopTimeout() {
  return binding().getEventLoopTimeoutState()[0];
}

function setEventLoopTimeout(ms) {
  validateInteger(ms, 'ms', 0, kMaxBudget);
  callbacks.enable();
  binding().setEventLoopTimeout(ms);
}

// The budget of a turn of this thread's event loop: a callback and the
// nextTick callbacks and promise reactions that run after it before the
// loop has control again, in ms (0: off).
function getEventLoopTurnTimeout() {
  return binding().getEventLoopTimeoutState()[2];
}

function setEventLoopTurnTimeout(ms) {
  validateInteger(ms, 'ms', 0, kMaxBudget);
  callbacks.enable();
  binding().setEventLoopTurnTimeout(ms);
}

// Runs fn(...args) with a budget of `ms` counted from the call (0: no
// budget), and gives each callback of the async work it starts (promise
// reactions, timers, I/O...) that budget too. After fn, the running callback
// goes on with its budget, counted afresh.
function runWithEventLoopTimeout(ms, fn, ...args) {
  validateInteger(ms, 'ms', 0, kMaxBudget);
  validateFunction(fn, 'fn');
  const budget = ms === 0 ? callbacks.kNoBudget : ms;
  const previous = callbacks.setCallbackBudget(budget);
  try {
    return callbacks.runWithContextBudget(budget, fn, args);
  } finally {
    callbacks.setCallbackBudget(previous);
  }
}

// How many timeouts this thread's event loop has had, and how many
// threadpool tasks timed out and requests were refused as slow resources
// (process-wide: the threadpool is the process's).
function getTimeoutCounts() {
  const { timedOut, slowResourceHits } =
    require('internal/cure/threadpool').getThreadpoolStats();
  return {
    eventLoop: binding().getEventLoopTimeoutState()[1],
    threadpool: timedOut,
    slowResource: slowResourceHits,
  };
}

// The budget of one threadpool task, in ms (0: off). Process-wide.
function getThreadpoolTimeout() {
  return binding().getThreadpoolTimeout();
}

// Changes it for tasks that start from now on; main thread only, as the
// pool serves every thread.
function setThreadpoolTimeout(ms) {
  validateInteger(ms, 'ms', 0, kMaxBudget);
  if (!internalBinding('worker').isMainThread) {
    throw new ERR_WORKER_UNSUPPORTED_OPERATION('setThreadpoolTimeout()');
  }
  binding().setThreadpoolTimeout(ms);
}

// The threadpool's counters: timeouts, abandoned threads, the blacklist.
function getThreadpoolStats() {
  return require('internal/cure/threadpool').getThreadpoolStats();
}

// Empties the slow-resource blacklist (an administrative action).
function clearSlowResources() {
  binding().clearSlowResources();
}

module.exports = {
  TimeoutError,
  clearSlowResources,
  getEventLoopTimeout,
  getEventLoopTurnTimeout,
  getThreadpoolStats,
  getThreadpoolTimeout,
  getTimeoutCounts,
  runWithEventLoopTimeout,
  setEventLoopTimeout,
  setEventLoopTurnTimeout,
  setThreadpoolTimeout,
};
