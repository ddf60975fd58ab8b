// Flags: --event-loop-timeout=10000
'use strict';
// Every thread nodecure starts leaves the synchronous fault signals
// unblocked, so that a fault on it reaches the process's crash handler (a
// blocked SIGSEGV kills the process without it): the TimeoutWatchdog of the
// threadpool, the Priority Executor, and the thread that watches the mount
// table. Each is made to exist, then its signal mask is read from /proc.
const common = require('../common');
if (!common.isLinux) common.skip('reads /proc/self/task');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const { runWithEventLoopTimeout } = require('node:cure');

const faults = ['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGTRAP', 'SIGSYS',
                'SIGABRT'];

setImmediate(common.mustCall(() => {
  // On the main thread, in a callback with a budget: on an executor.
  crypto.generatePrimeSync(64);
  // An executor abandoned: the watchdog, which runs the Hangman.
  assert.throws(() => runWithEventLoopTimeout(50, () => {
    crypto.generatePrimeSync(8192, { safe: true });
  }), { name: 'TimeoutError' });
  awaitAll(new Set());
}));

// A thread names itself once it runs: look again until all three were seen.
function awaitAll(seen) {
  for (const tid of fs.readdirSync('/proc/self/task')) {
    let comm, status;
    try {
      comm = fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      status = fs.readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
    } catch {
      continue;  // ended meanwhile
    }
    if (!['libuv-watchdog', 'libuv-priority', 'libuv-mounts'].includes(comm))
      continue;
    seen.add(comm);
    const blocked = BigInt('0x' + /^SigBlk:\s*([0-9a-f]+)$/m.exec(status)[1]);
    for (const name of faults) {
      const bit = 1n << BigInt(os.constants.signals[name] - 1);
      assert.strictEqual(blocked & bit, 0n, `${comm} blocks ${name}`);
    }
    // And it receives no process-directed signal, e.g. SIGINT.
    const sigint = 1n << BigInt(os.constants.signals.SIGINT - 1);
    assert.strictEqual(blocked & sigint, sigint, `${comm} takes SIGINT`);
  }
  if (seen.size < 3) setTimeout(awaitAll, 10, seen);
}
