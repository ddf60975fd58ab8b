// Flags: --event-loop-timeout=60000
'use strict';
// What an X509Certificate says about itself grows with the certificate, and
// OpenSSL does it in one call with nothing to stop it: on ./node-baseline,
// for a certificate of 1.5 million subject alternative names (30 MiB, which
// parses in 60 ms), subjectAltName took 0.6 s, checkHost(), checkEmail()
// and checkIP() 0.3 to 0.4 s, toLegacyObject() 1.3 s; infoAccess of a
// million OCSP URIs 0.7 s; toString()'s PEM of a 64 MiB certificate 0.9 s.
// For a certificate of more than 64 KiB of DER that work now runs on the
// Priority Executor, with a reference of the job's own to the certificate
// (RunOnCert(), src/crypto/crypto_priority_job.h), and toLegacyObject()'s
// subject and issuer objects (OpenSSL caps a name at 1 MiB: 80,000 entries,
// 80 ms) poll between entries
// (patches/node/src-a-long-certificate-s-names-and-pem-are-made-where-a-timeout-can-leav.patch).
// A stop throws the TimeoutError "Synchronous X509Certificate.<api>
// stopped", made only there. Within a budget, certificates short and long
// give what a run without the option gives.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const { X509Certificate } = require('crypto');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');
const { certificateDer } = require('../common/cure-asn1');

const T = 100;

// Everything the getters say about certificates below and above 64 KiB,
// hashed where it is long.
const results = `(() => {
  const { X509Certificate, createHash } = require('crypto');
  const { certificateDer } = require(${JSON.stringify(require.resolve('../common/cure-asn1'))});
  const hash = (s) => createHash('sha256').update(String(s)).digest('hex');
  const out = [];
  for (const options of [{ sans: 3 }, { sans: 3000, aia: 10 },
                         { sans: 5000, aia: 4000 }, { entries: 80000 },
                         { signatureBytes: 100000 }]) {
    const c = new X509Certificate(certificateDer(options));
    const legacy = c.toLegacyObject();
    out.push(hash(c.subject), hash(c.issuer), hash(c.subjectAltName),
             hash(c.infoAccess), hash(c.toString()),
             c.checkHost('h2.example.com'), c.checkHost('zz.example.org'),
             c.checkEmail('a@b.c'), c.checkIP('1.2.3.4'),
             hash(JSON.stringify(legacy.subject)),
             hash(JSON.stringify(legacy.issuer)),
             hash(legacy.subjectaltname), hash(JSON.stringify(legacy.infoAccess)),
             legacy.fingerprint256, legacy.raw.length);
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results);

// Made and parsed while the main module runs (no budget). A stopped getter
// caches nothing, so one certificate serves several cases.
const sans = new X509Certificate(certificateDer({ sans: 1e6 }));
const entries = new X509Certificate(certificateDer({ entries: 80000 }));
const aia = new X509Certificate(certificateDer({ aia: 5e5 }));
const signature = new X509Certificate(
  certificateDer({ signatureBytes: 64 << 20 }));

const stopped = (label, api, fn, budget = T) => () => {
  assertSyncCallStopped(label, `X509Certificate.${api}`, fn, budget);
};

runEachInACallback([
  stopped('subjectAltName of a million names', 'subjectAltName',
          () => sans.subjectAltName),
  stopped('checkHost() of a million names', 'checkHost',
          () => sans.checkHost('zz.example.org')),
  stopped('checkEmail() of a million names', 'checkEmail',
          () => sans.checkEmail('a@b.c')),
  stopped('checkIP() of a million names', 'checkIP',
          () => sans.checkIP('1.2.3.4')),
  stopped('toLegacyObject() of a million names', 'toLegacyObject',
          () => sans.toLegacyObject()),
  stopped('infoAccess of 500,000 URIs', 'infoAccess', () => aia.infoAccess),
  stopped('toString() of 64 MiB', 'toString', () => signature.toString()),
  // The poll between a name's entries: 80 ms of objects for 80,000.
  stopped('toLegacyObject() of names of 80,000 entries', 'toLegacyObject',
          () => entries.toLegacyObject(), 10),
  () => {
    // A stopped call cached nothing and left nothing behind: the same calls
    // within a generous budget give the whole result.
    runWithEventLoopTimeout(60_000, () => {
      const names = sans.subjectAltName;
      assert.ok(names.startsWith('DNS:h0.example.com, DNS:h1.example.com, '));
      assert.ok(names.endsWith(', DNS:h999999.example.com'));
      assert.strictEqual(sans.checkHost('h999999.example.com'),
                         'h999999.example.com');
      assert.ok(aia.infoAccess.endsWith(
        '\nOCSP - URI:http://o499999.example.com/'));
      const pem = signature.toString();
      assert.ok(pem.startsWith('-----BEGIN CERTIFICATE-----\n'));
      assert.ok(pem.length > (64 << 20) * 4 / 3);
      assert.strictEqual(entries.toLegacyObject().subject.CN.length, 80000);
    });
  },
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
