'use strict';
// A synchronous fs call on a hung mount (a FUSE file system whose daemon
// never answers: the kernel waits for it killably, so the loop thread's
// interrupt signal cannot end the call) is stopped at its callback's budget:
// the call runs on the Priority Executor and the stop abandons it. While
// that call is stuck, further calls on the same mount fail at once with
// ETIMEDOUT (as on a soft NFS mount) and abandon no more threads. Once the
// daemon goes away, the stuck call returns, its thread ends, and the path
// answers as before. Needs root and /dev/fuse: the mount is made in a mount
// namespace of the child's own (test/cure-fixtures/hung-fuse-mount.py).
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const path = require('path');

const T = 200;

const {
  assertInterrupted, awaitNoAbandonedThread, hungMountInChild,
  runEachInACallback,
} = require('../common/cure');

const mount = hungMountInChild(__filename, T);
if (mount === null) return;
const cure = require('node:cure');
const { mnt } = mount;

const onTheMount = [
  ['statSync', () => fs.statSync(mnt)],
  ['lstatSync', () => fs.lstatSync(path.join(mnt, 'a'))],
  ['readdirSync', () => fs.readdirSync(mnt)],
  ['openSync', () => fs.openSync(path.join(mnt, 'f'), 'r')],
  ['accessSync', () => fs.accessSync(mnt)],
  ['readlinkSync', () => fs.readlinkSync(path.join(mnt, 'l'))],
  ['realpathSync.native', () => fs.realpathSync.native(path.join(mnt, 'a'))],
  ['statfsSync', () => fs.statfsSync(mnt)],
  ['readFileSync', () => fs.readFileSync(path.join(mnt, 'f'))],
  ['writeFileSync', () => fs.writeFileSync(path.join(mnt, 'f'), 'x')],
  ['appendFileSync', () => fs.appendFileSync(path.join(mnt, 'f'), 'x')],
  ['openSync w', () => fs.openSync(path.join(mnt, 'f'), 'w')],
  ['statSync, relative', () => fs.statSync(path.relative('.', mnt) + '/x')],
];

runEachInACallback([
  () => {
    const before = cure.getThreadpoolStats();
    assertInterrupted('statSync', () => fs.statSync(mnt), T);
    const after = cure.getThreadpoolStats();
    assert.strictEqual(after.hopped, before.hopped + 1);
    assert.strictEqual(after.timedOut, before.timedOut + 1);
    assert.strictEqual(after.abandoned, before.abandoned + 1);
    assert.strictEqual(after.abandonedLive, 1);
  },
  () => {
    // The mount is stuck: every call fails at once, with no new thread.
    const before = cure.getThreadpoolStats();
    for (const [label, fn] of onTheMount) {
      assert.throws(fn, { code: 'ETIMEDOUT' }, label);
    }
    assert.strictEqual(fs.existsSync(mnt), false);
    for (let i = 0; i < 100; i++)
      assert.throws(() => fs.statSync(mnt), { code: 'ETIMEDOUT' });
    const after = cure.getThreadpoolStats();
    assert.strictEqual(after.hopped, before.hopped);
    assert.strictEqual(after.abandoned, before.abandoned);
    assert.strictEqual(after.abandonedLive, 1);
  },
  () => {
    // Beside the mount, calls run in place as before.
    const before = cure.getThreadpoolStats();
    const parent = path.dirname(mnt);
    assert.ok(fs.statSync(parent).isDirectory());
    assert.deepStrictEqual(fs.readdirSync(parent), [path.basename(mnt)]);
    assert.strictEqual(cure.getThreadpoolStats().hopped, before.hopped);
  },
  () => {
    // The daemon goes away: the stuck call returns and its thread ends;
    // the mount point is an empty directory again.
    mount.release();
    awaitNoAbandonedThread(common.mustCall(() => {
      assert.ok(fs.statSync(mnt).isDirectory());
      assert.deepStrictEqual(fs.readdirSync(mnt), []);
    }));
  },
]);
