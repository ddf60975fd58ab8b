// Flags: --event-loop-timeout=100
'use strict';
// Long-running builtins without a JS loop of their own poll for interrupts,
// so that a callback that spends its budget inside one of them gets a
// catchable TimeoutError there, and the loop goes on.
//
// Each input is built while the main module runs (its first evaluation is not
// bounded). Sizes are chosen to take well over 1 s (10 budgets) on stock
// Node 22 and Node 24 builds.
//
// TypedArray sort and the string searches: test-cure-event-loop-timeout-
// search-sort.js; the keys of a huge object: -keys.js. String comparison and
// repeat() stay short at any size a string can have.
require('../common');
const { assertInterrupted, lcg, runEachInACallback } =
  require('../common/cure');
const assert = require('assert');

const T = 100;

// Array.prototype.sort, default comparator: 8e6 Smis, compared as strings.
let smis = Array.from({ length: 8e6 }, lcg());
const smisHead = smis.slice(0, 8);

// Array.prototype.fill on a generic receiver: 1e8 Sets (above 2^32, on a
// typed array, so that they store nothing; 5e6 took 0.9 s on Node 22, 74 ms
// on Node 24).
const fillTarget = new Uint8Array(1);
Object.defineProperty(fillTarget, 'length', { value: 2 ** 32 + 1e8 });

// Object.values / Object.entries of a dictionary-mode object of 5e5 keys.
let dict = {};
for (let i = 0; i < 5e5; i++) dict['k' + i] = i;
delete dict.k0;

// String.prototype.replaceAll with a string pattern: 12.6e6 matches.
const many = 'a'.repeat(3 << 22);
many.indexOf('b');  // Flattened outside the timed callback.

const cases = [
  () => {
    assertInterrupted('Array.prototype.sort', () => smis.sort(), T);
    // An interrupted sort leaves the receiver as it was.
    assert.deepStrictEqual(smis.slice(0, 8), smisHead);
    assert.deepStrictEqual([10, 9, 1].sort(), [1, 10, 9]);
    smis = null;  // Inputs are dropped once used, to bound the peak memory.
  },
  () => assertInterrupted('Array.prototype.join',
                          () => Array.prototype.join.call({ length: 1e8 }, ''), T),
  () => assertInterrupted('Array.prototype.fill',
                          () => Array.prototype.fill.call(fillTarget, 0, 2 ** 32), T),
  () => assertInterrupted('Object.values', () => Object.values(dict), T),
  () => {
    assertInterrupted('Object.entries', () => Object.entries(dict), T);
    dict = null;
  },
  () => assertInterrupted('String.prototype.replaceAll',
                          () => many.replaceAll('a', 'b'), T),
];

runEachInACallback(cases);
