'use strict';

// node:cure — nodecure's timeouts (doc/api/cure.md).

const {
  ObjectDefineProperty,
} = primordials;

const {
  codes: {
    ERR_WORKER_UNSUPPORTED_OPERATION,
  },
} = require('internal/errors');
const {
  validateFunction,
  validateInteger,
  validateOneOf,
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

// What a callback past its budget gets on this thread: 'throw' (a
// TimeoutError) or 'report' (it runs on; a report and a warning name where
// it was). --event-loop-timeout-action.
function getEventLoopTimeoutAction() {
  return callbacks.getEventLoopTimeoutAction();
}

function setEventLoopTimeoutAction(action) {
  validateOneOf(action, 'action', callbacks.timeoutActions);
  callbacks.setEventLoopTimeoutAction(action);
}

// Calls fn with `thisArg` and `args` and a budget of `ms` counted from the
// call (0: no budget), and gives each callback of the async work it starts
// (promise reactions, timers, I/O...) that budget too. After fn, the
// running callback goes on with its budget, counted afresh. Called between
// callbacks (the main module, the first callback after the feature was
// first used), fn gets its budget all the same: a callback is opened for it
// and closed after it.
//
// fn's own TimeoutError may come as fn returns, in this finally, before the
// budget is given back (at the call of setCallbackBudget(), whose entry
// checks for it): it is thrown after the budget is given back. Thrown
// before, it left the callback with fn's budget, which every later call
// then took for the callback's own, and a TimeoutError of 1 ms came in the
// caller's code long after.
function runWithBudget(ms, fn, thisArg, args) {
  const budget = ms === 0 ? callbacks.kNoBudget : ms;
  const previous = callbacks.setCallbackBudget(budget, ms !== 0);
  try {
    return callbacks.runWithContextBudget(budget, fn, thisArg, args);
  } finally {
    let late;
    for (;;) {
      try {
        callbacks.setCallbackBudget(previous);
        break;
      } catch (err) {
        if (err?.code !== 'ERR_EVENT_LOOP_TIMEOUT') throw err;
        late = err;
      }
    }
    if (late !== undefined) throw late;  // eslint-disable-line no-unsafe-finally
  }
}

function runWithEventLoopTimeout(ms, fn, ...args) {
  validateInteger(ms, 'ms', 0, kMaxBudget);
  validateFunction(fn, 'fn');
  return runWithBudget(ms, fn, undefined, args);
}

// fn wrapped so that each call runs as runWithEventLoopTimeout(ms, ...)
// would run it, with the wrapper's `this`: a route handler with a budget of
// its own, e.g. app.get('/export', withEventLoopTimeout(0, handler)).
function withEventLoopTimeout(ms, fn) {
  validateInteger(ms, 'ms', 0, kMaxBudget);
  validateFunction(fn, 'fn');
  // A plain function, so that frameworks that look at fn.length (Express
  // tells error handlers by their four parameters) see the same.
  const wrapped = {
    [fn.name](...args) {
      return runWithBudget(ms, fn, this, args);
    },
  }[fn.name];
  ObjectDefineProperty(wrapped, 'length', {
    __proto__: null,
    value: fn.length,
    configurable: true,
  });
  return wrapped;
}

// How many timeouts this thread's event loop has had, and how many
// threadpool tasks timed out and requests were refused as slow resources
// (process-wide: the threadpool is the process's); and how many of each
// were only reported (report-only actions).
function getTimeoutCounts() {
  const { timedOut, slowResourceHits, reported } =
    require('internal/cure/threadpool').getThreadpoolStats();
  const state = binding().getEventLoopTimeoutState();
  return {
    eventLoop: state[1],
    threadpool: timedOut,
    slowResource: slowResourceHits,
    eventLoopReports: state[3],
    threadpoolReports: reported,
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

// What a threadpool task past its budget gets: 'throw' (it is stopped and
// its request fails with a TimeoutError) or 'report' (it runs on; a report
// and a warning name it). Process-wide; main thread only, as for the budget.
function getThreadpoolTimeoutAction() {
  return require('internal/cure/threadpool').getThreadpoolTimeoutAction();
}

function setThreadpoolTimeoutAction(action) {
  validateOneOf(action, 'action', callbacks.timeoutActions);
  if (!internalBinding('worker').isMainThread) {
    throw new ERR_WORKER_UNSUPPORTED_OPERATION(
      'setThreadpoolTimeoutAction()');
  }
  require('internal/cure/threadpool').setThreadpoolTimeoutAction(action);
}

// The threadpool's counters: timeouts, abandoned threads, the slow-resource list.
function getThreadpoolStats() {
  return require('internal/cure/threadpool').getThreadpoolStats();
}

// Empties the slow-resource list (an administrative action).
function clearSlowResources() {
  binding().clearSlowResources();
}

module.exports = {
  TimeoutError,
  clearSlowResources,
  getEventLoopTimeout,
  getEventLoopTimeoutAction,
  getEventLoopTurnTimeout,
  getThreadpoolStats,
  getThreadpoolTimeout,
  getThreadpoolTimeoutAction,
  getTimeoutCounts,
  runWithEventLoopTimeout,
  setEventLoopTimeout,
  setEventLoopTimeoutAction,
  setEventLoopTurnTimeout,
  setThreadpoolTimeout,
  setThreadpoolTimeoutAction,
  withEventLoopTimeout,
};
