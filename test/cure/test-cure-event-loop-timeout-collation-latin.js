// Flags: --event-loop-timeout=60000 --allow-natives-syntax
'use strict';
// Comparisons of long Latin text ran loops that nothing stopped: V8's own
// loop for ASCII (localeCompare() with the root or an English locale: 16
// Mi 'a' against as many 'A', 50 to 95 ms here; in optimized code, a
// Torque builtin of its own), and ICU's fast Latin loops, which ran outside
// any IcuInterruptScope for ASCII text (compareUTF8()): 0.84 to 1 s with a
// Lithuanian collator, whose contractions make each step slow, 0.4 s for 8
// Mi 'éa' against 'éA' (compareUTF16()). ICU's loops counted steps but not
// the ignorable characters skipped inside one (16 Mi '\u0001' after a
// letter: 0.3 s between two polls), nor a numeric run of digits, which is
// one element (16 Mi digits: 0.7 to 0.8 s). All of them now poll
// (patches/v8/v8-a-long-comparison-of-strings-polls-for-a-due-timeout.patch,
// patches/icu/icu-let-the-embedder-stop-a-fast-latin-comparison.patch,
// patches/icu/icu-let-the-embedder-stop-a-collation-s-primary-loop.patch,
// patches/icu/icu-let-the-embedder-stop-a-numeric-comparison-of-a-long-run-of-digits.patch),
// and a stop deferred while Node's own code runs is taken after the
// deferral rather than dropped. A comparison that ran to its end would
// assign its result before the TimeoutError came (in the loop after it): a
// stop inside it leaves the variable unset. Comparisons within a budget
// give the results of a run without the option.
const common = require('../common');
const assert = require('assert');
const vm = require('vm');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertStopped, assertStoppedInside, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 5;

// Made while the main module runs (no budget).
const N = 2 ** 24;
const lower = 'a'.repeat(N);
const upper = 'A'.repeat(N);
const accented = 'éa'.repeat(N / 2);
const accentedUpper = 'éA'.repeat(N / 2);
const ignorables = 'a' + '\u0001'.repeat(N);
const ignorablesUpper = 'A' + '\u0001'.repeat(N);
const greekIgnorables = 'α' + '\u0001'.repeat(N);
const greekIgnorablesUpper = 'Α' + '\u0001'.repeat(N);
const spaces = 'a' + ' '.repeat(N);
const spacesUpper = 'A' + ' '.repeat(N);
const digits2 = '1'.repeat(N) + '2';
const digits3 = '1'.repeat(N) + '3';
for (const s of [lower, upper, accented, accentedUpper, ignorables,
                 ignorablesUpper, greekIgnorables, greekIgnorablesUpper,
                 spaces, spacesUpper, digits2, digits3]) {
  s.indexOf('x');
}

// localeCompare() in optimized code (StringFastLocaleCompare).
function compareOptimized(a, b) {
  return a.localeCompare(b, 'en');
}
%PrepareFunctionForOptimization(compareOptimized);
compareOptimized('a', 'b');
compareOptimized('b', 'a');
%OptimizeFunctionOnNextCall(compareOptimized);
compareOptimized('a', 'A');

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
    ['a' + '\\u0001'.repeat(n), 'A' + '\\u0001'.repeat(n)],
    ['α' + '\\u0001'.repeat(n), 'Α' + '\\u0001'.repeat(n)],
    ['a' + ' '.repeat(n) + 'b', 'A' + ' '.repeat(n) + 'a'],
    // An L1 difference after parts of 2^16 characters, and a character
    // after it that sends the rest to ICU from the first difference.
    ['A' + 'a'.repeat(n) + 'bé', 'a' + 'a'.repeat(n) + 'cé'],
    ['x'.repeat(n) + 'Ab' + 'y'.repeat(n), 'x'.repeat(n) + 'ab' + 'y'.repeat(n)],
    ['x'.repeat(3 * 65536 - 1) + 'éa', 'x'.repeat(3 * 65536 - 1) + 'éA'],
    ['a' + ' '.repeat(n) + 'B', 'a_' + ' '.repeat(n - 1) + 'b'],
    ['1'.repeat(n) + '2', '1'.repeat(n) + '3'],
    ['x' + '7'.repeat(n), 'x' + '7'.repeat(n - 1) + '8'],
  ];
  const collators = [
    new Intl.Collator(), new Intl.Collator('de'), new Intl.Collator('lt'),
    new Intl.Collator('da', { caseFirst: 'upper' }),
    new Intl.Collator('en', { usage: 'search', sensitivity: 'base' }),
    new Intl.Collator('en', { ignorePunctuation: true }),
    new Intl.Collator('en', { ignorePunctuation: true, sensitivity: 'case' }),
    new Intl.Collator('en', { numeric: true }),
  ];
  const out = [];
  for (const [a, b] of pairs) {
    out.push(a.localeCompare(b), b.localeCompare(a),
             a.localeCompare(b, 'en'));
    for (const c of collators) out.push(c.compare(a, b), c.compare(b, a));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

// A comparison called from Node's own code (a script named node:...),
// where the TimeoutError is deferred for a few milliseconds: the stop is
// taken after the deferral.
const inNodeCode = new vm.Script(
  '(a, b, compare) => { result.value = compare(a, b); for (;;); }',
  { filename: 'node:internal/cure-test' });

runEachInACallback([
  () => assertStoppedInside('localeCompare() of ASCII',
                            () => lower.localeCompare(upper, 'en'), T),
  () => {
    assertStoppedInside('optimized localeCompare() of ASCII',
                        () => compareOptimized(lower, upper), T);
    assert.ok(isOptimized(compareOptimized));
  },
  () => assertStoppedInside('Intl.Collator("lt") of ASCII',
                            () => new Intl.Collator('lt').compare(lower,
                                                                  upper), T),
  () => assertStoppedInside('localeCompare() of Latin-1',
                            () => accented.localeCompare(accentedUpper), T),
  () => assertStoppedInside('a run of ignorables (fast Latin, UTF-8)',
                            () => ignorables.localeCompare(ignorablesUpper,
                                                           'de'), T),
  () => assertStoppedInside('a run of ignorables (full comparison)',
                            () => greekIgnorables.localeCompare(
                              greekIgnorablesUpper), T),
  () => assertStoppedInside('ignored punctuation',
                            () => new Intl.Collator('en', {
                              ignorePunctuation: true,
                            }).compare(spaces, spacesUpper), T),
  () => assertStoppedInside('a numeric run of digits',
                            () => new Intl.Collator('en', {
                              numeric: true,
                            }).compare(digits2, digits3), T),
  () => {
    const result = { value: 'unset' };
    const fn = inNodeCode.runInThisContext();
    globalThis.result = result;
    assertStopped('a comparison in node: code', () => {
      fn(lower, upper, new Intl.Collator('lt').compare);
    }, T);
    delete globalThis.result;
    assert.strictEqual(result.value, 'unset', 'ran to its end');
  },
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);

function isOptimized(fn) {
  // V8's status bits: kOptimized is 1 << 4 (test/common's helper, inline).
  return (%GetOptimizationStatus(fn) & (1 << 4)) !== 0;
}
