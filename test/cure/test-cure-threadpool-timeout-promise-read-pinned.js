'use strict';
// A read abandoned past its budget owns its buffer's memory until it
// returns, even when nothing else refers to the buffer: filehandle.read()
// keeps nothing alive on its own once its promise is rejected. Here the
// buffer becomes garbage, GC runs, fresh buffers of the same size are
// allocated (they would take its memory if it had been freed), and only
// then does data arrive for the abandoned read, which writes it into the
// buffer it was given. The fresh buffers must be untouched (under
// `make test-asan` a use-after-free would also be reported).
//
// The read stays blocked past the grace period because the child runs
// without the interrupt signal (UV_THREADPOOL_INTERRUPT_SIGNAL=0).
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const fs = require('fs');
const { spawnSync } = require('child_process');

const kSize = 64 * 1024;

async function child(fifo) {
  const { getThreadpoolStats } = require('node:cure');
  const { setImmediate: immediate } = require('timers/promises');
  const fh = await fs.promises.open(fifo, 'r+');
  await assert.rejects(fh.read(Buffer.alloc(kSize), 0, kSize, null), {
    name: 'TimeoutError',
    code: 'ERR_THREADPOOL_TIMEOUT',
    outcome: 'unknown',
  });
  // The buffer is garbage now.
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await immediate();
  }
  const fresh = [];
  for (let i = 0; i < 64; i++) fresh.push(Buffer.alloc(kSize, 1));

  fs.writeSync(fh.fd, Buffer.alloc(kSize, 0x61));  // the abandoned read's
  // Its thread is reaped once the read returned.
  while (getThreadpoolStats().abandonedLive !== 0) await immediate();

  for (const b of fresh) {
    assert.strictEqual(b.indexOf(0x61), -1, 'a late read wrote into freed ' +
                       'memory that a new Buffer now uses');
  }
  await fh.close();
  console.log('pinned');
}

if (process.argv[2] === 'child') {
  child(process.argv[3]).then(common.mustCall());
  return;
}

const tmpdir = require('../common/tmpdir');
tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');

const result = spawnSync(
  process.execPath,
  ['--expose-gc', '--threadpool-timeout=50', __filename, 'child', fifo],
  {
    encoding: 'utf8',
    timeout: 60000,
    env: { ...process.env, UV_THREADPOOL_INTERRUPT_SIGNAL: '0' },
  });
assert.strictEqual(result.error, undefined, `${result.error}`);
assert.strictEqual(result.status, 0,
                   `stdout: ${result.stdout}\nstderr: ${result.stderr}`);
assert.strictEqual(result.stdout.trim(), 'pinned');
