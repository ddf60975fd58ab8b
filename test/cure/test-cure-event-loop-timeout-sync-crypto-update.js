// Flags: --event-loop-timeout=20
'use strict';
// crypto.hash(), hash.update(), hmac.update(), sign.update(), verify.update()
// and cipher.update() of more than 1 MiB feed OpenSSL 1 MiB at a time and are
// stopped between slices: an update of 256 MiB (about 0.2 s of SHA-256)
// throws the callback's TimeoutError from inside the call. The object is
// then unusable, never a digest of the part it had seen: that it is shows
// the stop came inside the update, not at V8's next check after it.
// Updates that are not stopped give the results a run without the option
// gives, for ciphers whose mode streams (sliced) and for XTS (one call:
// each call is one data unit).
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
    crypto.hash('sha256', data), crypto.hash('shake256', data, 'hex'),
    crypto.hash('sha1', data, 'base64'),
    crypto.createHmac('sha256', 'k').update(data).digest('hex'),
    crypto.createSign('sha256').update(data).sign(${JSON.stringify(pem)},
                                                  'hex'),
    ...[['aes-256-cbc', 16], ['aes-256-ctr', 16], ['aes-256-gcm', 12, true],
        ['chacha20-poly1305', 12, true], ['aes-256-xts', 16]].map(
      ([name, iv, aead]) => {
      // (XTS: two different halves.)
      const key = Buffer.from(Array.from(
        { length: name.endsWith('xts') ? 64 : 32 }, (_, i) => i));
      const cipher = crypto.createCipheriv(name, key, Buffer.alloc(iv, 2));
      const out = Buffer.concat([cipher.update(data), cipher.final()]);
      const tag = aead ? cipher.getAuthTag().toString('hex') : '';
      const decipher = crypto.createDecipheriv(name, key, Buffer.alloc(iv, 2));
      if (tag) decipher.setAuthTag(Buffer.from(tag, 'hex'));
      const back = Buffer.concat([decipher.update(out), decipher.final()]);
      return [crypto.createHash('sha256').update(out).digest('hex'), tag,
              back.equals(data)];
    }),
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
    // crypto.hash() has no object to spoil: it throws, and works again.
    assertInterrupted('crypto.hash', () => crypto.hash('sha256', big), T);
    assert.strictEqual(crypto.hash('sha256', 'abc'),
                       crypto.createHash('sha256').update('abc').digest('hex'));
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
    const key = Buffer.alloc(32, 1);
    const cipher = crypto.createCipheriv('aes-256-gcm', key, Buffer.alloc(12));
    assertInterrupted('cipher.update', () => cipher.update(big), T);
    assert.throws(() => cipher.update('more'),
                  /Trying to add data in unsupported state/);
    assert.throws(() => cipher.final(), { code: 'ERR_CRYPTO_INVALID_STATE' });
  },
  () => {
    // Within a budget (a generous one: the data is made in JavaScript) the
    // updates run in slices and give the results of a run without the
    // option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption.stdout.trim());
  },
]);
