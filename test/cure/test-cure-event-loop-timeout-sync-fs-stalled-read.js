'use strict';
// fs.readFileSync() of a file on a network share whose server answers the
// open but never a read (a FUSE daemon that stalls its reads): the open,
// fstat and read run on the Priority Executor, since the open was on a
// hang-prone mount, and the read is abandoned at the callback's budget.
// The caller's Buffer is never written after the TimeoutError (the read
// fills a buffer of its own), the fd is closed, and the mount is stuck
// (ETIMEDOUT at once) until the daemon goes away. Needs root and /dev/fuse
// (test/cure-fixtures/hung-fuse-mount.py --stall-reads).
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const path = require('path');

const T = 200;

const {
  assertInterrupted, awaitNoAbandonedThread, hungMountInChild,
  openFdCount, runEachInACallback,
} = require('../common/cure');

const mount = hungMountInChild(__filename, T, ['--stall-reads']);
if (mount === null) return;
const cure = require('node:cure');
const { mnt } = mount;
const report = path.join(mnt, 'report.txt');

let fds;
runEachInACallback([
  () => {
    // What the daemon answers comes back through the executor.
    const before = cure.getThreadpoolStats().hopped;
    assert.strictEqual(fs.statSync(report).size, 4096);
    assert.strictEqual(fs.existsSync(report), true);
    const fd = fs.openSync(report, 'r');
    assert.strictEqual(fs.fstatSync(fd).size, 4096);
    fs.closeSync(fd);
    assert.strictEqual(cure.getThreadpoolStats().hopped, before + 5);
  },
  () => {
    fds = openFdCount();
    const before = cure.getThreadpoolStats();
    assertInterrupted('readFileSync', () => fs.readFileSync(report), T);
    const after = cure.getThreadpoolStats();
    assert.strictEqual(after.abandoned, before.abandoned + 1);
    assert.strictEqual(after.abandonedLive, 1);
    // readFileSync() closed its fd on the way out.
    assert.strictEqual(openFdCount(), fds);
  },
  () => {
    // Stuck: at once, no new thread.
    const before = cure.getThreadpoolStats();
    assert.throws(() => fs.statSync(report), { code: 'ETIMEDOUT' });
    assert.throws(() => fs.readFileSync(report, 'utf8'), { code: 'ETIMEDOUT' });
    assert.strictEqual(cure.getThreadpoolStats().abandoned, before.abandoned);
  },
  () => {
    mount.release();
    awaitNoAbandonedThread(common.mustCall(() => {
      assert.strictEqual(openFdCount(), fds);
    }));
  },
]);
