// Flags: --event-loop-timeout=1000
'use strict';
// crypto.createDiffieHellman(primeLength) searches for a safe prime. On the
// main thread, inside a callback with a budget, the search runs on the
// Priority Executor while the loop waits, so that a stop ends the wait at
// once; before, the TimeoutError came only when the search returned
// (minutes at 8192 bits). The counters tell it from a stop in place: the
// abandoned search is a priority task past its budget and an abandoned
// thread, which ends on its own (abandonedLive goes back to 0). A short
// search gives parameters as good as without a budget; in a Worker the
// search stays in place and stops there. The check of a prime the caller
// gives (createDiffieHellman(prime) reads verifyError) runs on a copy on the
// executor too, and gives what it gives without the option.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const cure = require('node:cure');
const { spawnSync } = require('child_process');
const {
  assertLeftOnAnExecutor,
  assertStopsInPlaceInAWorker,
  runEachInACallback,
} = require('../common/cure');

const T = 1000;  // Room for the short search on a loaded machine.

// The errors of sizes and generators that are refused, as one string.
const refusals = `JSON.stringify([[1], [512, 1], [256], [2 ** 31 - 1]].map(
  (args) => {
    try {
      require('crypto').createDiffieHellman(...args);
      return 'made';
    } catch (err) {
      return [err.code, err.message];
    }
  }))`;

// Two parties agree on a secret over parameters made with a budget, and the
// parameters pass OpenSSL's check, as those made without one do.
function assertUsable(dh, bits) {
  assert.strictEqual(dh.getPrime().length, bits / 8);
  assert.deepStrictEqual([...dh.getGenerator()], [2]);
  assert.strictEqual(dh.verifyError, 0);
  const peer = crypto.createDiffieHellman(dh.getPrime(), dh.getGenerator());
  const a = dh.generateKeys();
  const b = peer.generateKeys();
  assert.deepStrictEqual(dh.computeSecret(b), peer.computeSecret(a));
}

function bytes(bigint) {
  const hex = bigint.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}
const mersenne4423 = bytes(2n ** 4423n - 1n);
// Primes to check: a safe prime (made here, so that it is no named group,
// which would be checked in place), a prime that is not safe, a composite.
// The main module's first evaluation has no budget: the reference run.
const primes = [
  crypto.generatePrimeSync(512, { safe: true, bigint: true }),
  2n ** 521n - 1n,
  2n ** 521n + 1n,
].map((p) => bytes(p).toString('hex'));
// And named groups, whose check tests nothing.
const verifyErrors = `JSON.stringify(${JSON.stringify(primes)}.map((hex) =>
  require('crypto').createDiffieHellman(Buffer.from(hex, 'hex'), 2)
    .verifyError).concat(['modp14', 'modp18'].map((name) =>
  require('crypto').getDiffieHellman(name).verifyError)))`;
const verifyErrorsWithout = spawnSync(process.execPath, ['-p', verifyErrors],
                                      { encoding: 'utf8' }).stdout.trim();
assert.match(verifyErrorsWithout, /^\[0,\d+,\d+,0,0\]$/);

runEachInACallback([
  () => assertLeftOnAnExecutor('createDiffieHellman(8192)', () => {
    crypto.createDiffieHellman(8192);
  }, T),
  // The check of a prime the caller gives: primality tests of the Mersenne
  // prime 2^4423 - 1 (seconds), on a copy, left on the executor.
  () => assertLeftOnAnExecutor('createDiffieHellman(prime)', () => {
    crypto.createDiffieHellman(mersenne4423, 2);
  }, T),
  () => {
    // Checks within the budget, on the executor: verifyError as without the
    // option (the safe prime passes; the others do not).
    const before = cure.getThreadpoolStats();
    assert.strictEqual(eval(verifyErrors), verifyErrorsWithout);
    assert.strictEqual(cure.getThreadpoolStats().timedOut, before.timedOut);
  },
  () => {
    // A short search on the executor: its parameters. Under a budget of its
    // own, a generous one: a search for a safe prime takes a random time,
    // and the searches left above still run (a CI rehearsal beside a
    // helper took over 1000 ms).
    const before = cure.getThreadpoolStats();
    cure.runWithEventLoopTimeout(60_000, () => {
      assertUsable(crypto.createDiffieHellman(512), 512);
      assertUsable(crypto.createDiffieHellman(512, 2), 512);
    });
    assert.strictEqual(cure.getThreadpoolStats().timedOut, before.timedOut);
    // Refused as without the option: before any search, and by OpenSSL
    // (below its smallest modulus, 512 bits, or above its largest).
    const withoutOption = spawnSync(process.execPath, ['-p', refusals], {
      encoding: 'utf8',
    });
    assert.strictEqual(withoutOption.status, 0, withoutOption.stderr);
    assert.strictEqual(eval(refusals), withoutOption.stdout.trim());
    assert.match(withoutOption.stdout, /Invalid DH parameters/);
  },
  // In a Worker, the search stops in place.
  () => assertStopsInPlaceInAWorker('crypto.createDiffieHellman(8192)'),
]);
