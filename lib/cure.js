'use strict';

// node:cure — nodecure's timeouts (doc/api/cure.md).

const {
  ReflectApply,
} = primordials;

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

// Runs fn(...args) with a budget of `ms` counted from the call (0: no
// budget); after it, the callback goes on with its budget, counted afresh.
function runWithEventLoopTimeout(ms, fn, ...args) {
  validateInteger(ms, 'ms', 0, kMaxBudget);
  validateFunction(fn, 'fn');
  const previous =
    callbacks.setCallbackBudget(ms === 0 ? callbacks.kNoBudget : ms);
  try {
    return ReflectApply(fn, undefined, args);
  } finally {
    callbacks.setCallbackBudget(previous);
  }
}

// How many timeouts this thread's event loop has had.
function getTimeoutCounts() {
  return { eventLoop: binding().getEventLoopTimeoutState()[1] };
}

module.exports = {
  TimeoutError,
  getEventLoopTimeout,
  getTimeoutCounts,
  runWithEventLoopTimeout,
  setEventLoopTimeout,
};
