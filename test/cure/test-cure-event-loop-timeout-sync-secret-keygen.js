// Flags: --event-loop-timeout=60000
'use strict';
// crypto.generateKeySync('hmac', { length }) fills a key of the caller's
// length with random bytes: 2^31 - 1 bits (256 MiB) took 0.39 s in one
// CSPRNG call on ./node-baseline, with nothing to stop it. It is filled
// 1 MiB at a time now, with a stop asked for before each
// (patches/node/src-generatekeysync-of-a-long-secret-key-is-stopped-between-1-mib-chunks.patch):
// the call throws the TimeoutError ("Synchronous SecretKeyGenJob
// stopped", made only where a crypto job's section stops). Within a
// budget, keys of every length come out as in a run without the option.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const { generateKeySync } = require('crypto');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

const results = `(() => {
  const { generateKeySync } = require('crypto');
  const out = [];
  for (const length of [8, 1000, 8 * (1 << 20) + 7, 8 * (3 << 20), 2 ** 27 + 1]) {
    const key = generateKeySync('hmac', { length });
    const bytes = key.export();
    out.push(key.symmetricKeySize, bytes.length, bytes.some((b) => b !== 0));
  }
  out.push(generateKeySync('aes', { length: 256 }).symmetricKeySize);
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertSyncCallStopped('generateKeySync() of 2^31 - 1 bits',
                              'SecretKeyGenJob', () => {
                                generateKeySync('hmac', { length: 2 ** 31 - 1 });
                              }, T),
  () => {
    // Within a budget (a generous one) the keys are as without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
