// Flags: --event-loop-timeout=500
'use strict';
// The conversion of a string of millions of digits to a BigInt (BigInt(),
// and the comparisons of a BigInt with a string: ==, <) ran in the bigint
// library, which stopped only for termination: 10 million digits take
// seconds. A due timeout now stops it too, with the callback's TimeoutError,
// cold and after warm-up. Ordinary conversions give the results of a run
// without the option; a BigInt literal of the source is compiled as before.
require('../common');
const assert = require('assert');
const {
  assertInterrupted,
  printWithoutOptions,
  runEachInACallback,
} = require('../common/cure');

// Wide enough for the ordinary conversions and the warm-up loops on a
// loaded machine (the long inputs take seconds).
const T = 500;

// 10 million decimal digits: about 2 s to convert on a stock Node 22 build.
const digits = '7'.repeat(10_000_000);

function toBigInt(s) { return BigInt(s); }
function equal(b, s) { return b == s; }  // eslint-disable-line eqeqeq
function less(b, s) { return b < s; }

// The same results as without a budget (computed in a child without it).
const ordinary = `
  const crypto = require('crypto');
  const h = (s) => crypto.createHash('sha256').update(s).digest('hex');
  const out = [];
  for (const n of [1, 19, 20, 400, 1000, 30000, 200000]) {
    const s = '9876543210'.repeat(Math.ceil(n / 10)).slice(0, n);
    const b = BigInt(s);
    out.push(h(b.toString(16)), h(BigInt('-' + s).toString(36)),
             String(b == s), String(b < s + '1'), String(b > '0x' + s));
  }
  out.push(String(BigInt('0x' + 'f'.repeat(50000)) % 1000003n),
           String(BigInt('0b' + '10'.repeat(40000)) % 1000003n),
           String(BigInt('  0o' + '7'.repeat(30000) + '  ') % 1000003n),
           String(123456789012345678901234567890123456789n * 3n));
  let e;
  try { BigInt('12x'); } catch (err) { e = err.name; }
  out.push(e, String(1n == '1.5'), String(1n < 'x'));
  out.join(',');`;
const expected = printWithoutOptions(ordinary);

runEachInACallback([
  // Here, with the option, inside a callback: the interruptible paths.
  () => assert.strictEqual(eval(ordinary), expected),
  () => assertInterrupted('BigInt() of 10M digits', () => toBigInt(digits), T),
  () => assertInterrupted('3n == 10M digits', () => equal(3n, digits), T),
  () => assertInterrupted('3n < 10M digits', () => less(3n, digits), T),
  () => {
    for (let i = 0; i < 2e4; i++) {
      toBigInt(String(i));
      equal(3n, String(i));
      less(3n, String(i));
    }
    assertInterrupted('warm BigInt()', () => toBigInt(digits), T);
  },
  () => assertInterrupted('warm ==', () => equal(3n, digits), T),
  () => assert.strictEqual(eval(ordinary), expected),
]);
