// Flags: --event-loop-timeout=1000
'use strict';
// generatePrimeSync() and checkPrimeSync() on the main thread search on the
// Priority Executor while the loop waits, so that a stop ends the wait at
// once instead of at OpenSSL's next callback (one candidate or Miller-Rabin
// round of a prime of thousands of bits). The counters tell it from a stop
// in place: the abandoned search is a priority task past its budget and an
// abandoned thread, which ends on its own (abandonedLive goes back to 0).
// Short searches return what they return without a budget; in a Worker the
// search stays in place (its Environment may stop it too).
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const {
  assertLeftOnAnExecutor,
  assertStopsInPlaceInAWorker,
  runEachInACallback,
} = require('../common/cure');

const T = 1000;  // Room for the short searches on a loaded machine.

runEachInACallback([
  () => assertLeftOnAnExecutor('generatePrimeSync', () => {
    crypto.generatePrimeSync(8192, { safe: true });
  }, T),
  () => assertLeftOnAnExecutor('checkPrimeSync', () => {
    // A Mersenne prime of 4423 bits, tested 100,000 times over.
    crypto.checkPrimeSync(2n ** 4423n - 1n, { checks: 1e5 });
  }, T),
  () => {
    // Short searches on the executor: their results.
    const p = crypto.generatePrimeSync(256, { bigint: true });
    assert.strictEqual(p >> 255n, 1n);  // 256 bits
    assert.ok(crypto.checkPrimeSync(p));
    const q = crypto.generatePrimeSync(128, {
      bigint: true, add: 12n, rem: 11n,
    });
    assert.strictEqual(q % 12n, 11n);
    assert.ok(crypto.checkPrimeSync(q, { checks: 20 }));
    assert.strictEqual(crypto.checkPrimeSync(2n ** 4423n - 3n), false);
    assert.strictEqual(crypto.checkPrimeSync(2n ** 127n - 1n), true);
    // Refused before any search, as without a budget.
    assert.throws(() => crypto.generatePrimeSync(8, { add: 2n ** 9n }),
                  { code: 'ERR_OUT_OF_RANGE' });
  },
  // In a Worker, the search stops in place.
  () => assertStopsInPlaceInAWorker(
    'crypto.generatePrimeSync(8192, { safe: true })'),
]);
