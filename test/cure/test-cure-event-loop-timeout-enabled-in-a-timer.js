'use strict';
// --event-loop-timeout first turned on at runtime, inside a timer: the next
// timer of the same list is timed, even when the first ran for more than
// the second after which an idle watchdog goes to sleep. The list begins
// each timer with stores of its own (no call into C++), and the first
// timer began before the watchdog existed, so nothing in C++ marks the
// scope: the list's stores must wake a sleeping watchdog themselves
// (`wakeWatchdog()`, lib/internal/timers.js). A version that left the
// wake-up to C++ never reported the second timer's endless loop.
const common = require('../common');
const assert = require('assert');
const { TimeoutError, setEventLoopTimeout } = require('node:cure');

function busy(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

setTimeout(common.mustCall(() => {
  setEventLoopTimeout(200);
  // Not timed: this callback began before the feature was on.
  busy(1500);
}), 0);

setTimeout(common.mustCall(() => {
  const start = performance.now();
  assert.throws(() => {
    while (performance.now() - start < 8000);
  }, TimeoutError);
  const elapsed = performance.now() - start;
  assert.ok(elapsed < 5000, `interrupted after ${elapsed} ms`);
  console.log(`interrupted after ${elapsed.toFixed(1)} ms`);
  setEventLoopTimeout(0);
}), 0);
