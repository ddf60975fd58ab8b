// Flags: --threadpool-timeout=100
'use strict';
// RSA key generation with a 16384-bit modulus takes minutes. It gets a
// TimeoutError after its budget and, because OpenSSL's progress callback
// polls the abandonment flag, its thread ends soon after instead of running
// on (abandonedLive goes back to 0).
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const cure = require('node:cure');

crypto.generateKeyPair('rsa', { modulusLength: 16384 },
                       common.mustCall((err, publicKey) => {
                         assert.ok(err instanceof TimeoutError);
                         assert.strictEqual(err.code,
                                            'ERR_THREADPOOL_TIMEOUT');
                         assert.strictEqual(publicKey, undefined);
                         waitForThreadEnd();
                       }));

// There is no event for a thread's end: poll the counters.
function waitForThreadEnd() {
  if (cure.getThreadpoolStats().abandonedLive === 0) return;
  setTimeout(waitForThreadEnd, 10);
}
