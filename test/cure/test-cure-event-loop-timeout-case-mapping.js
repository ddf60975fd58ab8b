// Flags: --event-loop-timeout=60000
'use strict';
// ICU's case mapping polls between chunks of 1024 code units (whatever
// path they take; 1024 code points in the Greek upper-casing) while V8 has
// a timeout to deliver
// (patches/icu/icu-let-the-embedder-stop-case-mapping-between-chunks.patch,
// and LocaleConvertCase() in
// patches/v8/v8-a-due-timeout-stops-icu-s-case-mapping.patch): the
// two-byte strings below (134 million code units) took 1.2 to 2 s to map on
// ./node-baseline, in one call that nothing asked for the budget. A stopped
// mapping is dropped; strings mapped within a budget are those of a run
// without the option, final sigma and the Greek, Turkish and Lithuanian
// rules included, across the chunks' edges.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one (see test-cure-event-loop-timeout-structured-clone.js).
const common = require('../common');
const assert = require('assert');
const { createHash } = require('crypto');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget); flat two-byte strings.
const upper = 'AΣ'.repeat(2 ** 26);
const lower = 'aσ'.repeat(2 ** 26);
upper.indexOf('x');
lower.indexOf('x');

// Mappings past many chunks, with context at the chunks' edges (a sigma
// 4096 code units apart, combining marks, dotted and dotless i), with and
// without the option: their lengths and digests.
const results = `(() => {
  const { createHash } = require('crypto');
  const digest = (s) => createHash('sha256').update(s).digest('hex');
  const sigmas = ('x'.repeat(4094) + 'AΣ ').repeat(300) + 'ΑΣ';
  const marks = ('İI\\u0307i\\u0300ĲΣ\\u0301 Ϊ́ά ß'.repeat(5000));
  const greek = 'άδικος, ἀδικώτατος, ΐ ΰ ή '.repeat(20000);
  const out = [];
  for (const s of [sigmas, marks, greek]) {
    for (const r of [s.toLowerCase(), s.toUpperCase(),
                     s.toLocaleLowerCase('tr'), s.toLocaleUpperCase('tr'),
                     s.toLocaleLowerCase('lt'), s.toLocaleUpperCase('lt'),
                     s.toLocaleUpperCase('el'), s.toLocaleLowerCase('el')]) {
      out.push(r.length, digest(r));
    }
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertStopped('toLowerCase', () => upper.toLowerCase(), T),
  () => assertStopped('toUpperCase', () => lower.toUpperCase(), T),
  () => assertStopped("toLocaleLowerCase('tr')",
                      () => upper.toLocaleLowerCase('tr'), T),
  () => assertStopped("toLocaleUpperCase('el')",
                      () => lower.toLocaleUpperCase('el'), T),
  () => {
    // A stopped mapping leaves nothing behind: the next ones map.
    assert.strictEqual('ΑΣ ΟΔΟΣ'.toLowerCase(), 'ας οδος');
    assert.strictEqual('straße'.toUpperCase(), 'STRASSE');
    const slice = upper.slice(0, 10000);
    assert.strictEqual(createHash('sha256').update(slice.toLowerCase())
                         .digest('hex'),
                       createHash('sha256').update(
                         'aσ'.repeat(4999) + 'aς').digest('hex'));
  },
  () => {
    // Within a budget (a generous one) strings map as without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);
