// Flags: --event-loop-timeout=60000
'use strict';
// tlsSocket.exportKeyingMaterial() of a TLS 1.2 connection runs the TLS
// PRF over the length its caller passes (two HMACs per 32 bytes: 16 MiB
// took about 2 s) in one OpenSSL call, with nothing to stop it. Over 64 KiB
// it now runs on the Priority Executor, on copies of the session's master
// secret and of the seed (ExportLongKeyingMaterial(),
// src/crypto/crypto_priority_job.h): a stop throws the TimeoutError
// ("Synchronous exportKeyingMaterial stopped", made only where such a call
// stops) and the connection goes on. Within a budget the output, with and
// without a context, for suites whose PRF is SHA-256 (an AEAD suite, and a
// CBC suite of before TLS 1.2) and SHA-384, is the output of upstream's call
// on the same connection (a callback without a budget takes that path), and
// the errors are upstream's; TLS 1.3 stays in place.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const tls = require('tls');
const fixtures = require('../common/fixtures');
const { runWithEventLoopTimeout } = require('node:cure');
const { assertSyncCallStopped } = require('../common/cure');

const T = 100;
const key = fixtures.readKey('agent1-key.pem');
const cert = fixtures.readKey('agent1-cert.pem');

// Connects with `options` and calls check(socket) once the client's
// handshake is done; then `next`.
function connect(options, check, next) {
  const server = tls.createServer({ key, cert, ...options }, (s) => {
    s.on('error', () => {});
    s.resume();
  });
  server.listen(0, common.mustCall(() => {
    // By address: no getaddrinfo() on the threadpool, which make
    // test-asan gives a budget of 1 ms.
    const socket = tls.connect({
      host: '127.0.0.1', port: server.address().port,
      rejectUnauthorized: false, ...options,
    }, common.mustCall(() => {
      check(socket);
      socket.destroy();
      server.close(next);
    }));
  }));
}

// What upstream's call gives: a callback without a budget never enters a
// section that could stop it, and the export runs in place.
const upstream = (fn) => runWithEventLoopTimeout(0, fn);
const budgeted = (fn) => runWithEventLoopTimeout(60_000, fn);

function compare(socket) {
  const context = Buffer.from('the context');
  for (const length of [32, 64 * 1024, 64 * 1024 + 1, (1 << 20) + 3]) {
    for (const args of [['EXPORTER-a'], ['EXPORTER-b', context],
                        ['EXPORTER-c', Buffer.alloc(0)]]) {
      const expected = upstream(() => socket.exportKeyingMaterial(length, ...args));
      const actual = budgeted(() => socket.exportKeyingMaterial(length, ...args));
      assert.strictEqual(actual.length, length);
      assert.ok(actual.equals(expected), `${length} ${args[0]}`);
    }
  }
  // A label that TLS reserves fails as upstream's call does.
  const error = (fn) => {
    try {
      fn();
    } catch (err) {
      return `${err.code} ${err.message}`;
    }
    assert.fail('no error');
  };
  assert.strictEqual(
    budgeted(() => error(() => socket.exportKeyingMaterial(1 << 20, 'client finished'))),
    upstream(() => error(() => socket.exportKeyingMaterial(1 << 20, 'client finished'))));
}

const suites = [
  ['TLSv1.2', 'ECDHE-RSA-AES128-GCM-SHA256'],
  ['TLSv1.2', 'ECDHE-RSA-AES256-GCM-SHA384'],
  ['TLSv1.2', 'ECDHE-RSA-AES128-SHA'],
];

(function nextSuite(i) {
  if (i === suites.length) {
    // TLS 1.3: HKDF, whose output is bounded; in place, as upstream.
    connect({ minVersion: 'TLSv1.3' }, common.mustCall((socket) => {
      assert.strictEqual(socket.getProtocol(), 'TLSv1.3');
      const a = budgeted(() => socket.exportKeyingMaterial(1000, 'EXPORTER-x'));
      const b = upstream(() => socket.exportKeyingMaterial(1000, 'EXPORTER-x'));
      assert.ok(a.equals(b));
    }), common.mustCall());
    return;
  }
  const [version, ciphers] = suites[i];
  connect({ maxVersion: version, ciphers }, common.mustCall((socket) => {
    assert.strictEqual(socket.getProtocol(), version);
    assert.strictEqual(socket.getCipher().name, ciphers);
    compare(socket);
    // 16 MiB: about 2 s in place (left to end on the executor, which it
    // keeps busy that long: no more).
    assertSyncCallStopped(`exportKeyingMaterial() of 16 MiB, ${ciphers}`,
                          'exportKeyingMaterial',
                          () => socket.exportKeyingMaterial(16 << 20, 'EXPORTER-s'),
                          T);
    // The connection goes on: an export after the stop is upstream's.
    assert.ok(budgeted(() => socket.exportKeyingMaterial(1 << 20, 'EXPORTER-d'))
      .equals(upstream(() => socket.exportKeyingMaterial(1 << 20, 'EXPORTER-d'))));
  }), () => nextSuite(i + 1));
})(0);
