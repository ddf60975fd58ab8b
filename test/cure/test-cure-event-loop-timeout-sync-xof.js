// Flags: --event-loop-timeout=60000
'use strict';
// hash.digest() and crypto.hash() of an XOF write outputLength bytes (a
// length a request may pass) in one OpenSSL call: 64 MiB of SHAKE256 took 0.29 s on
// ./node-baseline, with nothing to stop it. An output of more than 64 KiB
// is squeezed on the Priority Executor now
// (patches/node/src-a-long-xof-digest-is-squeezed-where-a-timeout-can-leave-it.patch):
// a stop throws the TimeoutError ("Synchronous hash.digest stopped", made
// only where such a call stops) and leaves the Hash unusable. Within a
// budget, digests of every length are those of a run without the option.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const { createHash, hash } = require('crypto');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

const results = `(() => {
  const { createHash } = require('crypto');
  const digest = (b) => createHash('sha256').update(b).digest('hex');
  const out = [];
  for (const algorithm of ['shake128', 'shake256']) {
    for (const outputLength of [0, 32, 64 * 1024, 64 * 1024 + 1, 3 << 20]) {
      const make = () => createHash(algorithm, { outputLength }).update('data');
      out.push(digest(make().digest()), make().digest('base64').length);
    }
  }
  // crypto.hash(), with inputs short and long (sliced updates).
  for (const outputLength of [32, 64 * 1024 + 1, 3 << 20]) {
    for (const data of ['x', 'y'.repeat(3 << 20)]) {
      out.push(digest(require('crypto').hash('shake128', data,
                                             { outputLength, outputEncoding: 'buffer' })));
    }
  }
  // As a stream: the digest is read once by _flush() and again.
  const stream = createHash('shake256', { outputLength: 1 << 20 });
  stream.end('streamed');
  out.push(digest(stream.read()), digest(stream.digest()));
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => {
    const hash = createHash('shake256', { outputLength: 2 ** 28 }).update('x');
    assertSyncCallStopped('digest() of 256 MiB of SHAKE256', 'hash.digest',
                          () => hash.digest(), T);
    // The stopped squeeze took the context: the Hash is unusable.
    assert.throws(() => hash.digest(), { code: 'ERR_CRYPTO_INVALID_STATE' });
  },
  () => assertSyncCallStopped('crypto.hash() of 256 MiB of SHAKE256',
                              'hash.digest', () => hash('shake256', 'x', {
                                outputLength: 2 ** 28,
                                outputEncoding: 'buffer',
                              }), T),
  () => {
    // Within a budget (a generous one) the digests are as without the
    // option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
