'use strict';
// err.outcome tells what became of an fs request that timed out:
// - 'none' when its system call was interrupted (the Hangman's signal makes
//   a blocked read() of a FIFO fail with EINTR): it did nothing and never
//   will;
// - 'unknown' when it was abandoned while it ran: with the interrupt signal
//   off (UV_THREADPOOL_INTERRUPT_SIGNAL=0) the read stays blocked past the
//   grace period, and data written to the FIFO afterwards is consumed by
//   that abandoned read: the request took effect after its error.
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const fs = require('fs');
const { spawnSync } = require('child_process');

function blockedRead(fifo, expected, then) {
  // O_RDWR: the open does not wait for a writer, the read waits for data.
  const fd = fs.openSync(fifo, 'r+');
  const buf = Buffer.alloc(1);
  fs.read(fd, buf, 0, 1, null, common.mustCall((err) => {
    assert.strictEqual(err.name, 'TimeoutError');
    assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');
    assert.strictEqual(err.syscall, 'read');
    assert.strictEqual(err.outcome, expected);
    then(fd, buf);
  }));
}

if (process.argv[2] === 'unknown') {
  const fifo = process.argv[3];
  blockedRead(fifo, 'unknown', (fd, buf) => {
    // Still blocked in read(): the byte goes to it, not to a new read.
    fs.writeSync(fd, 'x');
    const { abandoned } = require('node:cure').getThreadpoolStats();
    assert.strictEqual(abandoned, 1);
    // The abandoned read owns `buf` until it returns: it is never freed
    // under it, whatever this process does with its own references.
    console.log('abandoned');
  });
  return;
}

const tmpdir = require('../common/tmpdir');
tmpdir.refresh();

const stopped = tmpdir.resolve('stopped');
const abandoned = tmpdir.resolve('abandoned');
for (const fifo of [stopped, abandoned]) {
  if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');
}

// Abandoned: in a child without the interrupt signal.
const child = spawnSync(
  process.execPath,
  ['--threadpool-timeout=50', __filename, 'unknown', abandoned],
  {
    encoding: 'utf8',
    timeout: 60000,
    env: { ...process.env, UV_THREADPOOL_INTERRUPT_SIGNAL: '0' },
  });
assert.strictEqual(child.error, undefined, `${child.error}`);
assert.strictEqual(child.status, 0,
                   `stdout: ${child.stdout}\nstderr: ${child.stderr}`);
assert.strictEqual(child.stdout.trim(), 'abandoned');

// Stopped: here, with the signal.
require('node:cure').setThreadpoolTimeout(50);
blockedRead(stopped, 'none', common.mustCall((fd, buf) => {
  // The stopped read is gone: data written now waits for the next read
  // (a synchronous one: the FIFO is on the slow-resource list now).
  fs.writeSync(fd, 'y');
  assert.strictEqual(fs.readSync(fd, buf, 0, 1, null), 1);
  assert.strictEqual(buf.toString(), 'y');
  fs.closeSync(fd);
}));
