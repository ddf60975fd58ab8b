// Flags: --event-loop-timeout=100
'use strict';
// The generic paths of the Array methods walk every index up to an
// array-like's `length`, which a client sets in a few bytes of JSON; with
// no element there, nothing ran that checked for interrupts, for minutes.
// They poll for the timeout: each is interrupted with the callback's
// TimeoutError, cold and after warm-up, and the results on ordinary
// array-likes are those of a run without the option.
require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertInterrupted,
  printWithoutOptions,
  runEachInACallback,
} = require('../common/cure');

const T = 100;
const A = Array.prototype;
const max = 2 ** 32 - 1;
// What a client sends: one element and a huge length.
const huge = JSON.parse(`{"length":${max},"0":1}`);
const spreadable = () => {
  const o = JSON.parse(`{"length":${max}}`);
  o[Symbol.isConcatSpreadable] = true;
  return o;
};
const f = () => {};

const cases = [
  ['forEach', () => A.forEach.call(huge, f)],
  ['map', () => A.map.call(huge, f)],
  ['filter', () => A.filter.call(huge, f)],
  ['some', () => A.some.call(huge, () => false)],
  ['every', () => A.every.call(huge, () => true)],
  ['find', () => A.find.call(huge, () => false)],
  ['findIndex', () => A.findIndex.call(huge, () => false)],
  ['findLast', () => A.findLast.call(huge, () => false)],
  ['findLastIndex', () => A.findLastIndex.call(huge, () => false)],
  ['reduce', () => A.reduce.call(huge, (a) => a, 0)],
  ['reduceRight', () => A.reduceRight.call(huge, (a) => a, 0)],
  ['lastIndexOf', () => A.lastIndexOf.call(huge, 2)],
  ['reverse', () => A.reverse.call({ length: max })],
  ['copyWithin', () => A.copyWithin.call({ length: max }, 0, 1)],
  ['slice', () => A.slice.call(huge, 0)],
  ['splice', () => A.splice.call({ length: max }, 0, 1)],
  ['shift', () => A.shift.call({ length: max })],
  ['unshift', () => A.unshift.call({ length: max - 1 }, 1)],
  ['flat', () => A.flat.call(huge)],
  ['with', () => A.with.call({ length: max }, 0, 1)],
  ['toReversed', () => A.toReversed.call({ length: max })],
  ['toSpliced', () => A.toSpliced.call({ length: max - 1 }, 0, 0)],
  ['Array.from', () => Array.from({ length: max })],
  ['sort with a comparator',
   () => A.sort.call({ length: 2 ** 31 - 2, 0: 2, 1: 1 }, (a, b) => a - b)],
  ['concat of a spreadable array-like', () => [].concat(spreadable())],
  ['Uint8Array from an array-like', () => new Uint8Array({ length: 2 ** 30 })],
];

// Ordinary and sparse array-likes, every method: a digest of the results.
const ordinary = `(() => {
  const A = Array.prototype;
  const make = () => ({ length: 7, 0: 3, 2: 1, 3: undefined, 5: 'x', 6: 2 });
  const sparse = () => { const o = { length: 30000 }; o[5] = 9;
                         o[25000] = 4; o[29999] = 7; return o; };
  const out = [];
  const keep = (v) => out.push(JSON.stringify(v, (k, x) =>
    x === undefined ? '<u>' : x));
  for (const mk of [make, sparse]) {
    const cb = (v, i) => (typeof v === 'number' ? v * 2 + i : String(v));
    keep(A.map.call(mk(), cb).filter(() => true));
    keep(A.filter.call(mk(), (v) => v !== undefined));
    const seen = []; A.forEach.call(mk(), (v, i) => seen.push(i)); keep(seen);
    keep([A.some.call(mk(), (v) => v === 7), A.every.call(mk(), (v) => v)]);
    keep([A.find.call(mk(), (v) => v === 'x'), A.findIndex.call(mk(), (v) => v === 2),
          A.findLast.call(mk(), (v) => typeof v === 'number'),
          A.findLastIndex.call(mk(), (v) => v === 3)]);
    keep([A.reduce.call(mk(), (a, v) => a + String(v), ''),
          A.reduceRight.call(mk(), (a, v) => a + String(v), '')]);
    keep([A.lastIndexOf.call(mk(), 2), A.lastIndexOf.call(mk(), 9)]);
    keep(A.reverse.call(mk())); keep(A.copyWithin.call(mk(), 1, 3));
    keep(A.slice.call(mk(), 1, -1)); const s = mk();
    keep([A.splice.call(s, 1, 2, 'a'), s]); const t = mk();
    keep([A.shift.call(t), t]); const u = mk(); keep([A.unshift.call(u, 0), u]);
    keep(A.flat.call(mk())); keep(A.with.call(mk(), 1, 'w'));
    keep(A.toReversed.call(mk())); keep(A.toSpliced.call(mk(), 1, 1, 'z'));
    keep(Array.from(mk())); const v = mk();
    keep(A.sort.call(v, (a, b) => String(a).localeCompare(String(b))));
    const w = mk(); w[Symbol.isConcatSpreadable] = true;
    keep([0].concat(w));
    keep(Array.from(new Float64Array(mk())));
  }
  return require('crypto').createHash('sha256').update(out.join('|'))
    .digest('hex');
})()`;

const expected = printWithoutOptions(ordinary);
// Here with the option (the builtins' polling paths), with no budget: the
// digest takes tens of milliseconds.
const checkOrdinary = () => assert.strictEqual(
  runWithEventLoopTimeout(0, () => eval(ordinary)), expected);

runEachInACallback([
  checkOrdinary,
  ...cases.map(([label, fn]) => () => assertInterrupted(label, fn, T)),
  () => {
    // Warm the callers up (optimized code reaches the same builtins).
    const each = (o) => A.forEach.call(o, f);
    const rev = (o) => A.reverse.call(o);
    for (let i = 0; i < 2e4; i++) {
      each({ length: 3, 1: i });
      rev({ length: 3, 1: i });
    }
    assertInterrupted('warm forEach', () => each(huge), T);
  },
  () => assertInterrupted('warm reverse',
                          () => A.reverse.call({ length: max }), T),
  checkOrdinary,
]);
