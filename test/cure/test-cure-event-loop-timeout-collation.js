// Flags: --event-loop-timeout=60000
'use strict';
// ICU's collation fetches the collation elements of both strings in one
// loop, normalizing text that is not FCD as it goes; it now polls every
// 1024 primary weights while V8 has a timeout to deliver
// (patches/icu/icu-let-the-embedder-stop-a-collation-s-primary-loop.patch;
// Intl::CompareStrings() already ran it in an IcuInterruptScope). The two
// equal strings below (16 Mi precomposed 'é' against 'e' and a combining
// acute) took about 1.4 s to compare on ./node-baseline, with nothing
// asking for the budget. Comparisons within a budget give the results of
// a run without the option.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one (see test-cure-event-loop-timeout-structured-clone.js).
const common = require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget).
const composed = 'é'.repeat(2 ** 24);
const decomposed = 'e\u0301'.repeat(2 ** 24);
composed.indexOf('x');
decomposed.indexOf('x');

// Comparisons of long strings that differ at various levels, with and
// without the option.
const results = `(() => {
  const n = 300000;
  const pairs = [
    ['é'.repeat(n), 'e\\u0301'.repeat(n)],
    ['é'.repeat(n) + 'a', 'e\\u0301'.repeat(n) + 'b'],
    ['ä'.repeat(n) + 'ö', 'a\\u0308'.repeat(n) + 'o'],
    ['Straße'.repeat(n), 'STRASSE'.repeat(n)],
    ['ǅ'.repeat(n), 'Dž'.repeat(n)],
    ['한국어'.repeat(n), '한국어'.repeat(n - 1) + '한국'],
  ];
  const out = [];
  for (const [a, b] of pairs) {
    out.push(a.localeCompare(b), b.localeCompare(a),
             a.localeCompare(b, 'de', { sensitivity: 'base' }),
             new Intl.Collator('sv', { numeric: true }).compare(a, b),
             new Intl.Collator('en', { ignorePunctuation: true,
                                       caseFirst: 'upper' }).compare(b, a));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertStopped('localeCompare()',
                      () => composed.localeCompare(decomposed), T),
  () => assertStopped('Intl.Collator.prototype.compare()',
                      () => new Intl.Collator('fr').compare(decomposed,
                                                            composed), T),
  () => {
    // A stopped comparison leaves nothing behind.
    assert.strictEqual('é'.localeCompare('e\u0301'), 0);
    assert.strictEqual(['b', 'ä', 'a'].sort(new Intl.Collator('de').compare)
                         .join(''), 'aäb');
  },
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);
