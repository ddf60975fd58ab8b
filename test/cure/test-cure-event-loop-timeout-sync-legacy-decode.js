// Flags: --event-loop-timeout=60000
'use strict';
// TextDecoder's decode() in a legacy encoding gives ICU's converter more
// than 1 MiB one slice at a time, and is stopped between slices
// (src/node_i18n_slices.h,
// patches/node/src-textdecoder-in-a-legacy-encoding-decodes-over-1-mib-in-slices-that-a.patch):
// it was one ucnv_toUnicode() call, and the 128 MiB below took about 1.2 s
// as Shift_JIS and 1.5 s as Big5 on ./node-baseline, with nothing asking
// for the budget. The error's message ("Synchronous textDecoder.decode
// stopped") is made only where the slice loop stops. A stopped decoder is
// reset, as a flush does. Decoded within a budget, multi-byte characters
// split by the slices' edges give the strings of a run without the option,
// in one call and streamed.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one (see test-cure-event-loop-timeout-structured-clone.js).
const common = require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget): 128 MiB of random bytes.
const random = Buffer.alloc(128 * 2 ** 20);
{
  let x = 7;
  for (let i = 0; i < random.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    random[i] = x & 0xff;
  }
}


// 3 MiB in several encodings, in one call and streamed in pieces that do
// not line up with the slices, with and without the option.
const results = `(() => {
  const { createHash } = require('crypto');
  const M = 2 ** 20;  // kDecodeSliceBytes
  const data = Buffer.alloc(3 * M + 7);
  let x = 11;
  for (let i = 0; i < data.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    data[i] = x & 0xff;
  }
  const digest = (s) => createHash('sha256').update(s).digest('hex');
  const out = [];
  for (const enc of ['shift_jis', 'gbk', 'gb18030', 'big5', 'euc-kr',
                     'euc-jp', 'windows-1252', 'iso-8859-2', 'koi8-r']) {
    for (const [from, to] of [[0, data.length], [1, 2 * M + 1], [M - 1, 3 * M]]) {
      const view = data.subarray(from, to);
      out.push(enc, from, digest(new TextDecoder(enc).decode(view)));
    }
    const streamed = new TextDecoder(enc);
    let s = '';
    for (let at = 0; at < data.length; at += M + 5) {
      s += streamed.decode(data.subarray(at, at + M + 5), { stream: true });
    }
    s += streamed.decode();
    out.push(enc, 'stream', digest(s));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertSyncCallStopped('Shift_JIS', 'textDecoder.decode',
                              () => new TextDecoder('shift_jis').decode(random),
                              T),
  () => assertSyncCallStopped('Big5', 'textDecoder.decode',
                              () => new TextDecoder('big5').decode(random), T),
  () => {
    // A streaming decoder stopped in the middle is reset: what it decodes
    // next starts afresh.
    const decoder = new TextDecoder('euc-kr');
    assertSyncCallStopped('EUC-KR, streamed', 'textDecoder.decode',
                          () => decoder.decode(random, { stream: true }), T);
    assert.strictEqual(decoder.decode(Buffer.from([0xb0, 0xa1, 0x41])),
                       '\uac00A');
  },
  () => {
    // Within a budget (a generous one) the strings are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);
