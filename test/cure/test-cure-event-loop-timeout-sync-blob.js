// Flags: --event-loop-timeout=60000 --expose-internals
'use strict';
// The blob binding takes a blob's parts one at a time in C++: createBlob()
// (new Blob()) and concat() (blob.arrayBuffer(), text(), bytes()) of the
// 4 million parts below took about 1.6 s and 0.6 s on ./node-baseline,
// after the JavaScript that made the parts, with nothing to stop them. They
// poll for a due timeout every 4096 parts now
// (patches/node/src-a-timeout-stops-a-blob-of-millions-of-parts-between-parts.patch):
// the call throws the TimeoutError ("Synchronous new Blob stopped",
// "Synchronous blob concat stopped", made only there). Before those loops
// each part is held by a v8::Global (FromV8Array()): making 4 Mi of them
// took about 0.1 s, unpolled, and a CI run under load stopped concat()
// 1.7 s after its call; they are made by
// EventLoopTimeout::FromV8ArrayStoppably(), which polls as well. A budget
// of 20 ms stops them there, one of 100 ms in the loops. The binding is
// called directly, so that the stop is not the one of the JavaScript that
// prepares the parts. Within a budget, blobs of many parts read as in a
// run without the option.
const common = require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const { internalBinding } = require('internal/test/binding');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;
const { createBlob, concat } = internalBinding('blob');

// Made while the main module runs (no budget): 4 Mi parts of one byte,
// each on a buffer of its own, as lib/internal/blob.js makes them.
const N = 2 ** 22;
const parts = Array.from({ length: N }, (_, i) => new Uint8Array([i & 0x7f]));

// Blob reads are asynchronous: compare the sizes of blobs and what a
// synchronous concat() of their parts gives.
const readResults = `(() => {
  const { createHash } = require('crypto');
  const { internalBinding } = require('internal/test/binding');
  const { concat } = internalBinding('blob');
  const digest = (b) => createHash('sha256').update(new Uint8Array(b)).digest('hex');
  const out = [];
  for (const n of [0, 1, 4095, 4096, 4097, 3 * 4096 + 5]) {
    const parts = Array.from({ length: n }, (_, i) => new Uint8Array([i % 251, i % 7]));
    out.push(digest(concat(parts)), new Blob(parts).size);
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(readResults, ['--expose-internals']);

runEachInACallback([
  // concat() first: createBlob() detaches the buffers of the parts it took.
  ...[20, T].map((budget) => () => assertSyncCallStopped(
    `concat() of 4 Mi parts under ${budget} ms`, 'blob concat',
    () => concat(parts), budget)),
  () => assertSyncCallStopped('createBlob() of 4 Mi parts', 'new Blob',
                              () => createBlob(parts, N), 20),
  () => {
    // A stopped call leaves nothing behind: blobs are made and read.
    const blob = new Blob(['a', new Uint8Array([98]), 'c']);
    assert.strictEqual(blob.size, 3);
    blob.text().then(common.mustCall((text) => assert.strictEqual(text, 'abc')));
  },
  () => {
    // Within a budget (a generous one) the results are as without the
    // option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(readResults)),
                       withoutOption);
  },
]);
