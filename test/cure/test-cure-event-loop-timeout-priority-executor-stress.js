// Flags: --event-loop-timeout=60000
'use strict';
// Stress of the Priority Executor under the synchronous searches for primes:
// generateKeyPairSync(), generatePrimeSync() and checkPrimeSync() with
// budgets of 1 to 8 ms (runWithEventLoopTimeout()), on the main thread and
// in two workers at once, so that executors are started, reused, abandoned
// and joined concurrently. Each call returns a working key, a prime or the
// right answer, or throws the TimeoutError: no other error, no crash. Once
// all is done, every abandoned search has ended (abandonedLive 0) and no
// thread is left but libuv's watchdog and the idle executors kept for
// reuse.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const { Worker, isMainThread, workerData, parentPort } =
  require('worker_threads');
const cure = require('node:cure');
const { runWithEventLoopTimeout } = cure;
const { callsWithBudgets } = require('../common/cure');

const data = Buffer.from('nodecure');
const prime = 2n ** 521n - 1n;  // A Mersenne prime.

// [name, sizes, operation]: each checks its own result.
const operations = [
  ['rsa', [512, 1024, 2048], (bits) => {
    const { privateKey, publicKey } =
      crypto.generateKeyPairSync('rsa', { modulusLength: bits });
    assert.strictEqual(publicKey.asymmetricKeyDetails.modulusLength, bits);
    const signature = crypto.sign('sha256', data, privateKey);
    assert.ok(crypto.verify('sha256', data, publicKey, signature));
  }],
  ['prime', [64, 256, 1024], (bits) => {
    const p = crypto.generatePrimeSync(bits, { bigint: true });
    assert.strictEqual(p >> BigInt(bits - 1), 1n);
    return p;
  }],
  ['check', [1, 50, 2000], (checks) => {
    assert.strictEqual(crypto.checkPrimeSync(prime, { checks }), true);
    assert.strictEqual(crypto.checkPrimeSync(prime - 2n, { checks }), false);
  }],
];

function stress(seed, iterations) {
  const primes = [];
  const keep = (name, n, result) => {
    if (name === 'prime') primes.push(result);
  };
  const stopped = callsWithBudgets(operations, seed, iterations, keep);
  // The primes found under a budget are primes, asked without one.
  for (const p of primes)
    assert.ok(runWithEventLoopTimeout(0, () => crypto.checkPrimeSync(p)));
  return stopped;
}

function threads() {
  return fs.readdirSync('/proc/self/task').length;
}

// There is no event for a thread's end: poll the counter.
function awaitNoAbandonedThread(then) {
  if (cure.getThreadpoolStats().abandonedLive === 0) return then();
  setTimeout(awaitNoAbandonedThread, 10, then);
}

if (isMainThread) {
  const iterations = 80;
  const before = cure.getThreadpoolStats();
  const threadsBefore = threads();
  let running = 3;
  const done = common.mustCall(() => {
    if (--running > 0) return;
    awaitNoAbandonedThread(common.mustCall(() => {
      const after = cure.getThreadpoolStats();
      console.log(`executors abandoned: ${after.abandoned - before.abandoned}`);
      assert.ok(after.abandoned > before.abandoned);
      // libuv's watchdog (it joins abandoned threads), and at most one idle
      // executor per thread that waited on one at once (three).
      assert.ok(threads() <= threadsBefore + 1 + 3,
                `${threads()} threads, ${threadsBefore} before`);
    }));
  }, 3);
  for (const seed of [2, 3]) {
    const worker = new Worker(__filename, {
      workerData: { seed, iterations },
      execArgv: ['--event-loop-timeout=60000'],
    });
    worker.on('message', common.mustCall((stopped) => {
      console.log(`worker ${seed}: ${stopped} of ${iterations} stopped`);
    }));
    worker.on('error', common.mustNotCall());
    worker.on('exit', common.mustCall((code) => {
      assert.strictEqual(code, 0);
      done();
    }));
  }
  setImmediate(common.mustCall(() => {
    const stopped = stress(1, iterations);
    console.log(`main: ${stopped} of ${iterations} stopped`);
    // The sizes make some calls stop and others finish.
    assert.ok(stopped > 0 && stopped < iterations, `${stopped}`);
    done();
  }));
} else {
  setImmediate(() => {
    parentPort.postMessage(stress(workerData.seed, workerData.iterations));
  });
}
