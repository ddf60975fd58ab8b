// Flags: --event-loop-timeout=60000
'use strict';
// util.parseEnv() of a text of more than 64 KiB parses it on libuv's
// Priority Executor while the loop waits (src/node_sync_hop.h), and makes
// the object's properties with a poll every 4096 entries
// (patches/node/src-util-parseenv-of-a-long-text-runs-where-a-timeout-can-leave-it.patch):
// on ./node-baseline nothing stopped either, and the text of 4 million
// lines below ran past any budget. A stop throws the TimeoutError
// ("Synchronous util.parseEnv stopped", made only there). Within a budget,
// long and short texts give the results of a run without the option.
require('../common');
const assert = require('assert');
const util = require('util');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget): 4 Mi distinct keys.
const lines = Array.from({ length: 2 ** 22 }, (_, i) => `K${i}=v${i}`);
const text = lines.join('\n');
const crlf = lines.join('\r\n');

const results = `(() => {
  const util = require('util');
  const { createHash } = require('crypto');
  const digest = (o) => createHash('sha256').update(JSON.stringify(o)).digest('hex');
  const K = 64 * 1024;  // kHopInputBytes
  const texts = [
    Array.from({ length: K / 8 }, (_, i) => 'KEY_' + i + '=' + i).join('\\n'),
    '# c\\nexport A="x\\\\ny" # tail\\r\\nB=\\'' + 'q'.repeat(K) + '\\'\\nC=\`multi\\nline\`\\n',
    'D="' + 'é'.repeat(K) + '"\\nE = spaced value \\n=novalue\\nnokey\\n',
    'SHORT=1\\nSHORT=2\\n',
    '',
  ];
  return JSON.stringify(texts.map((t) => digest(util.parseEnv(t))));
})()`;

const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertSyncCallStopped('util.parseEnv() of 4 Mi lines',
                              'util.parseEnv', () => util.parseEnv(text), T),
  () => assertSyncCallStopped('util.parseEnv() of 4 Mi CRLF lines',
                              'util.parseEnv', () => util.parseEnv(crlf), T),
  () => {
    // A stopped parse leaves nothing behind.
    assert.deepStrictEqual({ ...util.parseEnv('A=1\nB="2"') },
                           { A: '1', B: '2' });
  },
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
