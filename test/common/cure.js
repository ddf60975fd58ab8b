'use strict';
// nodecure: helpers shared by the tests of long builtins under
// --event-loop-timeout (test/cure/test-cure-event-loop-timeout-*.js).

const assert = require('assert');
const common = require('./');

// A pseudo-random sequence of 30-bit integers (a linear congruential
// generator), the same for every run.
function lcg(seed = 12345) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x3fffffff;
    return x;
  };
}

// Asserts that fn() is interrupted by the event-loop TimeoutError of a
// budget of `budget` ms, and prints how long after its call. The design
// target is budget + 50 ms; the bound is generous for loaded test machines.
function assertInterrupted(label, fn, budget) {
  const start = performance.now();
  assert.throws(fn, (err) => {
    assert.ok(err instanceof TimeoutError, `${label}: ${err}`);
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    return true;
  }, `${label}: not interrupted`);
  const elapsed = performance.now() - start;
  assert.ok(elapsed < budget + 1000, `${label}: interrupted after ${elapsed} ms`);
  console.log(`${label}: interrupted after ${elapsed.toFixed(1)} ms`);
}

// Runs each of `cases` in a setImmediate callback of its own, one after the
// other, so that a case's timeout never reaches the next one.
function runEachInACallback(cases) {
  (function next(i) {
    if (i === cases.length) {
      setTimeout(common.mustCall(), 1);
      return;
    }
    setImmediate(common.mustCall(() => {
      cases[i]();
      next(i + 1);
    }));
  })(0);
}

module.exports = { assertInterrupted, lcg, runEachInACallback };
