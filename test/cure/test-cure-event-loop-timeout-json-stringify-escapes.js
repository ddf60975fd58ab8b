// Flags: --event-loop-timeout=60000
'use strict';
// JSON.stringify() escapes a long string in one loop: 16 MiB of characters
// that all need escaping took 0.4 s on ./node-baseline, 64 MiB about 1.6 s,
// with nothing asking for the budget (the serializer checks for interrupts
// per value, not inside a string). The loop now stops between chunks of
// 65,536 characters when a timeout is due
// (patches/v8/v8-json-stringify-polls-while-it-escapes-a-long-string.patch),
// and the TimeoutError is thrown. Strings escaped within a budget, across
// the chunks' edges (surrogate pairs split by an edge, lone surrogates,
// control characters, one- and two-byte), give the JSON of a run without
// the option.
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
const controls = '\u0001'.repeat(2 ** 26);
const quotes = '"\\'.repeat(2 ** 25);
const lone = '\ud800'.repeat(2 ** 25);
controls.indexOf('x');
quotes.indexOf('x');
lone.indexOf('x');

// JSON of strings whose escapes sit at and around the chunks' edges, with
// and without the option.
const results = `(() => {
  const { createHash } = require('crypto');
  const C = 2 ** 16;  // kEscapeChunk
  const digest = (s) => createHash('sha256').update(s).digest('hex');
  const oneByte = Array.from({ length: 3 * C + 5 },
                             (_, i) => String.fromCharCode(i * 7 % 256)).join('');
  let twoByte = 'x'.repeat(C - 1) + '\\ud83d\\ude00' + 'y'.repeat(C - 2) +
    '\\ud800' + '\\udc00' + '\\n'.repeat(C) + '\\udbff';
  const out = [];
  for (const s of [oneByte, twoByte, oneByte + twoByte,
                   twoByte.slice(1), oneByte.slice(3)]) {
    out.push(digest(JSON.stringify(s)));
    out.push(digest(JSON.stringify({ [s.slice(0, C + 3)]: [s, s.length] })));
    out.push(digest(JSON.stringify([s], null, 2)));
    out.push(digest(JSON.stringify({ a: s, b: 1 }, ['a'])));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertStopped('control characters',
                      () => JSON.stringify(controls), T),
  () => assertStopped('quotes and backslashes in an object',
                      () => JSON.stringify({ text: quotes }), T),
  () => assertStopped('lone surrogates in an array',
                      () => JSON.stringify([1, lone]), T),
  () => {
    // A stopped serialization leaves nothing behind.
    assert.strictEqual(JSON.stringify({ a: '\n"' }), '{"a":"\\n\\""}');
    assert.strictEqual(JSON.stringify(controls.slice(0, 3)),
                       '"\\u0001\\u0001\\u0001"');
  },
  () => {
    // Within a budget (a generous one) the JSON is that of a run without
    // the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);
