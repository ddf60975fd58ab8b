// Flags: --event-loop-timeout=60000
'use strict';
// Comparisons of long Latin text ran loops that nothing stopped: V8's own
// loop for ASCII under the root and English collators (16 Mi 'a' against
// as many 'A': 50 to 95 ms here), and ICU's fast Latin loops, which ran
// outside any IcuInterruptScope for ASCII text (compareUTF8()): 0.84 to
// 1 s with a Lithuanian collator, whose contractions make each step slow,
// 0.4 s for 8 Mi 'éa' against 'éA' (compareUTF16()). Both now poll
// (patches/v8/v8-a-long-comparison-of-strings-polls-for-a-due-timeout.patch,
// patches/icu/icu-let-the-embedder-stop-a-fast-latin-comparison.patch).
// A comparison that ran to its end would assign its result before the
// TimeoutError came (in the loop after it): a stop inside it leaves the
// variable unset. Comparisons within a budget give the results of a run
// without the option.
const common = require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 5;

// Made while the main module runs (no budget).
const N = 2 ** 24;
const lower = 'a'.repeat(N);
const upper = 'A'.repeat(N);
const accented = 'éa'.repeat(N / 2);
const accentedUpper = 'éA'.repeat(N / 2);
for (const s of [lower, upper, accented, accentedUpper]) s.indexOf('x');
const sortedLt = () =>
  ['y', 'b', 'ä', 'a', 'ch', 'c', 'i', 'A'].sort(new Intl.Collator('lt').compare);
const sortedBefore = sortedLt();

function assertStoppedInside(label, compare) {
  let result = 'unset';
  assertStopped(label, () => {
    result = compare();
    for (;;);
  }, T);
  assert.strictEqual(result, 'unset', `${label}: ran to its end`);
}

// Long comparisons that differ at each level, through each path: V8's
// ASCII loop (root, 'en'), ICU's fast Latin loops over UTF-8 ('de', 'lt'
// with ASCII) and UTF-16 (Latin-1 text), and a length difference.
const results = `(() => {
  const n = 200000;
  const pairs = [
    ['a'.repeat(n), 'A'.repeat(n)],
    ['a'.repeat(n) + 'b', 'A'.repeat(n) + 'a'],
    ['ab'.repeat(n), 'ab'.repeat(n) + 'c'],
    ['éa'.repeat(n), 'éA'.repeat(n)],
    ['ch'.repeat(n), 'c'.repeat(n) + 'h'.repeat(n)],
    ['a b'.repeat(n), 'a-b'.repeat(n)],
  ];
  const collators = [
    new Intl.Collator(), new Intl.Collator('de'), new Intl.Collator('lt'),
    new Intl.Collator('da', { caseFirst: 'upper' }),
    new Intl.Collator('en', { usage: 'search', sensitivity: 'base' }),
    new Intl.Collator('en', { ignorePunctuation: true }),
  ];
  const out = [];
  for (const [a, b] of pairs) {
    out.push(a.localeCompare(b), b.localeCompare(a));
    for (const c of collators) out.push(c.compare(a, b), c.compare(b, a));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertStoppedInside('localeCompare() of ASCII',
                            () => lower.localeCompare(upper)),
  () => assertStoppedInside('Intl.Collator("lt") of ASCII',
                            () => new Intl.Collator('lt').compare(lower,
                                                                  upper)),
  () => assertStoppedInside('localeCompare() of Latin-1',
                            () => accented.localeCompare(accentedUpper)),
  () => {
    // A stopped comparison leaves nothing behind.
    assert.strictEqual('a'.localeCompare('A'), -1);
    assert.deepStrictEqual(sortedLt(), sortedBefore);
  },
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);
