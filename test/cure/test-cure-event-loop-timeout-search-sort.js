// Flags: --event-loop-timeout=100
'use strict';
// TypedArray.prototype.sort and the string searches (indexOf, includes,
// lastIndexOf, split, replace and replaceAll with a global atom pattern) run
// in C++ without a JS loop: they poll for a pending timeout, so that a
// callback that spends its budget inside one of them gets a catchable
// TimeoutError there.
//
// Inputs are built while the main module runs (not bounded) and take well
// over 1 s (10 budgets) on a stock Node 22 build here, and on nodecure's
// (whose global atom replace of a long subject is ~7 times faster).
require('../common');
const { assertInterrupted, lcg, runEachInACallback } =
  require('../common/cure');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');

const T = 100;

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

const cases = [
  () => {
    assertInterrupted('TypedArray.prototype.sort', () => doubles.sort(), T);
    // An interrupted sort leaves a permutation of the elements (checked
    // without a budget: it takes a while).
    assert.strictEqual(runWithEventLoopTimeout(0, sum, doubles), doublesSum);
    doubles = null;  // Inputs are dropped once used, to bound the peak memory.
  },
  () => assertInterrupted('String.prototype.indexOf', () => as.indexOf(aab), T),
  () => {
    // Optimized callers: test-cure-event-loop-timeout-search-optimized.js.
    assertInterrupted('String.prototype.includes', () => as.includes(aab), T);
  },
  // 2^27 matches of a one-character atom.
  () => assertInterrupted('String.prototype.replace (global atom)',
                          () => as.replace(/a/g, ';'), T),
  () => {
    assertInterrupted('String.prototype.replaceAll (global atom)',
                      () => as.replaceAll(/a/g, ''), T);
    as = null;
  },
  () => {
    assertInterrupted('String.prototype.lastIndexOf',
                      () => backwards.lastIndexOf(longPattern), T);
    backwards = null;
  },
  () => {
    assertInterrupted('String.prototype.split', () => parts.split('a'), T);
    parts = null;
  },
];

runEachInACallback(cases);
