// Flags: --event-loop-timeout=60000
'use strict';
// Stress of the synchronous native calls that work in slices and are
// stopped between them (src/node_string_bytes_slices.h,
// src/node_buffer_search.h, src/node_zlib_slices.h, src/crypto/crypto_slices.h):
// calls with budgets of 1 to 8 ms (runWithEventLoopTimeout()) stop them
// at arbitrary slices, on the main thread and in two workers at once. Each
// call must either return what it returns without a budget or throw the
// TimeoutError: no other error, no crash (make test-asan runs this under
// AddressSanitizer), and nothing left behind by a stopped call (a section
// still entered, a stop not taken) that would change a later result.
require('../common');
const crypto = require('crypto');
const zlib = require('zlib');
const { StringDecoder } = require('string_decoder');
const { runStressOnThreads } = require('../common/cure');

const MiB = 2 ** 20;
// Bytes from a fixed seed (xorshift32), made once per thread.
function bytes(length) {
  const out = Buffer.alloc(length);
  let x = 11;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = (x & 3) === 0 ? x >>> 24 : 0x61 + (x & 7);
  }
  return out;
}
const data = bytes(32 * MiB);
const digest = (s) => crypto.createHash('sha256').update(s).digest('hex');

// [name, sizes, operation]: each result is a string.
const operations = [
  ['hex', [1000, MiB, 32 * MiB],
   (n) => digest(data.toString('hex', 3, n))],
  ['base64', [1000, MiB + 1, 32 * MiB],
   (n) => digest(data.subarray(0, n).toString('base64'))],
  ['decoder', [1000, 2 * MiB, 32 * MiB], (n) => {
    const decoder = new StringDecoder('base64url');
    return digest(decoder.write(data.subarray(0, n - 1)) + decoder.end());
  }],
  ['indexOf', [1000, 4 * MiB, 32 * MiB], (n) => {
    const hay = data.subarray(0, n);
    return [hay.indexOf('xyz'), hay.lastIndexOf(data.subarray(5, 8)),
            hay.indexOf('qq', 0, 'latin1')].join();
  }],
  ['deflate', [1000, MiB, 8 * MiB], (n) => digest(zlib.deflateSync(
    data.subarray(0, n), { level: 9, chunkSize: 16 * MiB }))],
  ['inflate', [1000, MiB, 8 * MiB], (n) => digest(zlib.inflateSync(
    zlib.deflateSync(data.subarray(0, n), { level: 1 }),
    { chunkSize: 16 * MiB }))],
  ['hash', [1000, 2 * MiB, 32 * MiB],
   (n) => crypto.createHash('sha512').update(data.subarray(0, n))
     .digest('base64')],
];

runStressOnThreads(__filename, operations, 100);
