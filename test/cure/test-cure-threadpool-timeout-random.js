// Flags: --threadpool-timeout=100
'use strict';
// crypto.randomBytes() and randomFill() of 2 GiB take seconds. Each gets a
// TimeoutError after its budget, and because the work fills the buffer in
// 1 MiB chunks and checks between them whether it was abandoned, its thread
// stops soon after (abandonedLive goes back to 0) instead of running on.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const cure = require('node:cure');
const { assertThreadpoolTimeout } = require('../common/cure');

const huge = 2 ** 31 - 1;

const assertTimeout = (err) =>
  assertThreadpoolTimeout(err, 'RandomBytesJob');

crypto.randomBytes(huge, common.mustCall((err, buf) => {
  assertTimeout(err);
  assert.strictEqual(buf, undefined);
  const target = Buffer.alloc(2 ** 30);
  crypto.randomFill(target, common.mustCall((err) => {
    assertTimeout(err);
    // A small request is served right away.
    crypto.randomBytes(16, common.mustSucceed((small) => {
      assert.strictEqual(small.length, 16);
      waitForThreadsToEnd(() => {
        // The abandoned fill stopped early: filling 1 GiB takes far longer
        // than its 100 ms budget, so its last MiB was never written.
        const tail = target.subarray(target.length - 2 ** 20);
        assert.ok(tail.every((b) => b === 0));
      });
    }));
  }));
}));

// There is no event for a thread's end: poll the counters.
function waitForThreadsToEnd(then) {
  const stats = cure.getThreadpoolStats();
  assert.strictEqual(stats.abandoned, 2);
  if (stats.abandonedLive === 0) return then();
  setTimeout(waitForThreadsToEnd, 10, then);
}
