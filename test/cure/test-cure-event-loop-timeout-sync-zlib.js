// Flags: --event-loop-timeout=100
'use strict';
// zlib's synchronous calls obey the callback's budget: inflateSync(),
// gunzipSync() and brotliDecompressSync() of a bomb process it in chunks
// from a JS loop, where the callback's TimeoutError is thrown.
const common = require('../common');
const assert = require('assert');
const zlib = require('zlib');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 100;

// Built while the main module runs (not bounded): 512 MiB of zeros.
const zeros = Buffer.alloc(512 << 20);
const deflated = zlib.deflateSync(zeros, { level: 1 });
const gzipped = zlib.gzipSync(zeros, { level: 1 });
const brotli = zlib.brotliCompressSync(zeros, {
  params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 },
});
const small = zlib.deflateSync('hello');

const cases = [
  () => assertInterrupted('inflateSync', () => zlib.inflateSync(deflated), T),
  () => assertInterrupted('gunzipSync', () => zlib.gunzipSync(gzipped), T),
  () => assertInterrupted('brotliDecompressSync',
                          () => zlib.brotliDecompressSync(brotli), T),
  () => assert.strictEqual(String(zlib.inflateSync(small)), 'hello'),
];

runEachInACallback(cases);
