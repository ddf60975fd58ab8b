// Flags: --event-loop-timeout=100
'use strict';
// BigInt multiplication, division and remainder of operands of millions of
// digits ran in one call of the engine's generated code, which stops only
// for termination, so they ran to their end past any timeout. Long
// operands now take the runtime, where a due timeout stops the bigint
// library: each is interrupted with the callback's TimeoutError, from the
// interpreter and from optimized code. Results across the length at which
// the path changes (1024 digits of 64 bits) satisfy the identities of
// integer division.
require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 100;

// Built during the main module, which has no budget: 31.7 million bits.
const x = 3n ** 20_000_000n;
const y = x + 1n;
const square = x * x;

function mul(a, b) { return a * b; }
function div(a, b) { return a / b; }
function mod(a, b) { return a % b; }

// Without a budget (runWithEventLoopTimeout(0)): the identities take tens
// of milliseconds, more than T on a loaded machine.
const checkOrdinary = () => runWithEventLoopTimeout(0, identities);

function identities() {
  // Lengths around the threshold, and signs.
  for (const bits of [64, 4000, 65000, 65600, 66000, 140000, 300000]) {
    const a = (1n << BigInt(bits)) / 3n + 12345n;
    for (const b of [7n, -(1n << 65000n) + 99n, (1n << 70000n) / 5n, a]) {
      const q = div(a * b + 17n, b);
      const r = mod(a * b + 17n, b);
      assert.strictEqual(q * b + r, mul(a, b) + 17n, `bits ${bits}`);
      const small = b < 0n ? -b : b;
      assert.ok((r < 0n ? -r : r) < small, `bits ${bits}: remainder`);
      assert.strictEqual(mul(-a, b), -(a * b));
    }
  }
}

runEachInACallback([
  checkOrdinary,
  () => assertInterrupted('x * x (31.7M bits)', () => mul(x, x), T),
  () => assertInterrupted('x * x / (x + 1)', () => div(square, y), T),
  () => assertInterrupted('x * x % (x + 1)', () => mod(square, y), T),
  () => {
    // Optimized code (speculating BigInt operands) reaches the same path.
    for (let i = 0; i < 2e4; i++) {
      mul(BigInt(i), 3n);
      div(BigInt(i), 3n);
      mod(BigInt(i), 3n);
    }
    assertInterrupted('warm *', () => mul(x, x), T);
  },
  () => assertInterrupted('warm /', () => div(square, y), T),
  () => assertInterrupted('warm %', () => mod(square, y), T),
  checkOrdinary,
]);
