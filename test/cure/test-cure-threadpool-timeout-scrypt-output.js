// Flags: --threadpool-timeout=60000
'use strict';
// With --threadpool-timeout set, crypto.scrypt() derives its key in
// nodecure's own implementation of RFC 7914 (so that an abandoned
// derivation can stop). Its output must be bit for bit that of OpenSSL's
// EVP_PBE_scrypt(), which upstream Node.js and a process without the option
// use: RFC 7914's vectors, then a table of parameters compared against a
// child without the option. Refused parameters stay refused.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const { promisify } = require('util');
const { deriveWithoutOptions } = require('../common/cure');

const scrypt = promisify(crypto.scrypt);

// RFC 7914, section 12 (the fourth vector needs 1 GiB: left out).
const rfc7914 = [
  ['', '', 64, { N: 16, r: 1, p: 1 },
   '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442' +
   'fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906'],
  ['password', 'NaCl', 64, { N: 1024, r: 8, p: 16 },
   'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162' +
   '2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640'],
  ['pleaseletmein', 'SodiumChloride', 64, { N: 16384, r: 8, p: 1 },
   '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2' +
   'd5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887'],
];

const cases = [];
const inputs = [['secret', 'salt'], ['', ''], ['p', 'x'.repeat(99)]];
for (const [pass, salt] of inputs) {
  for (const [N, r, p] of [[2, 1, 1], [16, 1, 1], [1024, 1, 1], [16, 2, 3],
                           [256, 4, 2], [2048, 3, 1], [32, 8, 4]]) {
    for (const keylen of [1, 32, 65, 200]) {
      cases.push([pass, salt, keylen, { N, r, p }]);
    }
  }
}

function derive(list) {
  return list.map(([pass, salt, keylen, options]) =>
    require('crypto').scryptSync(pass, salt, keylen, options).toString('hex'));
}

(async () => {
  for (const [pass, salt, keylen, options, hex] of rfc7914) {
    const key = await scrypt(pass, salt, keylen, options);
    assert.strictEqual(key.toString('hex'), hex);
  }

  // The reference: a process without the option runs upstream's code.
  const expected = deriveWithoutOptions(derive, cases);

  const actual = await Promise.all(cases.map(
    ([pass, salt, keylen, options]) =>
      scrypt(pass, salt, keylen, options).then((key) => key.toString('hex'))));
  for (let i = 0; i < cases.length; i++) {
    assert.strictEqual(actual[i], expected[i], JSON.stringify(cases[i]));
  }
  // scryptSync() takes the same path in this process.
  assert.deepStrictEqual(derive(cases.slice(0, 12)), expected.slice(0, 12));

  // Refused as upstream refuses them: N not a power of two, too much memory.
  assert.throws(() => crypto.scryptSync('a', 'b', 16, { N: 3 }),
                { code: 'ERR_CRYPTO_INVALID_SCRYPT_PARAMS' });
  await assert.rejects(scrypt('a', 'b', 16, { N: 2 ** 20, maxmem: 2 ** 20 }),
                       { code: 'ERR_CRYPTO_INVALID_SCRYPT_PARAMS' });
})().then(common.mustCall());
