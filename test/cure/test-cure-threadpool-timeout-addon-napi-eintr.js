// Flags: --threadpool-timeout=50
'use strict';
// Node-API execute blocked in a system call past --threadpool-timeout is not
// interrupted by the threadpool's signal: addon code written for upstream
// never sees an EINTR it did not ask for. napi_work's readOnce() calls
// read() once without retrying EINTR, as some addons do; its task times out
// (the pool gets a replacement worker), the Hangman signals its thread for a
// while, and only then is a byte written: read() returns that byte.
//
// An execute that lets the signal in (uv_threadpool_set_interruptible(1),
// the opt-in of uv/timeout.h) is interrupted instead: the same read fails
// with EINTR while nothing is written. That also shows that the first case
// would fail if the signal reached it.
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const { spawnSync } = require('child_process');
const { getTimeoutCounts } = require('node:cure');
const tmpdir = require('../common/tmpdir');
const { load } = require('../cure-addons/load');

tmpdir.refresh();
const addon = load('napi_work');

// A FIFO opened O_RDWR: the open does not wait for a writer, a read waits
// for data.
function fifo(name) {
  const file = tmpdir.resolve(name);
  if (spawnSync('mkfifo', [file]).status !== 0) common.skip('no mkfifo');
  return fs.openSync(file, 'r+');
}

// Calls then() once the count of threadpool timeouts went past `count`
// (counted, not timed).
function afterTimeout(count, then) {
  const poll = setInterval(() => {
    if (getTimeoutCounts().threadpool === count) return;
    clearInterval(poll);
    then();
  }, 10);
}

// Real-time signals queued for this user (SigQ): a blocked real-time
// signal is queued once per send, so a thread that holds the signal must
// not be signalled again and again (RLIMIT_SIGPENDING is the user's).
function queuedSignals() {
  const m = fs.readFileSync('/proc/self/status', 'utf8').match(/SigQ:\s+(\d+)/);
  return m ? Number(m[1]) : 0;
}

// 1. The default: held. The byte is written 600 ms after the timeout, while
// the Hangman would signal the thread (at once, then after 1, 2, 4 ... ms,
// at most every 100 ms): it does not, and the read is not interrupted.
const held = fifo('held');
const before = getTimeoutCounts().threadpool;
addon.readOnce(held, false, common.mustCall((status, n, errno) => {
  assert.strictEqual(status, 0);  // napi_ok
  assert.deepStrictEqual({ n, errno }, { n: 1, errno: 0 });
  fs.closeSync(held);

  // 2. The opt-in: interrupted; nothing is ever written to this FIFO.
  const open = fifo('open');
  const count = getTimeoutCounts().threadpool;
  addon.readOnce(open, true, common.mustCall((status, n, errno) => {
    assert.strictEqual(status, 0);
    assert.deepStrictEqual({ n, errno }, { n: -1, errno: os.constants.errno.EINTR });
    assert.strictEqual(getTimeoutCounts().threadpool, count + 1);
    fs.closeSync(open);
  }));
}));
afterTimeout(before, () => {
  const queued = queuedSignals();
  setTimeout(() => {
    assert.ok(queuedSignals() - queued <= 2,
              `${queuedSignals() - queued} signals queued while held`);
    fs.writeSync(held, 'x');
  }, 600);
});
