// Flags: --event-loop-timeout=60000
'use strict';
// JSON.parse() polls between values, but one long string literal was
// scanned and then decoded in two loops that nothing stopped: a body that
// is one string of 16 MiB of escapes ('\n', '\u00e4') took up to 67 ms on
// ./node-baseline, 32 MiB of '\n' 0.17 s. While a budget is
// set, the scan now polls every 65,536 characters and a literal with
// escapes is decoded in chunks of 65,536 characters with a poll between
// them (patches/v8/v8-json-parse-polls-while-it-scans-or-decodes-a-long-string-literal.patch):
// the TimeoutError comes inside the call. Literals parsed within a budget,
// with escapes at and across the chunks' edges (one- and two-byte sources
// and results, surrogate pairs, keys, a reviver, a sliced source), give
// what a run without the option gives.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one (see test-cure-event-loop-timeout-structured-clone.js).
const common = require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertStoppedInside, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 5;

// Made while the main module runs (no budget): each takes 50 ms or more to
// parse on this project's machines, without a stop.
const newlines = `"${'\\n'.repeat(2 ** 25)}"`;
const unicode = `[0,"${'\\u00e4'.repeat(2 ** 23)}"]`;
const plain = `"${'a'.repeat(2 ** 26)}"`;
const twoByte = `"\u20ac${'b'.repeat(2 ** 25)}"`;
const key = `{"${'\\t'.repeat(2 ** 24)}":1}`;
// From a second reading: literals of less than 65,536 characters each
// (fewer than the 4,096 values between two polls of values) were never
// polled, nor were keys made when their object is built (1,024 keys of
// 16,384 characters that differ at the end share V8's hash of a long
// string, its length: internalizing them took 5 s).
const many = `[${Array(1000).fill(`"${'\\n'.repeat(30000)}"`).join(',')}]`;
const longKeys = `{${Array.from({ length: 1024 }, (_, i) =>
  `"${'k'.repeat(16380)}${String(i).padStart(4, '0')}":${i}`).join(',')}}`;
for (const s of [newlines, unicode, plain, twoByte, key, many, longKeys]) {
  s.indexOf('x');
}

// Literals whose escapes sit at and around the chunks' edges, parsed with
// and without the option; the digests of what JSON.parse() gives.
const results = `(() => {
  const { createHash } = require('crypto');
  const C = 2 ** 16;  // kStringPollInterval
  const pieces = ['a', '\\\\n', '\\\\u0041', '\\\\ud83d\\\\ude00', '\\\\/',
                  '\\\\u20ac', '\\\\"', 'bc', '\\\\\\\\', '\\\\ud800'];
  const literal = (n, step, extra = '') => {
    let s = '';
    for (let i = 0; s.length < n; i++) s += pieces[(i * step) % pieces.length];
    return '"' + extra + s + '"';
  };
  const digest = (v) => createHash('sha256')
    .update(Buffer.from(JSON.stringify(v, (k, x) =>
      typeof x === 'string' ? Buffer.from(x, 'utf16le').toString('hex') : x)))
    .digest('hex');
  const out = [];
  const texts = [
    '"' + 'x'.repeat(C - 1) + '\\\\n' + 'y'.repeat(C - 2) + '\\\\u00e4' +
      '\\\\t'.repeat(C) + 'z' + '"',
    literal(3 * C + 7, 3),
    literal(3 * C + 7, 7),
    literal(2 * C, 1, '\\u20ac'),   // a two-byte source
    literal(C + 1, 9),
    '"' + 'q'.repeat(2 * C + 3) + '"',
  ];
  for (const t of texts) {
    out.push(digest(JSON.parse(t)));
    out.push(digest(JSON.parse('[1,' + t + ',' + t + ']')));
    out.push(digest(JSON.parse('{' + t + ':' + t + ',"k":2}')));
    out.push(digest(JSON.parse('{"v":' + t + '}', (k, v) => v)));
    out.push(digest(JSON.parse(('  ' + t).slice(1))));
    try {
      JSON.parse(t.slice(0, -1));
    } catch (err) {
      out.push(err.name);
    }
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

// Up to three tries: a parse of 40 ms can end before a loaded machine lets
// the watchdog see its budget run out.
const stopsInside = (label, call) => assertStoppedInside(label, call, T, 3);

runEachInACallback([
  () => stopsInside('a literal of newlines', () => JSON.parse(newlines)),
  () => stopsInside('a literal of \\u escapes in an array',
                    () => JSON.parse(unicode)),
  () => stopsInside('a literal without escapes', () => JSON.parse(plain)),
  () => stopsInside('a literal of a two-byte text',
                    () => JSON.parse(twoByte)),
  () => stopsInside('a key of tabs', () => JSON.parse(key)),
  () => stopsInside('a literal with a reviver',
                    () => JSON.parse(newlines, (k, v) => v)),
  () => stopsInside('many literals of 60,000 characters',
                    () => JSON.parse(many)),
  () => stopsInside('keys of equal hash', () => JSON.parse(longKeys)),
  () => {
    // A stopped parse leaves nothing behind.
    assert.deepStrictEqual(JSON.parse('{"a":"\\n\\u00e4","b":[1]}'),
                           { a: '\n\u00e4', b: [1] });
  },
  () => {
    // Within a budget (a generous one) the values are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);
