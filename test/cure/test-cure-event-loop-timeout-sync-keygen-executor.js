// Flags: --event-loop-timeout=1000
'use strict';
// generateKeyPairSync() of a key whose generation searches for primes (RSA,
// RSA-PSS, DSA, DH) runs on the Priority Executor while the loop waits, so
// that a stop ends the wait at once instead of at OpenSSL's next progress
// callback (one Miller-Rabin round of a 7,680-bit candidate takes about
// 170 ms). The counters tell the two apart: the abandoned generation is a
// priority task past its budget and an abandoned thread, which ends on its
// own at that callback (abandonedLive goes back to 0). A generation that ends within the
// budget returns a working key, and a failing one OpenSSL's error, as
// without the option; other key types are generated in place.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const cure = require('node:cure');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 1000;  // Room for the short generations on a loaded machine.

function signsAndVerifies({ privateKey, publicKey }) {
  const data = Buffer.from('nodecure');
  const digest = privateKey.asymmetricKeyType === 'ed25519' ? null : 'sha256';
  const signature = crypto.sign(digest, data, privateKey);
  assert.ok(crypto.verify(digest, data, publicKey, signature));
}

// There is no event for a thread's end: poll the counter.
function awaitNoAbandonedThread(then) {
  if (cure.getThreadpoolStats().abandonedLive === 0) return then();
  setTimeout(awaitNoAbandonedThread, 10, then);
}

// An even public exponent: refused by OpenSSL's RSA key generation. What a
// process without a budget says, asked here, where no budget applies (the
// main module's evaluation).
const failing = ['rsa', { modulusLength: 1024, publicExponent: 4 }];
const stock = require('child_process').spawnSync(process.execPath, [
  '-e',
  `try { require('crypto').generateKeyPairSync(...${JSON.stringify(failing)}); }` +
  ' catch (e) { console.log(JSON.stringify([e.message, e.code])); }',
], { encoding: 'utf8' });
assert.strictEqual(stock.status, 0, stock.stderr);

runEachInACallback([
  () => {
    const before = cure.getThreadpoolStats();
    assertInterrupted('generateKeyPairSync', () => {
      crypto.generateKeyPairSync('rsa', { modulusLength: 15360 });
    }, T);
    const after = cure.getThreadpoolStats();
    // Left on its executor, not stopped in place.
    assert.strictEqual(after.timedOut, before.timedOut + 1);
    assert.strictEqual(after.abandoned, before.abandoned + 1);
  },
  () => {
    // A short generation on the executor: a working key.
    signsAndVerifies(crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }));
    signsAndVerifies(crypto.generateKeyPairSync('dsa', {
      modulusLength: 1024, divisorLength: 160,
    }));
    const before = cure.getThreadpoolStats();
    signsAndVerifies(crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }));
    signsAndVerifies(crypto.generateKeyPairSync('ed25519'));
    // In place: no executor was left (abandonedLive may still fall as the
    // first case's thread ends).
    const after = cure.getThreadpoolStats();
    assert.strictEqual(after.timedOut, before.timedOut);
    assert.strictEqual(after.abandoned, before.abandoned);
  },
  () => {
    // The same failure as without a budget (OpenSSL's error, raised again on
    // the loop thread).
    let error;
    try {
      crypto.generateKeyPairSync(...failing);
    } catch (e) {
      error = e;
    }
    assert.ok(error, 'generateKeyPairSync did not fail');
    assert.strictEqual(JSON.stringify([error.message, error.code]),
                       stock.stdout.trim());
    assert.match(error.message, /pub exponent/);
  },
  () => awaitNoAbandonedThread(common.mustCall()),
]);
