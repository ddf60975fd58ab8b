// Flags: --event-loop-timeout=60000
'use strict';
// The builtin loops that step an iterator whose next() is a builtin check
// for interrupts between its values: spreading it
// (patches/v8/v8-spreading-an-iterable-checks-for-interrupts-between-its-values.patch),
// Array.from(), Object.fromEntries(), Iterator.prototype.toArray() and
// drop() (patches/v8/v8-array-from-object-fromentries-and-iterator-helpers-check-for-interrup.patch),
// and the fast path of spreading a string
// (patches/v8/v8-spreading-a-string-checks-for-interrupts-between-its-characters.patch).
// Over 15 MB of text's segments each ran about 2 s on ./node-baseline with
// no JavaScript in between to check the budget, and [...string] of 96 Mi
// characters 7 to 13 s, far past the bound below.
// Loops that are not stopped give the values of a run without the option.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one: the rest of the callback, whose budget starts
// over after the TimeoutError, may meet a major GC of millions of segments.
require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget).
const text = 'hello world, this is a test. '.repeat(2 ** 19);
const words = new Intl.Segmenter('en', { granularity: 'word' });
const graphemes = new Intl.Segmenter('en');
// Flat (an external string): flattening a rope is V8's, and not stopped.
const long = Buffer.alloc(96 * 2 ** 20, 'x').toString('latin1');

const results = `(() => {
  const words = new Intl.Segmenter('en', { granularity: 'word' });
  const text = 'Hello, wörld! 😀 ' + 'ab cd. '.repeat(5000);
  const out = [];
  const spread = [...words.segment(text)];
  out.push(spread.length, spread.slice(0, 6).map((s) => s.segment),
           spread.filter((s) => s.isWordLike).length);
  out.push([...new Intl.Segmenter('en').segment('é😀👍🏽x')]
    .map((s) => s.segment));
  out.push([...Iterator.from(words.segment(text)).drop(3).take(4)]
    .map((s) => s.index));
  out.push([...new Set([3, 1, 2]).values()], [...new Map([[1, 'a']])]);
  out.push(new Intl.ListFormat('en').format(new Set(['a', 'b', 'c']).values()));
  out.push(Array.prototype.concat.apply([], [...'héllo😀']));
  const mixed = 'a😀b\\uD800c\\uDC00'.repeat(50000) + '😀';
  const chars = [...mixed];
  out.push(chars.length, chars.slice(-8), Array.from(mixed).length);
  const it = () => words.segment(text)[Symbol.iterator]();
  out.push(Array.from(words.segment(text), (s) => s.index).slice(-3));
  out.push(Array.from(new Map([[1, 2], [3, 4]]).keys()));
  out.push(Iterator.from(it()).toArray().length,
           Iterator.from(it()).drop(9990).toArray().map((s) => s.segment));
  out.push(Object.entries(Object.fromEntries(
    Iterator.from(it()).take(5).map((s) => [s.segment, s.index]))));
  out.push(Object.fromEntries(new Map([['a', 1], ['b', 2]]).entries()));
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertStopped('[...words.segment(text)]',
                      () => [...words.segment(text)], T),
  () => assertStopped('[...graphemes.segment(text)]',
                      () => [...graphemes.segment(text)], T),
  () => assertStopped('an iterator helper over the segments',
                      () => [...Iterator.from(words.segment(text)).drop(1)], T),
  () => assertStopped('Array.from(segments)',
                      () => Array.from(words.segment(text)), T),
  () => assertStopped('Iterator.prototype.toArray()',
                      () => Iterator.from(words.segment(text)).toArray(), T),
  () => assertStopped('Iterator.prototype.drop()',
                      () => Iterator.from(words.segment(text))
                        .drop(Infinity).next(), T),
  () => assertStopped('[...string] of 96 Mi characters', () => [...long], T),
  () => {
    // Object.fromEntries() of a Map's entries iterator over a copy of the
    // segments in a Map (made with a budget of its own: its making calls
    // into JavaScript and checks anyway).
    const map = runWithEventLoopTimeout(0, () => new Map(
      Array.from({ length: 2 ** 22 }, (_, i) => [`k${i}`, i])));
    assertStopped('Object.fromEntries(map.entries())',
                  () => Object.fromEntries(map.entries()), T);
  },
  () => {
    // A stopped loop leaves nothing behind: the next ones work.
    assert.deepStrictEqual([...words.segment('a b')].map((s) => s.segment),
                           ['a', ' ', 'b']);
  },
  () => {
    // Within a budget the spreads give the values of a run without the
    // option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
