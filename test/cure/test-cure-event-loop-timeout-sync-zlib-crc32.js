// Flags: --event-loop-timeout=60000 --allow-natives-syntax
'use strict';
// zlib.crc32() over more than 1 MiB runs in pieces from a JavaScript loop
// (lib/internal/cure/pieces.js), where the budget is checked: it ran in one
// native call (4.7 s for a string of 2^29 - 24 characters on
// ./node-baseline, 0.54 s for 1 GiB), and optimized code called it through
// V8's fast API, which cannot throw. The string case would end seconds past
// the bound below if it were one call. Results that are not stopped are
// those of a run without the option: strings cut next to surrogate pairs,
// typed arrays and DataViews at offsets, chained values.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one: the rest of the callback, whose budget starts
// over after the TimeoutError, must not meet a second one (20 ms went by
// there under AddressSanitizer with two CPU hogs).
require('../common');
const assert = require('assert');
const zlib = require('zlib');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 20;

// Made while the main module runs (no budget).
// Flat: repeat() makes a tree of concatenations, and flattening it (half a
// second here) is V8's, not crc32's, and not stopped.
const hugeString = %FlattenString('a'.repeat(2 ** 29 - 24));
const big = Buffer.alloc(2 ** 31, 1);

// Optimized: the calls below are fast API calls.
function crc(data, value) {
  return zlib.crc32(data, value);
}
%PrepareFunctionForOptimization(crc);
crc(Buffer.from('x'), 1);
crc(Buffer.from('y'), 2);
%OptimizeFunctionOnNextCall(crc);
crc(Buffer.from('z'), 3);

const results = `(() => {
  const zlib = require('zlib');
  const M = 2 ** 20;
  const bytes = Buffer.alloc(3 * M + 17);
  let x = 5;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    bytes[i] = x & 0xff;
  }
  const out = [];
  for (const n of [0, 1, M - 1, M, M + 1, 2 * M, bytes.length]) {
    out.push(zlib.crc32(bytes.subarray(0, n)),
             zlib.crc32(bytes.subarray(7, n + 7), 12345));
  }
  const wide = new Uint32Array(bytes.buffer, 4, (3 * M) / 4);
  const view = new DataView(bytes.buffer, 3, 2 * M + 5);
  out.push(zlib.crc32(wide), zlib.crc32(view, 1), zlib.crc32(new Uint16Array(0)));
  // Strings: a surrogate pair across each piece boundary, lone halves,
  // and two-byte and one-byte strings longer than a piece.
  const pair = '\\u{1F600}';
  const strings = [
    'a'.repeat(M - 1) + pair + 'b'.repeat(M),
    'a'.repeat(M) + pair + 'c',
    'é'.repeat(M - 1) + '\\uD800' + 'x'.repeat(M),
    '\\uDC00' + 'y'.repeat(M - 1) + '\\uD800',
    'ab'.repeat(M + 3),
    pair.repeat(M),
  ];
  for (const s of strings) out.push(s.length, zlib.crc32(s), zlib.crc32(s, 99));
  // Chained: the value of one call continues the next.
  out.push(zlib.crc32(bytes.subarray(M), zlib.crc32(bytes.subarray(0, M))));
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertStopped('string of 2^29 - 24 characters',
                      () => crc(hugeString, 0), T),
  () => assertStopped('2 GiB, fast call', () => crc(big, 0), T),
  () => assertStopped('2 GiB through a DataView',
                      () => zlib.crc32(new DataView(big.buffer)), T),
  () => {
    // Nothing left behind: the next calls work.
    assert.strictEqual(crc(Buffer.from('hello'), 0), 907060870);
    assert.strictEqual(zlib.crc32('hello'), 907060870);
  },
  () => {
    // Within a budget (a generous one: the data is made in JavaScript) the
    // pieces give the values of a run without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
