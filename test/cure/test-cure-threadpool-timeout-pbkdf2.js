// Flags: --threadpool-timeout=100
'use strict';
// crypto.pbkdf2() with the largest iteration count gets a TimeoutError after
// its budget (callback and promise), its thread is abandoned, and the pool
// still serves a small pbkdf2() right after. The abandoned derivations stop
// between iterations: their threads end (abandonedLive goes back to 0)
// instead of hashing for hours.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const { promisify } = require('util');
const cure = require('node:cure');
const { assertThreadpoolTimeout } = require('../common/cure');

const pbkdf2 = promisify(crypto.pbkdf2);
const huge = 2 ** 31 - 1;

const assertTimeout = (err) => assertThreadpoolTimeout(err, 'PBKDF2Job');

crypto.pbkdf2('secret', 'salt', huge, 64, 'sha512',
              common.mustCall((err, key) => {
                assertTimeout(err);
                assert.strictEqual(key, undefined);
                next().then(common.mustCall());
              }));

async function next() {
  await assert.rejects(pbkdf2('secret', 'salt', huge, 64, 'sha512'),
                       assertTimeout);
  const key = await pbkdf2('secret', 'salt', 1, 32, 'sha256');
  assert.strictEqual(key.length, 32);
  const stats = cure.getThreadpoolStats();
  assert.ok(stats.timedOut >= 2, `timedOut: ${stats.timedOut}`);
  assert.ok(stats.abandoned >= 2, `abandoned: ${stats.abandoned}`);
  assert.ok(cure.getTimeoutCounts().threadpool >= 2);
  // There is no event for a thread's end: poll the counters.
  while (cure.getThreadpoolStats().abandonedLive !== 0)
    await new Promise((resolve) => setTimeout(resolve, 10));
}
