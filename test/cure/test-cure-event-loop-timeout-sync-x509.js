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

// cure-asn1 and fixtures load nothing of test/common/index.js: a child of
// printWithoutOptions() requires them too.
const asn1 = JSON.stringify(require.resolve('../common/cure-asn1'));
const fixtures = JSON.stringify(require.resolve('../common/fixtures'));

// A certificate (not validly signed: the parse does not check) whose
// subject alternative names are `names` DNS names, as PEM or DER.
const certificate = `(names, pem = true) => {
  const asn1 = require(${asn1});
  const cert = asn1.certificateDer({ sans: names });
  return pem ? asn1.pem(cert) : cert;
}`;

// An SPKAC (base64 of its DER) with a challenge of `bytes`, signed with
// agent1's key, as a browser's <keygen> sends it.
const spkac = `(bytes) => {
  const crypto = require('crypto');
  const { der, oid } = require(${asn1});
  const key = crypto.createPrivateKey(require(${fixtures}).readKey('agent1-key.pem'));
  const spki = crypto.createPublicKey(key).export({ type: 'spki', format: 'der' });
  const pkac = der(0x30, spki, der(0x16, Buffer.alloc(bytes, 0x61)));
  const sha256WithRSA = der(0x30, oid('2a864886f70d01010b'), Buffer.from([5, 0]));
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
// As bytes: a string of 42 MB is first copied to bytes in the constructor's
// JavaScript, which a loaded machine let run past the budget before the
// parse began (a run beside helpers).
const longBytes = Buffer.from(long);
const longSpkac = eval(spkac)(64 << 20);
const longSpkacBuffer = Buffer.from(longSpkac);

runEachInACallback([
  () => assertSyncCallStopped('new X509Certificate() of 1.5 million names',
                              'new X509Certificate',
                              () => new X509Certificate(longBytes), T),
  () => assertSyncCallStopped('Certificate.exportChallenge() of 64 MiB',
                              'Certificate.exportChallenge',
                              () => Certificate.exportChallenge(longSpkacBuffer), T),
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
