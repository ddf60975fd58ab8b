// Flags: --event-loop-timeout=100
'use strict';
// TypedArray.prototype.sort and the string searches (indexOf, includes,
// lastIndexOf, split) run in C++ without a JS loop: they poll for a pending timeout, so that a callback that spends
// its budget inside one of them gets a catchable TimeoutError there.
//
// Inputs are built while the main module runs (not bounded) and take well
// over 1 s (10 budgets) on a stock Node 22 build here.
const common = require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');

const T = 100;

// A pseudo-random sequence (a linear congruential generator).
function lcg() {
  let x = 12345;
  return () => {
    x = (x * 1103515245 + 12345) & 0x3fffffff;
    return x;
  };
}

// Default (numeric) sort of 2^24 doubles.
let doubles = Float64Array.from({ length: 2 ** 24 }, lcg());
const sum = (array) => array.reduce((a, b) => a + b, 0);
const doublesSum = sum(doubles);

// O(n * m) searches: a pattern of five 'a's and a 'b' against 2^27 'a's
// compares six characters at almost every index.
let as = 'a'.repeat(2 ** 27);
as.indexOf('b');  // Flattened outside the timed callbacks.
const aab = 'aaaaab';

// lastIndexOf is naive: 2^20 candidates of up to 2^12 characters each.
let backwards = 'a'.repeat(2 ** 20);
backwards.indexOf('b');
const longPattern = 'a'.repeat(2 ** 12) + 'b';

// split of 2^25 characters: 2^25 matches.
let parts = 'a'.repeat(2 ** 25);
parts.indexOf('b');

function interrupted(label, fn) {
  const start = performance.now();
  assert.throws(fn, (err) => {
    assert.ok(err instanceof TimeoutError, `${label}: ${err}`);
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    return true;
  }, `${label}: not interrupted`);
  const elapsed = performance.now() - start;
  // The design target is T + 50 ms; the bound is generous for loaded test
  // machines (the times are printed).
  assert.ok(elapsed < T + 1000, `${label}: interrupted after ${elapsed} ms`);
  console.log(`${label}: interrupted after ${elapsed.toFixed(1)} ms`);
}

const cases = [
  () => {
    interrupted('TypedArray.prototype.sort', () => doubles.sort());
    // An interrupted sort leaves a permutation of the elements (checked
    // without a budget: it takes a while).
    assert.strictEqual(runWithEventLoopTimeout(0, sum, doubles), doublesSum);
    doubles = null;  // Inputs are dropped once used, to bound the peak memory.
  },
  () => interrupted('String.prototype.indexOf', () => as.indexOf(aab)),
  () => {
    // Optimized callers: test-cure-event-loop-timeout-search-optimized.js.
    interrupted('String.prototype.includes', () => as.includes(aab));
    as = null;
  },
  () => {
    interrupted('String.prototype.lastIndexOf',
                () => backwards.lastIndexOf(longPattern));
    backwards = null;
  },
  () => {
    interrupted('String.prototype.split', () => parts.split('a'));
    parts = null;
  },
];

// One case per callback, each in its own setImmediate; the next callback is
// not hit by the previous one's timeout.
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
