'use strict';
// A process that exits while jobs that --event-loop-timeout left on the
// Priority Executor still run inside OpenSSL ends normally. The stop of a
// synchronous call abandons its job, which owns what it touches until it
// returns; but exit() runs OpenSSL's cleanup (registered before main()),
// which freed the decoders that an abandoned PEM read was using: a SIGSEGV
// in OPENSSL_LH_retrieve() in about half the runs of
// test-cure-event-loop-timeout-sync-secure-context.js. The exit guard of
// --threadpool-timeout (ThreadPoolTimeout::GuardExit(), which ends the
// process without those handlers while abandoned work is live) is now set
// up by --event-loop-timeout too.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const { spawnSync } = require('child_process');

if (process.argv[2] === 'child') {
  const tls = require('tls');
  const { runWithEventLoopTimeout } = require('node:cure');
  const { caBundle } = require('../common/cure-asn1');
  // 3,000 certificates: OpenSSL makes a public-key decoder for each.
  const long = caBundle(3000);
  setImmediate(() => {
    let stopped = 0;
    for (let i = 0; i < 3; i++) {
      try {
        runWithEventLoopTimeout(20, () => tls.createSecureContext({ ca: long }));
      } catch (err) {
        assert.match(err.message,
                     /^Synchronous tls\.createSecureContext stopped: /);
        stopped++;
      }
    }
    // The jobs read on: exit under them, at a different point of their
    // work in each run.
    console.log(`stopped ${stopped}`);
    setTimeout(() => process.exit(0), Number(process.argv[3]));
  });
  return;
}

for (const delay of [0, 50, 100, 150, 200, 250]) {
  const child = spawnSync(process.execPath,
                          ['--event-loop-timeout=60000', __filename, 'child',
                           delay],
                          { encoding: 'utf8' });
  assert.strictEqual(child.signal, null, child.stderr);
  assert.strictEqual(child.status, 0, child.stderr);
  // The path under test: the calls were stopped, their jobs left running.
  assert.strictEqual(child.stdout.trim(), 'stopped 3');
}
