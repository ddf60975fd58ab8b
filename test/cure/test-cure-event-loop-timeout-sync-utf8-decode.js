// Flags: --event-loop-timeout=60000
'use strict';
// buf.toString('utf8'), a StringDecoder's write() and TextDecoder's
// decode() decode UTF-8 of over 1 MiB in slices that end before a byte
// that starts a sequence (src/node_string_bytes_slices.h) and are stopped
// between them: invalid UTF-8 goes through V8's decoder at about 14 ms a
// MiB, and the 128 MiB below took about 2 s in one native call on
// ./node-baseline, with nothing asking for the budget. The error's message
// ("Synchronous buf.toString stopped", ...) is made only where the slice
// loop stops. Decoded within a budget, valid and invalid input around the
// slices' edges (sequences cut at the target, runs of continuation bytes,
// truncated and overlong sequences, surrogates) gives the strings of a run
// without the option.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one (see test-cure-event-loop-timeout-structured-clone.js).
const common = require('../common');
const assert = require('assert');
const { StringDecoder } = require('string_decoder');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget): 128 MiB, each byte invalid.
const invalid = Buffer.alloc(128 * 2 ** 20, 0xff);


// Decodings of 3 MiB of mixed input whose edge cases sit at and around the
// slices' targets (multiples of 1 MiB), with and without the option.
const results = `(() => {
  const { createHash } = require('crypto');
  const { StringDecoder } = require('string_decoder');
  const M = 2 ** 20;  // kDecodeUtf8SliceBytes
  const data = Buffer.alloc(3 * M + 11);
  let x = 7;
  const pieces = [[0x61], [0xc3, 0xa9], [0xe2, 0x82, 0xac],
                  [0xf0, 0x9f, 0x98, 0x80], [0x80], [0xbf, 0x80],
                  [0xe2, 0x82], [0xf0, 0x9f], [0xc0, 0xaf], [0xed, 0xa0, 0x80],
                  [0xf8], [0xff], [0xe0, 0x80, 0x80], [0x80, 0x80, 0x80, 0x80]];
  for (let i = 0; i < data.length;) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    for (const b of pieces[x % pieces.length]) {
      if (i < data.length) data[i++] = b;
    }
  }
  // At each target: a four-byte sequence cut after 1, 2 and 3 bytes, a
  // truncated one followed by continuation bytes, and five continuation
  // bytes in a row across it.
  const edges = [[0xf0, 0x9f, 0x98, 0x80], [0xe2, 0x82, 0x80, 0x80, 0x80],
                 [0x80, 0x80, 0x80, 0x80, 0x80]];
  for (let k = 1; k <= 3; k++) {
    const seq = edges[(k - 1) % edges.length];
    for (let s = 0; s < seq.length; s++) {
      if (k * M - 2 + s < data.length) data[k * M - 2 + s] = seq[s];
    }
  }
  const digest = (s) => createHash('sha256').update(s).digest('hex');
  const out = [];
  for (const [from, to] of [[0, data.length], [1, 2 * M + 3],
                            [M - 1, 3 * M + 2], [3, M + 4]]) {
    const view = data.subarray(from, to);
    const s = view.toString('utf8');
    out.push(from, to, s.length, digest(s));
    out.push(digest(new TextDecoder().decode(view)));
    const decoder = new StringDecoder('utf8');
    let t = '';
    for (let at = 0; at < view.length; at += M + 3) {
      t += decoder.write(view.subarray(at, at + M + 3));
    }
    t += decoder.end();
    out.push(digest(t));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertSyncCallStopped('buf.toString()', 'buf.toString',
                              () => invalid.toString('utf8'), T),
  () => assertSyncCallStopped('textDecoder.decode()', 'textDecoder.decode',
                              () => new TextDecoder().decode(invalid), T),
  () => assertSyncCallStopped('stringDecoder.write()', 'stringDecoder.write',
                              () => new StringDecoder('utf8').write(invalid),
                              T),
  () => {
    // A stopped decoding leaves nothing behind.
    assert.strictEqual(invalid.subarray(0, 3).toString(), '\ufffd'.repeat(3));
    assert.strictEqual(Buffer.from('héllo €').toString(), 'héllo €');
  },
  () => {
    // Within a budget (a generous one) the strings are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);
