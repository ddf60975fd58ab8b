// Flags: --threadpool-timeout=60000
'use strict';
// With --threadpool-timeout set, crypto.pbkdf2() derives its key in
// nodecure's own iteration loop (so that an abandoned derivation can stop).
// Its output must be bit for bit that of OpenSSL's PKCS5_PBKDF2_HMAC(),
// which upstream Node.js uses and which a process without the option uses:
// RFC 6070's vectors, then a table of digests, lengths (one block, several,
// partial) and empty inputs compared against a child without the option.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const { promisify } = require('util');
const { deriveWithoutOptions } = require('../common/cure');

const pbkdf2 = promisify(crypto.pbkdf2);

// RFC 6070, PBKDF2-HMAC-SHA1.
const rfc6070 = [
  ['password', 'salt', 1, 20, '0c60c80f961f0e71f3a9b524af6012062fe037a6'],
  ['password', 'salt', 2, 20, 'ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957'],
  ['password', 'salt', 4096, 20, '4b007901b765489abead49d926f721d065a429c1'],
  ['passwordPASSWORDpassword', 'saltSALTsaltSALTsaltSALTsaltSALTsalt', 4096, 25,
   '3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038'],
  ['pass\0word', 'sa\0lt', 4096, 16, '56fa6aa75548099dcc37d7f03425e0c3'],
];

const cases = [];
for (const digest of ['sha1', 'sha256', 'sha512', 'sha3-256', 'md5']) {
  for (const [pass, salt] of [['secret', 'salt'], ['', 'salt'], ['x', '']]) {
    // Around the loop's check every 1024 iterations; 1 to 5 blocks.
    for (const iterations of [1, 2, 1024, 1025, 2049]) {
      for (const keylen of [1, 20, 64, 100]) {
        cases.push([pass, salt, iterations, keylen, digest]);
      }
    }
  }
}

function derive(list) {
  return list.map(([pass, salt, iterations, keylen, digest]) =>
    require('crypto').pbkdf2Sync(pass, salt, iterations, keylen, digest)
      .toString('hex'));
}

(async () => {
  for (const [pass, salt, iterations, keylen, hex] of rfc6070) {
    const key = await pbkdf2(pass, salt, iterations, keylen, 'sha1');
    assert.strictEqual(key.toString('hex'), hex);
  }

  // The reference: a process without the option runs upstream's code.
  const expected = deriveWithoutOptions(derive, cases);

  const actual = await Promise.all(cases.map(
    ([pass, salt, iterations, keylen, digest]) =>
      pbkdf2(pass, salt, iterations, keylen, digest)
        .then((key) => key.toString('hex'))));
  for (let i = 0; i < cases.length; i++) {
    assert.strictEqual(actual[i], expected[i], JSON.stringify(cases[i]));
  }
  // pbkdf2Sync() takes the same path in this process.
  assert.deepStrictEqual(derive(cases.slice(0, 24)), expected.slice(0, 24));
})().then(common.mustCall());
