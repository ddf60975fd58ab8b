// Flags: --event-loop-timeout=100
'use strict';
// Long-running builtins without a JS loop of their own poll for interrupts,
// so that a callback that spends its budget inside one of them gets a
// catchable TimeoutError there, and the loop goes on.
//
// Each input is built while the main module runs (its first evaluation is not
// bounded). Sizes are chosen to take well over 1 s (10 budgets) on a stock
// Node 22 build.
//
// TypedArray sort and the string searches: test-cure-event-loop-timeout-
// search-sort.js; the keys of a huge object: -keys.js. String comparison and
// repeat() stay short at any size a string can have.
const common = require('../common');
const assert = require('assert');

const T = 100;

// A pseudo-random sequence (a linear congruential generator).
function lcg() {
  let x = 12345;
  return () => {
    x = (x * 1103515245 + 12345) & 0x3fffffff;
    return x;
  };
}

// Array.prototype.sort, default comparator: 8e6 Smis, compared as strings.
let smis = Array.from({ length: 8e6 }, lcg());
const smisHead = smis.slice(0, 8);

// Array.prototype.fill on a generic receiver: 5e6 Sets (above 2^32, on a
// typed array, so that they store nothing).
const fillTarget = new Uint8Array(1);
Object.defineProperty(fillTarget, 'length', { value: 2 ** 32 + 5e6 });

// Object.values / Object.entries of a dictionary-mode object of 5e5 keys.
let dict = {};
for (let i = 0; i < 5e5; i++) dict['k' + i] = i;
delete dict.k0;

// String.prototype.replaceAll with a string pattern: 12.6e6 matches.
const many = 'a'.repeat(3 << 22);
many.indexOf('b');  // Flattened outside the timed callback.

function interrupted(label, fn) {
  const start = performance.now();
  assert.throws(fn, (err) => {
    assert.ok(err instanceof TimeoutError, `${label}: ${err}`);
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    return true;
  }, `${label}: not interrupted`);
  const elapsed = performance.now() - start;
  // The budget is counted from the callback's start; the design target is
  // T + 50 ms, the bound here is generous for loaded test machines.
  assert.ok(elapsed < T + 1000, `${label}: interrupted after ${elapsed} ms`);
  console.log(`${label}: interrupted after ${elapsed.toFixed(1)} ms`);
}

const cases = [
  () => {
    interrupted('Array.prototype.sort', () => smis.sort());
    // An interrupted sort leaves the receiver as it was.
    assert.deepStrictEqual(smis.slice(0, 8), smisHead);
    assert.deepStrictEqual([10, 9, 1].sort(), [1, 10, 9]);
    smis = null;  // Inputs are dropped once used, to bound the peak memory.
  },
  () => interrupted('Array.prototype.join',
                    () => Array.prototype.join.call({ length: 1e8 }, '')),
  () => interrupted('Array.prototype.fill',
                    () => Array.prototype.fill.call(fillTarget, 0, 2 ** 32)),
  () => interrupted('Object.values', () => Object.values(dict)),
  () => {
    interrupted('Object.entries', () => Object.entries(dict));
    dict = null;
  },
  () => interrupted('String.prototype.replaceAll',
                    () => many.replaceAll('a', 'b')),
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
