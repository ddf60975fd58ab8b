// Flags: --threadpool-timeout=100
'use strict';
// fs.copyFile() and fs.promises.copyFile() of a FIFO that nobody writes to:
// the copy's open() of its source blocks until the stop interrupts it. The
// request gets the TimeoutError, as every other fs request past its budget
// does; before, libuv's copy returned that open()'s raw result and the
// callback got a plain EINTR error ('interrupted system call'). The
// destination is not created (the copy opens it after its source).
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const fs = require('fs');
const { spawnSync } = require('child_process');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');

function assertTimedOut(err, dest) {
  assert.ok(err instanceof TimeoutError, err);
  assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');
  assert.strictEqual(err.syscall, 'copyfile');
  assert.strictEqual(err.path, fifo);
  assert.strictEqual(err.dest, dest);
  assert.match(err.message, /budget of 100 ms/);
  assert.strictEqual(fs.existsSync(dest), false);
}

const first = tmpdir.resolve('first');
fs.copyFile(fifo, first, common.mustCall((err) => {
  assertTimedOut(err, first);
  // The FIFO is on the slow-resource list now: the next copy of it is
  // refused at once, or times out too; it never gets EINTR.
  const second = tmpdir.resolve('second');
  fs.promises.copyFile(fifo, second).then(common.mustNotCall(),
                                          common.mustCall((err) => {
    if (err.code !== 'ERR_SLOW_RESOURCE') assertTimedOut(err, second);
  }));
}));

// An ordinary copy is served meanwhile, as without the option.
const small = tmpdir.resolve('small');
fs.writeFileSync(small, 'legitimate');
fs.copyFile(small, tmpdir.resolve('small-copy'), common.mustSucceed(() => {
  assert.strictEqual(fs.readFileSync(tmpdir.resolve('small-copy'), 'utf8'),
                     'legitimate');
}));
