// Flags: --threadpool-timeout=100
'use strict';
// crypto.scrypt() with parameters that take seconds gets a TimeoutError
// after its budget (callback and promise), and the abandoned derivations
// stop between steps of ROMix: their threads end (abandonedLive goes back
// to 0) instead of running to the end. A small scrypt() is served after.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const { promisify } = require('util');
const cure = require('node:cure');
const { assertThreadpoolTimeout } = require('../common/cure');

const scrypt = promisify(crypto.scrypt);
const assertTimeout = (err) => assertThreadpoolTimeout(err, 'ScryptJob');
// 16 MiB of memory, 64 passes of ROMix over it: seconds of work.
const slow = { N: 2 ** 14, r: 8, p: 64 };

crypto.scrypt('secret', 'salt', 64, slow, common.mustCall((err, key) => {
  assertTimeout(err);
  assert.strictEqual(key, undefined);
  next().then(common.mustCall());
}));

async function next() {
  await assert.rejects(scrypt('secret', 'salt', 64, slow), assertTimeout);
  const key = await scrypt('secret', 'salt', 32, { N: 16 });
  assert.strictEqual(key.length, 32);
  assert.ok(cure.getThreadpoolStats().abandoned >= 2);
  // There is no event for a thread's end: poll the counters.
  while (cure.getThreadpoolStats().abandonedLive !== 0)
    await new Promise((resolve) => setTimeout(resolve, 10));
}
