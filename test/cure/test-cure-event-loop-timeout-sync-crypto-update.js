// Flags: --event-loop-timeout=20
'use strict';
// hash.update(), hmac.update(), sign.update() and verify.update() of more
// than 1 MiB feed OpenSSL 1 MiB at a time and are stopped between slices:
// an update of 256 MiB (about 0.2 s of SHA-256) throws the callback's
// TimeoutError from inside the call. The object is then unusable, never a
// digest of the part it had seen: that it is shows the stop came inside
// the update, not at V8's next check after it. Updates that are not stopped
// give the results a run without the option gives.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const { spawnSync } = require('child_process');
const { runWithEventLoopTimeout } = require('node:cure');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 20;
const big = Buffer.alloc(256 * 2 ** 20, 0x61);
const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', {
  modulusLength: 1024,
});
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });

// Digests of 3 MiB and 5 bytes (four slices), with and without the option.
const results = `(() => {
  const crypto = require('crypto');
  const data = Buffer.alloc(3 * 2 ** 20 + 5);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7) & 0xff;
  return JSON.stringify([
    crypto.createHash('sha256').update(data).digest('hex'),
    crypto.createHash('sha512').update(data).update('x').digest('hex'),
    crypto.createHmac('sha256', 'k').update(data).digest('hex'),
    crypto.createSign('sha256').update(data).sign(${JSON.stringify(pem)},
                                                  'hex'),
  ]);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = spawnSync(process.execPath, ['-p', results], {
  encoding: 'utf8',
});
assert.strictEqual(withoutOption.status, 0, withoutOption.stderr);

runEachInACallback([
  () => {
    const hash = crypto.createHash('sha256');
    assertInterrupted('hash.update', () => hash.update(big), T);
    assert.throws(() => hash.digest(), { code: 'ERR_CRYPTO_INVALID_STATE' });
    assert.throws(() => hash.update('more'),
                  { code: 'ERR_CRYPTO_HASH_UPDATE_FAILED' });
  },
  () => {
    const hmac = crypto.createHmac('sha256', 'key');
    assertInterrupted('hmac.update', () => hmac.update(big), T);
    assert.throws(() => hmac.digest(), { code: 'ERR_CRYPTO_INVALID_STATE' });
    assert.throws(() => hmac.update('more'),
                  { code: 'ERR_CRYPTO_HASH_UPDATE_FAILED' });
  },
  () => {
    const sign = crypto.createSign('sha256');
    assertInterrupted('sign.update', () => sign.update(big), T);
    assert.throws(() => sign.sign(privateKey), /Not initialised/);
  },
  () => {
    const verify = crypto.createVerify('sha256');
    assertInterrupted('verify.update', () => verify.update(big), T);
    assert.throws(() => verify.verify(publicKey, Buffer.alloc(128)),
                  /Not initialised/);
  },
  () => {
    // Within a budget (a generous one: the data is made in JavaScript) the
    // updates run in slices and give the results of a run without the
    // option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption.stdout.trim());
  },
]);
