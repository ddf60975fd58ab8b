'use strict';
// Synchronous path calls on a hang-prone mount run on the Priority Executor
// (a hop) and return what they return in place: stat, lstat, readdir (with
// and without types), readlink, realpath, access, exists, statfs, and an
// open whose fd then reads the file. The child treats the test directory's
// own file system as hang-prone (UV_FS_HANG_PRONE_TYPES), compares each
// call's result with the same call made without a budget (in place), then
// runs a stress of budgets of 1 to 8 ms over them and opens of a FIFO
// without writer, so that hops are abandoned and their mount is stuck until
// the abandoned call is interrupted: each call returns its result, throws the
// TimeoutError, or fails at once with ETIMEDOUT; at the end every abandoned
// thread has ended.
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const tmpdir = require('../common/tmpdir');

if (process.argv[2] !== 'child') {
  if (!common.isLinux) common.skip('Linux only');
  tmpdir.refresh();
  // The type of the file system that holds the test directory.
  let best = { dir: '', type: null };
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')) {
    const fields = line.split(' ');
    const dir = fields[4]?.replace(/\\([0-7]{3})/g,
                                   (m, o) => String.fromCharCode(parseInt(o, 8)));
    const type = fields[fields.indexOf('-') + 1];
    if (dir && (tmpdir.path === dir || tmpdir.path.startsWith(dir + '/') ||
                dir === '/') && dir.length >= best.dir.length) {
      best = { dir, type };
    }
  }
  assert.ok(best.type);
  const { spawnSync } = require('child_process');
  const child = spawnSync(process.execPath, [
    '--event-loop-timeout=60000', __filename, 'child',
  ], {
    env: { ...process.env, UV_FS_HANG_PRONE_TYPES: `nodecure-none,${best.type}` },
    encoding: 'utf8',
  });
  process.stdout.write(child.stdout);
  assert.strictEqual(child.status, 0, `${child.stderr}\nsignal ${child.signal}`);
  return;
}

const cure = require('node:cure');
const { runWithEventLoopTimeout } = cure;
const { lcg } = require('../common/cure');

const dir = tmpdir.path;
const file = path.join(dir, 'f');
fs.writeFileSync(file, 'nodecure '.repeat(1000));
fs.symlinkSync('f', path.join(dir, 'l'));
fs.mkdirSync(path.join(dir, 'd'));
for (const name of ['a', 'b', 'c']) fs.writeFileSync(path.join(dir, 'd', name), name);
fs.mkdirSync(path.join(dir, 'd', 'sub'));
const fifo = path.join(dir, 'fifo');
require('child_process').execFileSync('mkfifo', [fifo]);

// The error a call fails with; a stop's TimeoutError is not that, and goes
// on to the stress below (a budget of 1 to 8 ms can stop the call itself).
function errorOf(fn) {
  try {
    fn();
  } catch (err) {
    if (err instanceof TimeoutError) throw err;
    return { code: err.code, errno: err.errno, syscall: err.syscall,
             path: err.path, message: err.message };
  }
  assert.fail('no error');
}

function statOf(s) {
  return { dev: s.dev, ino: s.ino, mode: s.mode, nlink: s.nlink, uid: s.uid,
           size: s.size, mtimeNs: s.mtimeNs, isFile: s.isFile() };
}

