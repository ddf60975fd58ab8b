// Flags: --event-loop-timeout=100
'use strict';
// Long BigInt operations of the runtime poll for the timeout: an
// exponentiation of a few bytes of source, and the conversion of a BigInt
// of millions of digits to a string, are interrupted with the callback's
// TimeoutError (both run for seconds upstream), cold and after warm-up.
// Ordinary results are those of a run without the option.
require('../common');
const assert = require('assert');
const {
  assertInterrupted,
  printWithoutOptions,
  runEachInACallback,
} = require('../common/cure');

const T = 100;

// Built during the main module, which has no budget: 4.8 million digits.
const big = 3n ** 10_000_000n;

function pow(e) { return 3n ** e; }
function print(x) { return x.toString(); }

// The same results as without a budget (computed in a child without it).
const ordinary = `
  const crypto = require('crypto');
  const h = (s) => crypto.createHash('sha256').update(s).digest('hex');
  const out = [];
  for (const e of [1n, 64n, 1000n, 65537n, 400000n])
    out.push(h((7n ** e).toString()), h((-7n) ** e + ''),
             h((7n ** e * 13n ** e).toString(36)));
  out.join(',');`;
const expected = printWithoutOptions(ordinary);
// Here, with the option: the runtime takes its interruptible paths.
assert.strictEqual(eval(ordinary), expected);

runEachInACallback([
  () => assertInterrupted('3n ** 200_000_000n', () => pow(200_000_000n), T),
  () => assertInterrupted('toString() of 4.8M digits', () => print(big), T),
  () => {
    // Warm the functions up, then again.
    for (let i = 0; i < 2e4; i++) { pow(3n); print(12345n); }
    assertInterrupted('warm pow', () => pow(200_000_000n), T);
  },
  () => assertInterrupted('warm toString()', () => print(big), T),
]);
