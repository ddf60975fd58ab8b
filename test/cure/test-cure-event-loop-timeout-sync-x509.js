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
// stopped", made only there). So are the SPKAC functions of
// crypto.Certificate (161 ms to export a 12 MiB challenge on
// ./node-baseline;
// patches/node/src-a-long-spkac-is-decoded-where-a-timeout-can-leave-it.patch).
// Within a budget, certificates and SPKACs long and short, and broken ones,
// give what a run without the option gives.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const { Certificate, X509Certificate } = require('crypto');
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
                                          der(0x04, der(0x30, Buffer.concat(sans)))))));
  const cert = der(0x30, tbs, sha256WithRSA,
                   der(0x03, Buffer.from([0]), Buffer.alloc(256, 7)));
  if (!pem) return cert;
  return '-----BEGIN CERTIFICATE-----\\n' +
         cert.toString('base64').match(/.{1,64}/g).join('\\n') +
         '\\n-----END CERTIFICATE-----\\n';
}`;

// An SPKAC (base64 of its DER) with a challenge of `bytes`, signed with
// agent1's key, as a browser's <keygen> sends it.
const spkac = `(bytes) => {
  const crypto = require('crypto');
  const fixtures = require(${JSON.stringify(require.resolve('../common/fixtures'))});
  const len = (n) => {
    if (n < 0x80) return Buffer.from([n]);
    const out = [];
    for (; n > 0; n >>= 8) out.unshift(n & 0xff);
    return Buffer.from([0x80 | out.length, ...out]);
  };
  const der = (tag, ...parts) => {
    const body = Buffer.concat(parts);
    return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
  };
  const key = crypto.createPrivateKey(fixtures.readKey('agent1-key.pem'));
  const spki = crypto.createPublicKey(key).export({ type: 'spki', format: 'der' });
  const pkac = der(0x30, spki, der(0x16, Buffer.alloc(bytes, 0x61)));
  const sha256WithRSA = der(0x30, der(0x06, Buffer.from('2a864886f70d01010b', 'hex')),
                         Buffer.from([5, 0]));
  const signature = crypto.sign('sha256', pkac, key);
  return der(0x30, pkac, sha256WithRSA,
             der(0x03, Buffer.from([0]), signature)).toString('base64');
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
  const { Certificate } = require('crypto');
  const makeSpkac = ${spkac};
  for (const bytes of [10, 100000]) {
    const s = makeSpkac(bytes);
    out.push(Certificate.verifySpkac(Buffer.from(s)),
             Certificate.exportPublicKey(s).toString(),
             createHash('sha256').update(Certificate.exportChallenge(s)).digest('hex'));
  }
  out.push(Certificate.verifySpkac(Buffer.from('A'.repeat(100000))),
           String(Certificate.exportChallenge('A'.repeat(100000))));
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

// Made while the main module runs (no budget): about 42 MB of PEM, and an
// SPKAC of a 64 MiB challenge.
const long = eval(certificate)(1.5e6);
const longSpkac = eval(spkac)(64 << 20);
const longSpkacBuffer = Buffer.from(longSpkac);

runEachInACallback([
  () => assertSyncCallStopped('new X509Certificate() of 1.5 million names',
                              'new X509Certificate',
                              () => new X509Certificate(long), T),
  () => assertSyncCallStopped('Certificate.exportChallenge() of 64 MiB',
                              'Certificate.exportChallenge',
                              () => Certificate.exportChallenge(longSpkac), T),
  () => assertSyncCallStopped('Certificate.verifySpkac() of 64 MiB',
                              'Certificate.verifySpkac',
                              () => Certificate.verifySpkac(longSpkacBuffer),
                              T),
  () => {
    // Within a budget (a generous one) the results, errors included, are
    // those of a run without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
