// Flags: --event-loop-timeout=100
'use strict';
// The list of locales given to an Intl constructor, toLocaleString() or
// Intl.getCanonicalLocales() was de-duplicated by a linear search of the
// tags seen so far (quadratic: 20,000 distinct tags took about half a
// second, 100,000 over ten), and its loop over an array-like's `length`
// (up to 2^32 - 1) never checked for interrupts. The tags seen are now kept
// in a set, and the loop polls: a long list is interrupted with the
// callback's TimeoutError. Results (the order of first occurrence) are
// unchanged.
require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertInterrupted,
  printWithoutOptions,
  runEachInACallback,
} = require('../common/cure');

const T = 100;

// 400,000 distinct private-use tags (about 3 s to canonicalize upstream even
// without the quadratic de-duplication) and an array-like of 2^32 - 1.
const tags = Array.from({ length: 400_000 },
                        (_, i) => `en-x-${i.toString(36).padStart(8, 'a')}`);
const arrayLike = { length: 2 ** 32 - 1, 0: 'en' };

const ordinary = `
  const list = [];
  for (let i = 0; i < 3000; i++) list.push('de-x-' + (i % 1200), 'EN-us', 'fr');
  const l = Intl.getCanonicalLocales(list);
  [l.length, l.slice(0, 4).join(), l.slice(-2).join(),
   Intl.getCanonicalLocales({ length: 3, 0: 'zh-hant-tw', 2: 'ZH-Hant-TW' }).join(),
   new Intl.NumberFormat(['xx', 'de']).resolvedOptions().locale,
   (1234.5).toLocaleString(['de-DE', 'de-DE']),
   Intl.getCanonicalLocales([]).length].join('|');`;
const expected = printWithoutOptions(ordinary);

function canonical(list) { return Intl.getCanonicalLocales(list); }

runEachInACallback([
  // Under a budget that a loaded machine does not exhaust (the callback's
  // is T): 9,000 tags take tens of milliseconds.
  () => assert.strictEqual(
    runWithEventLoopTimeout(60_000, () => eval(ordinary)), expected),
  () => assertInterrupted('getCanonicalLocales() of 400,000 tags',
                          () => canonical(tags), T),
  () => assertInterrupted('new Intl.Collator() of 400,000 tags',
                          () => new Intl.Collator(tags), T),
  () => assertInterrupted('getCanonicalLocales() of length 2^32 - 1',
                          () => canonical(arrayLike), T),
  () => assertInterrupted('toLocaleString() of length 2^32 - 1',
                          () => (1).toLocaleString(arrayLike), T),
  // Warmed up with a budget that a loaded machine does not exhaust (the
  // callback's is T), then interrupted in a callback of its own.
  () => runWithEventLoopTimeout(60_000, () => {
    for (let i = 0; i < 2e4; i++) canonical(['en', 'de']);
  }),
  () => assertInterrupted('warm getCanonicalLocales()', () => canonical(tags), T),
]);
