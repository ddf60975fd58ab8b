// Flags: --event-loop-timeout=60000
'use strict';
// An encrypted private key carries its own KDF parameters: the PKCS#8 key
// below asks for 2 million PBKDF2 iterations, which OpenSSL runs inside one
// decoder call (0.5 s on ./node-baseline), so a
// key that a user uploads with its passphrase held the loop past any
// budget. The parse of a private key given with a passphrase, and
// tls.createSecureContext()'s key and pfx, now run on the Priority
// Executor while the loop waits (PriorityJobs: src/crypto/crypto_priority_job.h,
// patches/node/src-an-encrypted-private-key-s-or-a-pkcs-12-s-kdf-runs-where-a-timeout-c.patch):
// a stop throws the TimeoutError ("Synchronous private key decryption
// stopped", made only there). Within a budget, keys parse to the same keys,
// and a wrong passphrase fails with the same error (OpenSSL's errors come
// back from the executor's thread), as in a run without the option.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const tls = require('tls');
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { runWithEventLoopTimeout } = require('node:cure');
const tmpdir = require('../common/tmpdir');
const fixtures = require('../common/fixtures');
const {
  assertSyncCallStopped, encryptedPrivateKeyPem, printWithoutOptions,
  runEachInACallback,
} = require('../common/cure');

const T = 100;

function makeKeys() {
  const ed = crypto.createPrivateKey(
    fixtures.readKey('ed25519_private.pem', 'ascii'));
  const rsa = crypto.createPrivateKey(fixtures.readKey('agent1-key.pem'));
  return {
    slowEd: encryptedPrivateKeyPem(ed, 'secret', 2e6),
    slowRsa: encryptedPrivateKeyPem(rsa, 'secret', 2e6),
    fastEd: encryptedPrivateKeyPem(ed, 'secret', 1000),
    fastRsa: encryptedPrivateKeyPem(rsa, 'other', 1000),
  };
}

// Made while the main module runs (no budget): about 1 s of PBKDF2.
const keys = makeKeys();

// A PKCS#12 of the RSA key and agent1's certificate with 2 million MAC and
// PBE iterations, by the openssl tool, when there is one.
tmpdir.refresh();
let slowPfx;
const pfxFile = path.join(tmpdir.path, 'slow.pfx');
const made = spawnSync('openssl', [
  'pkcs12', '-export', '-passout', 'pass:secret', '-iter', '2000000',
  '-inkey', fixtures.path('keys', 'agent1-key.pem'),
  '-in', fixtures.path('keys', 'agent1-cert.pem'), '-out', pfxFile,
]);
if (made.status === 0) slowPfx = fs.readFileSync(pfxFile);

const results = `(() => {
  const crypto = require('crypto');
  const tls = require('tls');
  const keys = ${JSON.stringify(keys)};
  const out = [];
  const describe = (e) => [e.code, e.message, e.reason, e.library,
                           JSON.stringify(e.opensslErrorStack)];
  for (const [pem, passphrase] of [[keys.fastEd, 'secret'],
                                   [keys.fastRsa, 'other'],
                                   [keys.fastEd, 'wrong'],
                                   [keys.fastRsa, ''],
                                   ['not a key', 'x']]) {
    try {
      const key = crypto.createPrivateKey({ key: pem, passphrase });
      out.push(key.asymmetricKeyType,
               JSON.stringify(crypto.createPublicKey(key).export({ format: 'jwk' })));
      out.push(crypto.sign(key.asymmetricKeyType === 'rsa' ? 'sha256' : null,
                           Buffer.from('data'), { key: pem, passphrase })
                 .length);
    } catch (e) {
      out.push(...describe(e));
    }
    try {
      tls.createSecureContext({ key: pem, passphrase });
      out.push('context');
    } catch (e) {
      out.push(...describe(e));
    }
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results);

const cases = [
  () => assertSyncCallStopped('createPrivateKey() of 2 million iterations',
                              'private key decryption', () => {
                                crypto.createPrivateKey(
                                  { key: keys.slowEd, passphrase: 'secret' });
                              }, T),
  () => assertSyncCallStopped('crypto.sign() with such a key',
                              'private key decryption', () => {
                                crypto.sign(null, Buffer.from('x'),
                                            { key: keys.slowEd,
                                              passphrase: 'secret' });
                              }, T),
  () => assertSyncCallStopped('privateDecrypt() with such a key',
                              'private key decryption', () => {
                                crypto.privateDecrypt(
                                  { key: keys.slowRsa, passphrase: 'secret' },
                                  Buffer.alloc(256));
                              }, T),
  () => assertSyncCallStopped('tls.createSecureContext() with such a key',
                              'private key decryption', () => {
                                tls.createSecureContext(
                                  { key: keys.slowRsa, passphrase: 'secret' });
                              }, T),
];
if (slowPfx) {
  cases.push(() => assertSyncCallStopped(
    'tls.createSecureContext() of a PKCS#12 of 2 million iterations',
    'private key decryption',
    () => tls.createSecureContext({ pfx: slowPfx, passphrase: 'secret' }), T));
} else {
  common.printSkipMessage('no openssl tool: the PKCS#12 case is not run');
}
cases.push(
  () => {
    // Within a budget (a generous one) the results, errors included, are
    // those of a run without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
);
runEachInACallback(cases);
