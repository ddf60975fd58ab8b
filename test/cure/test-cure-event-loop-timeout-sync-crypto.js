// Flags: --event-loop-timeout=100
'use strict';
// crypto's synchronous jobs obey the callback's budget: pbkdf2Sync(),
// scryptSync(), randomFillSync(), generateKeyPairSync(), generatePrimeSync()
// and checkPrimeSync() check for a stop between
// iterations, steps, chunks, candidates or rounds, and throw the callback's
// TimeoutError at the call site.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 100;

// fn() throws the TimeoutError of the synchronous crypto job `job`.
function stoppedJob(job, fn) {
  return () => {
    try {
      fn();
    } catch (err) {
      assert.match(err.message, new RegExp(`Synchronous ${job} stopped`));
      throw err;
    }
  };
}

const big = Buffer.alloc(1 << 30);  // 1 GiB: seconds of randomFill.

const cases = [
  () => assertInterrupted('pbkdf2Sync', stoppedJob('PBKDF2Job', () => {
    crypto.pbkdf2Sync('pw', 'salt', 1e9, 64, 'sha512');
  }), T),
  () => assertInterrupted('scryptSync', stoppedJob('ScryptJob', () => {
    crypto.scryptSync('pw', 'salt', 64,
                      { N: 2 ** 20, r: 8, p: 16, maxmem: 2 ** 31 });
  }), T),
  () => assertInterrupted('randomFillSync', stoppedJob('RandomBytesJob', () => {
    crypto.randomFillSync(big);
  }), T),
  () => assertInterrupted('generateKeyPairSync', () => {
    crypto.generateKeyPairSync('rsa', { modulusLength: 15360 });
  }, T),
  () => assertInterrupted('generatePrimeSync', () => {
    crypto.generatePrimeSync(8192, { safe: true });
  }, T),
  // A Mersenne prime of 4423 bits, tested 100,000 times over.
  () => assertInterrupted('checkPrimeSync', stoppedJob('CheckPrimeJob', () => {
    crypto.checkPrimeSync(2n ** 4423n - 1n, { checks: 1e5 });
  }), T),
  () => {
    // A short job's result is unchanged (RFC 6070's first test vector).
    assert.strictEqual(
      crypto.pbkdf2Sync('password', 'salt', 1, 20, 'sha1').toString('hex'),
      '0c60c80f961f0e71f3a9b524af6012062fe037a6');
  },
];

runEachInACallback(cases);
