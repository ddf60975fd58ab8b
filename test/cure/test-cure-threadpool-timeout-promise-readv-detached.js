'use strict';
// The Buffers of a readv abandoned past its budget stay its own until it
// returns, whatever JS does with them after the TimeoutError: here the
// caller empties its Array of Buffers and transfers their ArrayBuffers away
// (structuredClone() with a transfer list), the clones become garbage, GC
// runs and fresh Buffers of the same size are allocated (they would take
// the memory if it had been freed). Only then does data arrive for the
// abandoned read. The fresh Buffers must be untouched (under
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
  const buffers = [Buffer.alloc(kSize), Buffer.alloc(kSize)];
  await assert.rejects(fh.readv(buffers, null), {
    name: 'TimeoutError',
    code: 'ERR_THREADPOOL_TIMEOUT',
    outcome: 'unknown',
  });
  // Detached, and garbage once the clones are.
  const stores = buffers.map((b) => b.buffer);
  buffers.length = 0;
  structuredClone(stores, { transfer: stores });
  assert.strictEqual(stores[0].byteLength, 0);
  stores.length = 0;
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await immediate();
  }
  const fresh = [];
  for (let i = 0; i < 64; i++) fresh.push(Buffer.alloc(kSize, 1));

  fs.writeSync(fh.fd, Buffer.alloc(2 * kSize, 0x61));  // the readv's
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
