// Flags: --event-loop-timeout=60000
'use strict';
// A private-key operation costs what its key costs, not its input: an RSA
// private operation with a key of 8,192 bits takes about 45 ms here, one
// of 16,384 bits (which a tenant may upload) about 8 times that. With a key
// of more than 4,096 bits, in a callback with a budget, privateDecrypt(),
// privateEncrypt(), sign.sign() and crypto.sign() run the operation on the
// Priority Executor with a reference of their own to the key and copies of
// their data (RunOnKey() and SignOnKey(), src/crypto/crypto_priority_job.h),
// and a budget of
// 5 ms stops each there: "Synchronous <api> stopped", a message made only
// where such a call stops (in place the operation would run to its end
// first). The KeyObject works on after the stop. Operations that are not
// stopped give what they give in place (the main module has no budget),
// failures included.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const {
  assertSyncCallStopped,
  runEachInACallback,
} = require('../common/cure');

const key = crypto.createPrivateKey(fs.readFileSync(
  path.join(__dirname, '..', 'cure-fixtures', 'rsa-8192-key.pem')));
const pub = crypto.createPublicKey(key);
assert.strictEqual(key.asymmetricKeyDetails.modulusLength, 8192);

const message = Buffer.from('the session key');
const ciphertext = crypto.publicEncrypt(pub, message);
const garbage = Buffer.alloc(1024, 7);
const NO_PADDING = { key, padding: crypto.constants.RSA_NO_PADDING };

function outcome(fn) {
  try {
    return fn().toString('hex');
  } catch (err) {
    return `${err.code} ${err.message}`;
  }
}

// Deterministic operations (and failures): the same in place and hopped.
const operations = {
  'privateDecrypt': () => crypto.privateDecrypt(key, ciphertext),
  'privateDecrypt of garbage': () => crypto.privateDecrypt(key, garbage),
  'privateEncrypt': () => crypto.privateEncrypt(key, message),
  'publicDecrypt': () =>
    crypto.publicDecrypt(pub, crypto.privateEncrypt(key, message)),
  'privateDecrypt without padding': () =>
    crypto.privateDecrypt(NO_PADDING, Buffer.alloc(1024, 1)),
  'sign.sign (PKCS#1 v1.5)': () =>
    crypto.createSign('sha256').update(message).sign(key),
  'crypto.sign (PKCS#1 v1.5)': () => crypto.sign('sha256', message, key),
  'crypto.sign of empty data': () => crypto.sign('sha512', Buffer.alloc(0), key),
  // Failures: OpenSSL's reason from the job (a digest longer than the key
  // leaves room for); none, so again in place (a context string).
  'crypto.sign with a salt too long': () => crypto.sign('sha512', message, {
    key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 1020,
  }),
  'crypto.sign with a context': () => crypto.sign('sha256', message, {
    key, context: Buffer.from('ctx'),
  }),
};
const inPlace = {};
for (const [name, fn] of Object.entries(operations)) inPlace[name] = outcome(fn);
assert.match(inPlace['privateDecrypt of garbage'], /^ERR_OSSL/);
assert.match(inPlace['crypto.sign with a salt too long'], /^ERR_OSSL/);
assert.match(inPlace['crypto.sign with a context'],
             /^ERR_CRYPTO_OPERATION_FAILED Context parameter is unsupported/);

const T = 5;

runEachInACallback([
  () => {
    for (const [name, fn] of Object.entries(operations))
      assert.strictEqual(outcome(fn), inPlace[name], name);
    // PSS signs with a random salt: verified instead.
    const signature = crypto.createSign('sha256').update(message).sign({
      key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING,
    });
    assert.ok(crypto.createVerify('sha256').update(message).verify({
      key: pub, padding: crypto.constants.RSA_PKCS1_PSS_PADDING,
    }, signature));
    const pss = crypto.sign('sha256', message, {
      key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING,
    });
    assert.ok(crypto.verify('sha256', message, {
      key: pub, padding: crypto.constants.RSA_PKCS1_PSS_PADDING,
    }, pss));
  },
  () => {
    assertSyncCallStopped('privateDecrypt', 'crypto.privateDecrypt',
                          () => crypto.privateDecrypt(key, ciphertext), T);
    assertSyncCallStopped('privateEncrypt', 'crypto.privateEncrypt',
                          () => crypto.privateEncrypt(key, message), T);
    const sign = crypto.createSign('sha256').update(message);
    assertSyncCallStopped('sign.sign', 'sign.sign', () => sign.sign(key), T);
    assertSyncCallStopped('crypto.sign', 'crypto.sign',
                          () => crypto.sign('sha256', message, key), T);
    // The key works on (an abandoned operation holds its own reference).
    assert.deepStrictEqual(crypto.privateDecrypt(key, ciphertext), message);
  },
]);