const calls = [
  ['statSync', () => statOf(fs.statSync(file, { bigint: true }))],
  ['lstatSync', () => statOf(fs.lstatSync(path.join(dir, 'l'), { bigint: true }))],
  ['statSync ENOENT', () => errorOf(() => fs.statSync(path.join(dir, 'no')))],
  ['statSync relative', () => statOf(fs.statSync(path.relative('.', file),
                                                 { bigint: true }))],
  ['readdirSync', () => fs.readdirSync(path.join(dir, 'd')).sort()],
  ['readdirSync withFileTypes', () => fs.readdirSync(path.join(dir, 'd'), {
    withFileTypes: true,
  }).map((e) => [e.name, e.isDirectory()]).sort()],
  ['readlinkSync', () => fs.readlinkSync(path.join(dir, 'l'))],
  ['realpathSync.native', () => fs.realpathSync.native(path.join(dir, 'l'))],
  ['accessSync', () => fs.accessSync(file, fs.constants.R_OK)],
  ['accessSync ENOENT', () => errorOf(() => fs.accessSync(path.join(dir, 'no')))],
  ['existsSync', () => [fs.existsSync(file), fs.existsSync(path.join(dir, 'no'))]],
  ['statfsSync', () => {
    const s = fs.statfsSync(dir);
    return [s.type, s.bsize];
  }],
  ['openSync + readSync', () => {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(9);
      fs.readSync(fd, buf, 0, 9, 0);
      return buf.toString();
    } finally {
      fs.closeSync(fd);
    }
  }],
  ['readFileSync', () => fs.readFileSync(file, 'latin1').length],
];

// Only stopped: a FIFO's open without writer waits for ever.
const stressCalls = [
  ...calls,
  ['openSync FIFO', () => fs.openSync(fifo, 'r')],
  ['openSync FIFO', () => fs.openSync(fifo, 'r')],
];

// In a callback: the main script's run has no budget of its own.
setImmediate(common.mustCall(() => {
  // In place (no budget: no stoppable section) and hopped, the same results.
  const expected = new Map();
  const stats0 = cure.getThreadpoolStats();
  for (const [label, fn] of calls) expected.set(label, runWithEventLoopTimeout(0, fn));
  assert.strictEqual(cure.getThreadpoolStats().hopped, stats0.hopped);
  for (const [label, fn] of calls) {
    const before = cure.getThreadpoolStats().hopped;
    assert.deepStrictEqual(runWithEventLoopTimeout(60000, fn), expected.get(label),
                           label);
    assert.ok(cure.getThreadpoolStats().hopped > before, `${label}: no hop`);
  }

  stress(expected, stats0);
}));

// The stress: one call a callback. After a call refused because the mount is
// stuck, the next waits until the abandoned hop has returned.
function stress(expected, stats0) {
  const next = lcg(4242);
  let stopped = 0;
  let refused = 0;
  (function step(i) {
    if (i === 300) {
      const stats = cure.getThreadpoolStats();
      console.log(`hopped ${stats.hopped - stats0.hopped}, stopped ${stopped}, ` +
                  `refused ${refused}, abandoned ${stats.abandoned - stats0.abandoned}`);
      assert.ok(stopped > 0);
      return awaitNoAbandonedThread(common.mustCall());
    }
    const [label, fn] = stressCalls[(next() >> 10) % stressCalls.length];
    const budget = 1 + (next() >> 10) % 8;
    let result;
    try {
      result = runWithEventLoopTimeout(budget, fn);
    } catch (err) {
      if (err instanceof TimeoutError) {
        assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
        stopped += label === 'openSync FIFO';
        return setImmediate(step, i + 1);
      }
      // The mount is stuck while an abandoned hop has not returned.
      assert.strictEqual(err.code, 'ETIMEDOUT', `${label}: ${err}`);
      result = { code: err.code };
    }
    if (result?.code === 'ETIMEDOUT' ||  // errorOf() caught it
        (label === 'existsSync' && !result[0])) {  // false for any error
      refused++;
      return awaitNoAbandonedThread(() => step(i + 1));
    }
    assert.notStrictEqual(label, 'openSync FIFO');
    assert.deepStrictEqual(result, expected.get(label), label);
    setImmediate(step, i + 1);
  })(0);
}

// There is no event for a thread's end: poll the counter.
function awaitNoAbandonedThread(then) {
  if (cure.getThreadpoolStats().abandonedLive === 0) return then();
  setTimeout(awaitNoAbandonedThread, 5, then);
}
