// Flags: --event-loop-timeout=60000
'use strict';
// buffer.transcode() through ICU (ucnv_convertEx(), ucnv_fromUChars()) of
// an input of more than 64 KiB converts on libuv's Priority Executor while
// the loop waits (src/node_sync_hop.h,
// patches/node/src-buffer-transcode-through-icu-of-a-long-input-runs-where-a-timeout-ca.patch):
// on ./node-baseline 16 MiB took 78 ms, and the 64 MiB below ran past the
// budget with nothing to stop it. A stop throws the TimeoutError
// ("Synchronous buffer.transcode stopped", made only there). Within a
// budget, long and short inputs of every pair of encodings give the
// results of a run without the option.
require('../common');
const assert = require('assert');
const { transcode } = require('buffer');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget).
const utf8 = Buffer.from('aé€😀'.repeat(2 ** 22));  // 40 MiB
const ucs2 = Buffer.from('é€x'.repeat(2 ** 23), 'ucs2');  // 48 MiB

const results = `(() => {
  const { transcode } = require('buffer');
  const { createHash } = require('crypto');
  const digest = (b) => createHash('sha256').update(b).digest('hex');
  const K = 64 * 1024;  // kHopInputBytes
  const inputs = {
    utf8: [Buffer.from('aé€😀'.repeat(K / 4)), Buffer.from([0xff, 0x41, 0xc3]), Buffer.from('ok')],
    latin1: [Buffer.alloc(K + 1, 0xe9), Buffer.from('caf\\xe9', 'latin1')],
    ascii: [Buffer.alloc(K * 2, 0x41)],
    ucs2: [Buffer.from('é€x😀'.repeat(K / 4), 'ucs2'), Buffer.from([0x41, 0x00, 0x42])],
  };
  const out = [];
  for (const [from, list] of Object.entries(inputs)) {
    for (const input of list) {
      for (const to of ['utf8', 'latin1', 'ascii', 'ucs2']) {
        try {
          out.push(digest(transcode(input, from, to)));
        } catch (e) {
          out.push(e.code);
        }
      }
    }
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertSyncCallStopped('transcode() of 40 MiB from UTF-8 to Latin-1',
                              'buffer.transcode',
                              () => transcode(utf8, 'utf8', 'latin1'), T),
  () => assertSyncCallStopped('transcode() of 48 MiB from UTF-16 to ASCII',
                              'buffer.transcode',
                              () => transcode(ucs2, 'ucs2', 'ascii'), T),
  () => {
    // A stopped conversion leaves nothing behind.
    assert.strictEqual(transcode(Buffer.from('é€'), 'utf8', 'latin1')
                         .toString('latin1'), 'é?');
  },
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
