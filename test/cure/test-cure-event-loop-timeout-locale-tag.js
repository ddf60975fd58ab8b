// Flags: --event-loop-timeout=500
'use strict';
// ICU parses a language tag in time quadratic in its number of variants
// (each is looked up among those before it, then they are sorted by a
// quadratic sort): any Intl constructor, toLocaleString() or
// Intl.getCanonicalLocales() of a tag of 20,000 variants (120 KB) took 1.5 s
// in one ICU call. Those loops now poll (patches/icu) and a due timeout is
// thrown there. Ordinary tags canonicalize as without the option.
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

// 40,000 distinct variants of five characters: seconds upstream.
const variants = [];
for (let i = 0; i < 40_000; i++) variants.push(`v${(46656 + i).toString(36)}`);
const tag = `en-${variants.join('-')}`;

const ordinary = `
  const tags = ['de-1996', 'sl-rozaj-biske-1994', 'en-US-posix', 'EN-gb-oed',
    'ja-JP-u-ca-japanese', 'zh-hant-tw', 'hy-arevela', 'en-a-bbb-x-ccc',
    'en-scouse-fonipa', 'en-fonipa-scouse', 'de-1996-1901', 'en-fonipa-fonipa',
    'en-' + 'abcdefgh-'.repeat(25) + 'x', 'x-private', 'i-klingon', ''];
  const run = (f) => { try { return String(f()); } catch (e) { return e.name; } };
  tags.map((t) => [run(() => Intl.getCanonicalLocales(t)),
                   run(() => new Intl.Locale(t)),
                   run(() => (1234.5).toLocaleString(t)),
                   run(() => new Intl.Collator(t).resolvedOptions().locale)]
    .join('/')).join('|');`;
const expected = printWithoutOptions(ordinary);

function canonical(t) { return Intl.getCanonicalLocales(t); }

runEachInACallback([
  () => assert.strictEqual(eval(ordinary), expected),
  () => assertInterrupted('getCanonicalLocales() of 40,000 variants',
                          () => canonical(tag), T),
  () => assertInterrupted('new Intl.Locale() of 40,000 variants',
                          () => new Intl.Locale(tag), T),
  () => assertInterrupted('toLocaleString() of 40,000 variants',
                          () => (1).toLocaleString(tag), T),
  () => assertInterrupted('new Intl.DateTimeFormat() of 40,000 variants',
                          () => new Intl.DateTimeFormat(tag), T),
  () => {
    for (let i = 0; i < 2e4; i++) canonical('de-1996');
    assertInterrupted('warm getCanonicalLocales()', () => canonical(tag), T);
  },
  () => assert.strictEqual(eval(ordinary), expected),
]);
