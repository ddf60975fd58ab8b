'use strict';
// fs.writeSync() to a file on a network share whose server answers the
// open but never a write (a FUSE daemon that stalls its writes): the open
// and the write run on the Priority Executor, and the write is abandoned at
// the callback's budget with a TimeoutError whose err.outcome is 'unknown'
// (it may still land: the executor writes a copy of the data through a
// duplicate of the fd). An open that creates runs there too. The mount is
// stuck (ETIMEDOUT at once, also for writeFileSync()) until the daemon goes
// away; then the abandoned write returns, its thread ends and closes its
// duplicate, and no fd is left behind. Needs root and /dev/fuse
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
const log = path.join(mnt, 'log.txt');

let fds;
let fd;
runEachInACallback([
  () => {
    fds = openFdCount();
    // Opens for writing hop, creating ones too (every name exists here).
    const before = cure.getThreadpoolStats().hopped;
    fs.closeSync(fs.openSync(log, 'a'));
    fd = fs.openSync(log, 'r+');
    assert.strictEqual(cure.getThreadpoolStats().hopped, before + 3);
  },
  () => {
    const before = cure.getThreadpoolStats();
    const data = Buffer.from('a line of the log\n');
    let error;
    assertInterrupted('writeSync', () => {
      try {
        fs.writeSync(fd, data);
      } catch (err) {
        error = err;
        throw err;
      }
    }, T);
    assert.strictEqual(error.syscall, 'write');
    assert.strictEqual(error.outcome, 'unknown');
    const after = cure.getThreadpoolStats();
    assert.strictEqual(after.hopped, before.hopped + 1);
    assert.strictEqual(after.abandoned, before.abandoned + 1);
    assert.strictEqual(after.abandonedLive, 1);
    // The hop writes from a copy: the caller may reuse its Buffer.
    data.fill(0);
    // The caller's fd, and the executor's duplicate until the write returns.
    assert.strictEqual(openFdCount(), fds + 2);
  },
  () => {
    // Stuck: at once, no new thread; nothing ran, nothing lands.
    const before = cure.getThreadpoolStats();
    for (const fn of [() => fs.writeFileSync(log, 'x'),
                      () => fs.appendFileSync(log, 'x'),
                      () => fs.statSync(log)]) {
      assert.throws(fn, { code: 'ETIMEDOUT' });
    }
    assert.strictEqual(cure.getThreadpoolStats().abandoned, before.abandoned);
  },
  () => {
    // The daemon goes away: the write returns (ENOTCONN), its thread ends
    // and closes its duplicate. (A close before that would wait for the
    // write: FUSE's flush takes the inode's lock, which the write holds.)
    mount.release();
    awaitNoAbandonedThread(common.mustCall(() => {
      assert.strictEqual(openFdCount(), fds + 1);
      try {
        fs.closeSync(fd);
      } catch (err) {
        assert.strictEqual(err.code, 'ENOTCONN');  // the flush's answer
      }
      assert.strictEqual(openFdCount(), fds);
    }));
  },
]);
