// Flags: --event-loop-timeout=60000
'use strict';
// new X509Certificate() parses its input in one OpenSSL call (with the
// subject alternative names, which OpenSSL 3 decodes as it parses): one
// certificate of 500,000 names took 70 ms as a 14 MB PEM on
// ./node-baseline, and the one of 1.5 million below about three times as
// long, with nothing to stop it. An input of more than 64 KiB is parsed on
// the Priority Executor now (ParseX509(), src/crypto/crypto_priority_job.h,
// patches/node/src-new-x509certificate-of-a-long-certificate-parses-where-a-timeout-can.patch):
// a stop throws the TimeoutError ("Synchronous new X509Certificate
// stopped", made only there). Within a budget, certificates long and short,
// and broken ones, give what a run without the option gives.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const { X509Certificate } = require('crypto');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// A certificate (not validly signed: the parse does not check) whose
// subject alternative names are `names` DNS names, as PEM.
const certificate = `(names, pem = true) => {
  const crypto = require('crypto');
  const fixtures = require(${JSON.stringify(require.resolve('../common/fixtures'))});
  const len = (n) => {
    if (n < 0x80) return Buffer.from([n]);
    const bytes = [];
    for (; n > 0; n >>= 8) bytes.unshift(n & 0xff);
    return Buffer.from([0x80 | bytes.length, ...bytes]);
  };
  const der = (tag, ...parts) => {
    const body = Buffer.concat(parts);
    return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
  };
  const oid = (hex) => der(0x06, Buffer.from(hex, 'hex'));
  const name = der(0x30, der(0x31, der(0x30, oid('550403'),
                                       der(0x0c, Buffer.from('x')))));
  const sha256WithRSA = der(0x30, oid('2a864886f70d01010b'), Buffer.from([5, 0]));
  const spki = crypto.createPublicKey(fixtures.readKey('agent1-key.pem'))
    .export({ type: 'spki', format: 'der' });
  const sans = [];
  for (let i = 0; i < names; i++) {
    const host = Buffer.from('h' + i + '.example.com');
    sans.push(Buffer.from([0x82, host.length]), host);
  }
  const tbs = der(0x30,
                  der(0xa0, der(0x02, Buffer.from([2]))),
                  der(0x02, Buffer.from([1])),
                  sha256WithRSA, name,
                  der(0x30, der(0x17, Buffer.from('250101000000Z')),
                      der(0x17, Buffer.from('350101000000Z'))),
                  name, spki,
                  der(0xa3, der(0x30, der(0x30, oid('551d11'),
                                          der(0x04, der(0x30, ...sans))))));
  const cert = der(0x30, tbs, sha256WithRSA,
                   der(0x03, Buffer.from([0]), Buffer.alloc(256, 7)));
  if (!pem) return cert;
  return '-----BEGIN CERTIFICATE-----\\n' +
         cert.toString('base64').match(/.{1,64}/g).join('\\n') +
         '\\n-----END CERTIFICATE-----\\n';
}`;

const results = `(() => {
  const { X509Certificate, createHash } = require('crypto');
  const make = ${certificate};
  const out = [];
  for (const [names, pem] of [[3, true], [3000, false], [5000, true],
                              [40000, true]]) {
    const c = new X509Certificate(make(names, pem));
    out.push(c.subject, c.validTo, c.fingerprint256,
             createHash('sha256').update(c.subjectAltName).digest('hex'));
  }
  for (const broken of [Buffer.alloc(100000, 0x30),
                        '-----BEGIN CERTIFICATE-----\\n' + 'A'.repeat(100000)]) {
    try {
      new X509Certificate(broken);
    } catch (e) {
      out.push(e.code, e.message, JSON.stringify(e.opensslErrorStack));
    }
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results);

// Made while the main module runs (no budget): about 42 MB of PEM.
const long = eval(certificate)(1.5e6);

runEachInACallback([
  () => assertSyncCallStopped('new X509Certificate() of 1.5 million names',
                              'new X509Certificate',
                              () => new X509Certificate(long), T),
  () => {
    // Within a budget (a generous one) the results, errors included, are
    // those of a run without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
