// Flags: --event-loop-timeout=60000
'use strict';
// V8's ValueSerializer and ValueDeserializer poll for a due timeout every
// 4096 values (patches/v8/v8-structuredclone-and-v8-serialize-poll-for-a-due-timeout.patch):
// structuredClone(), v8.serialize(), v8.deserialize() and postMessage() of
// a huge object graph ran to their end with nothing asking for the budget.
// On ./node-baseline, for the 2 million objects below: structuredClone()
// about 6 s, v8.serialize() and v8.deserialize() about 2.5 s each, each
// far past the bound below. Values that are not stopped are copied as in a
// run without the option.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one: the rest of the callback, whose budget starts
// over after the TimeoutError, may meet a major GC of the graph's hundreds
// of megabytes, which must not cost it a second TimeoutError.
const common = require('../common');
const assert = require('assert');
const v8 = require('v8');
const { MessageChannel } = require('worker_threads');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget).
const graph = [];
for (let i = 0; i < 2e6; i++) graph.push({ id: i, name: `n${i}`, tags: ['a'] });
const serialized = v8.serialize(graph);

// Copies of values of many kinds, past several polls, with and without the
// option: their serialized bytes and what they read back as.
const results = `(() => {
  const v8 = require('v8');
  const { createHash } = require('crypto');
  const digest = (b) => createHash('sha256').update(b).digest('hex');
  const values = [
    Array.from({ length: 10000 }, (_, i) => ({ i, s: 'x' + i, d: i / 3 })),
    new Map(Array.from({ length: 5000 }, (_, i) => [i, { k: [i, -i] }])),
    new Set(Array.from({ length: 9000 }, (_, i) => 'v' + i)),
    Array.from({ length: 20000 }, (_, i) => i % 7 ? i : i + 0.5),
    { nested: Array.from({ length: 3000 }, (_, i) => [[i], { a: [i, i] }]),
      date: new Date(0), re: /a+b/g, big: 2n ** 70n,
      bytes: new Uint8Array([1, 2, 3]),
      // (Its stack, which is serialized too, is where it was made.)
      err: Object.assign(new RangeError('r'), { stack: 'RangeError: r' }) },
  ];
  const out = [];
  for (const value of values) {
    const bytes = v8.serialize(value);
    const back = v8.deserialize(bytes);
    const clone = structuredClone(value);
    out.push(bytes.length, digest(bytes),
             digest(v8.serialize(back)), digest(v8.serialize(clone)));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertStopped('structuredClone', () => structuredClone(graph), T),
  () => assertStopped('v8.serialize', () => v8.serialize(graph), T),
  () => assertStopped('v8.deserialize', () => v8.deserialize(serialized), T),
  () => {
    // A message stopped while it is serialized is not sent: port2 gets
    // only the small one posted after it (without the patch it would get
    // the big one first, its TimeoutError thrown only once it was queued).
    const { port1, port2 } = new MessageChannel();
    assertStopped('postMessage', () => port1.postMessage(graph), T);
    port1.postMessage('after');
    port2.on('message', common.mustCall((message) => {
      assert.strictEqual(message, 'after');
      port2.close();
    }));
  },
  () => {
    // A stopped copy leaves nothing behind: the next ones work.
    assert.deepStrictEqual(structuredClone(graph.slice(0, 3)),
                           graph.slice(0, 3));
    assert.deepStrictEqual(v8.deserialize(v8.serialize(graph[7])), graph[7]);
  },
  () => {
    // Within a budget (a generous one: the values are made in JavaScript)
    // the copies poll and give the bytes of a run without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
