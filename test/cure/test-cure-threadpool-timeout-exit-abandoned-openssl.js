'use strict';
// A process that exits while an abandoned task is still inside OpenSSL ends
// with the exit code it asked for, not a SIGSEGV. DSA key generation has no
// stop point in its parameter generation, so past a 1 ms budget its task is
// abandoned and runs on; the callback's process.exit(0) then ran OpenSSL's
// atexit cleanup under it, which freed the RAND lock the task was taking
// (Node 24 initialises OpenSSL before main(), so OPENSSL_INIT_NO_ATEXIT
// came too late): 18 of 30 such runs crashed. Each run here checks that it
// reached that state (the task still live when the process exits).
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const { spawnSync } = require('child_process');

const script = `
  const { generateKeyPair } = require('crypto');
  const { getThreadpoolStats } = require('node:cure');
  generateKeyPair('dsa', { modulusLength: 1024, divisorLength: 160 },
                  (err) => {
    if (!(err instanceof TimeoutError)) throw err;
    const { abandonedLive, keptLive } = getThreadpoolStats();
    console.log(abandonedLive + keptLive > 0 ? 'live' : 'returned');
    process.exit(0);
  });
`;

const RUNS = 20;
let live = 0;
for (let i = 0; i < RUNS; i++) {
  const child = spawnSync(process.execPath,
                          ['--threadpool-timeout=1', '-e', script],
                          { encoding: 'utf8', timeout: 60000 });
  assert.strictEqual(child.error, undefined, String(child.error));
  assert.strictEqual(child.signal, null,
                     `run ${i} ended by ${child.signal}: ${child.stderr}`);
  assert.strictEqual(child.status, 0, child.stderr);
  if (child.stdout.trim() === 'live') live++;
}
// The path under test: most runs exit while the abandoned task still runs.
assert.ok(live > 0, `no run exited with abandoned work still live`);
