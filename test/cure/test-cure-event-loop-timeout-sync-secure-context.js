// Flags: --event-loop-timeout=60000
'use strict';
// tls.createSecureContext() reads the PEM of its `cert`, `ca` and `crl` in
// one OpenSSL call each, linear in the text at ASN.1 speed, with nothing to
// stop it: on ./node-baseline a certificate of 13 MiB of PEM took 145 ms as
// `cert` or `ca`, a CRL of a million entries (28 MiB) 0.3 s as `crl`; a
// service that terminates TLS for its users' certificates reads what they
// upload. A text of more than 64 KiB is now read on the Priority Executor
// (RunOnMemoryBIO(), src/crypto/crypto_priority_job.h;
// patches/node/src-tls-createsecurecontext-reads-a-long-pem-where-a-timeout-can-leave-i.patch),
// and what was read is used in place: a stop throws the TimeoutError
// "Synchronous tls.createSecureContext stopped", made only there. Within a
// budget, texts short and long, and broken ones, give what a run without
// the option gives. A bundle of many CA certificates is added in place,
// with a poll every 16 certificates.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const tls = require('tls');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');
const {
  caBundle, certificateDer, crlDer, pem,
} = require('../common/cure-asn1');

const T = 100;

// What contexts made of certificates and CRLs below and above 64 KiB say:
// the certificate they would present, or the error.
const results = `(() => {
  const tls = require('tls');
  const { createHash } = require('crypto');
  const fixtures = require(${JSON.stringify(require.resolve('../common/fixtures'))});
  const {
    caBundle, certificateDer, crlDer, pem,
  } = require(${JSON.stringify(require.resolve('../common/cure-asn1'))});
  const hash = (b) => b && createHash('sha256').update(b).digest('hex');
  const agent = fixtures.readKey('agent1-cert.pem', 'latin1');
  const ca = fixtures.readKey('ca1-cert.pem', 'latin1');
  const long = pem(certificateDer({ sans: 5000 }));
  const broken = '-----BEGIN CERTIFICATE-----\\n' + 'A'.repeat(100000) +
                 '\\n-----END CERTIFICATE-----\\n';
  const cases = [
    { cert: agent, key: fixtures.readKey('agent1-key.pem') },
    { cert: agent + ca },
    { cert: long },
    { cert: long + ca + long },
    { cert: broken },
    { cert: agent + broken },
    { cert: long + 'garbage' },
    { ca: ca },
    { ca: [ca, long, agent + long] },
    { ca: long + broken + ca },
    { ca: caBundle(100) },
    { ca: caBundle(100) + broken },
    { crl: fixtures.readKey('ca2-crl.pem') },
    { crl: pem(crlDer({ revoked: 4000 }), 'X509 CRL') },
    { crl: pem(crlDer({ revoked: 4000 }), 'X509 CRL').slice(0, 70000) },
  ];
  const out = [];
  for (const options of cases) {
    try {
      const { context } = tls.createSecureContext(options);
      out.push(hash(context.getCertificate()));
    } catch (e) {
      out.push(e.code, e.message, e.library, e.reason);
    }
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results);

// Made while the main module runs (no budget): about 27 MiB of PEM each,
// and a bundle of 3,000 small certificates (5 MiB), which OpenSSL reads
// fast but adds slowly (each add sorts the store again: 0.5 s in all).
const longCert = pem(certificateDer({ sans: 1e6 }));
const longCrl = pem(crlDer({ revoked: 1e6 }), 'X509 CRL');
const bundle = caBundle(3000);

runEachInACallback([
  () => assertSyncCallStopped('cert of a million names',
                              'tls.createSecureContext',
                              () => tls.createSecureContext({ cert: longCert }),
                              T),
  () => assertSyncCallStopped('ca of a million names',
                              'tls.createSecureContext',
                              () => tls.createSecureContext({ ca: longCert }),
                              T),
  () => assertSyncCallStopped('ca of 3,000 certificates',
                              'tls.createSecureContext',
                              () => tls.createSecureContext({ ca: bundle }),
                              T),
  () => assertSyncCallStopped('crl of a million entries',
                              'tls.createSecureContext',
                              () => tls.createSecureContext({ crl: longCrl }),
                              T),
  () => {
    // Within a budget (a generous one) the results, errors included, are
    // those of a run without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
