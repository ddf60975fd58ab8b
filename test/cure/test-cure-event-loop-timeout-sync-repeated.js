// Flags: --event-loop-timeout=20
'use strict';
// A hundred synchronous calls in a row stopped by the budget (a read of a
// FIFO, a pbkdf2, a child) leave the process as they found it: no thread, no
// file descriptor and no memory is left behind by a stop, since nothing is
// abandoned (each call returns on the loop thread).
const common = require('../common');
if (common.isWindows || !common.hasCrypto) common.skip('POSIX, crypto');
const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const { execFileSync, spawnSync } = require('child_process');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');

const ROUNDS = 100;

function threads() {
  return Number(/Threads:\s+(\d+)/.exec(
    fs.readFileSync('/proc/self/status', 'utf8'))[1]);
}
function fds() {
  return fs.readdirSync('/proc/self/fd').length;
}

const calls = [
  () => fs.readFileSync(fifo),
  () => crypto.pbkdf2Sync('pw', 'salt', 1e9, 64, 'sha512'),
  () => execFileSync('sleep', ['20']),
];

let before;
let stopped = 0;

function round(i) {
  if (i === ROUNDS) {
    setImmediate(common.mustCall(() => {
      const after = { threads: threads(), fds: fds(),
                      rss: process.memoryUsage.rss() };
      console.log(before, after);
      assert.strictEqual(stopped, ROUNDS * calls.length);
      assert.ok(after.threads <= before.threads, `threads: ${after.threads}`);
      assert.ok(after.fds <= before.fds, `fds: ${after.fds}`);
      assert.ok(after.rss < before.rss + 64 * 2 ** 20, `rss: ${after.rss}`);
    }));
    return;
  }
  (function call(j) {
    if (j === calls.length) return round(i + 1);
    setImmediate(() => {
      try {
        calls[j]();
      } catch (err) {
        assert.ok(err instanceof TimeoutError, err);
        stopped++;
      }
      call(j + 1);
    });
  })(0);
}

setImmediate(common.mustCall(() => {
  // One round first, so that what a first call creates for good (a thread
  // of the watchdog, the signal's handler) is counted in `before`.
  try { fs.readFileSync(fifo); } catch { /* stopped */ }
  before = { threads: threads(), fds: fds(), rss: process.memoryUsage.rss() };
  round(0);
}));
