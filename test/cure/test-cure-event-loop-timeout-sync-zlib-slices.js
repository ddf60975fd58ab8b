// Flags: --event-loop-timeout=100
'use strict';
// One native call of zlib's synchronous path (writeSync(), from
// processChunkSync() in lib/zlib.js) is stopped between slices
// (src/node_zlib_slices.h), not only the JS loop around the calls: a brotli
// encoder at its default quality (11) given 8 MiB at once (11 s here),
// deflate at level 9 of 64 MiB (2 s) and zstd at level 19 of 8 MiB (11 s)
// with a chunkSize that holds their whole output, and an inflate bomb into a
// 1 GiB chunk (1.4 s) each ran in one call.
// A stream stopped inside a call is unusable afterwards (ERR_INVALID_STATE):
// that it is shows the stop came inside the call, not between calls, which
// leave the stream usable. Calls that are not stopped give the bytes that a
// run without the option gives, for every level, strategy and quality,
// with the default chunkSize (input slices) and one of 4 MiB (output
// slices too).
require('../common');
const assert = require('assert');
const zlib = require('zlib');
const { spawnSync } = require('child_process');
const { runWithEventLoopTimeout } = require('node:cure');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 100;
const C = zlib.constants;

// Made while the main module runs (no budget). Words of 20 letters, from a
// fixed seed (xorshift32), that compress to about 60%: brotli at quality 11
// takes about 1 s a MiB of them here, zstd at level 19 about as long.
function text(length) {
  const out = Buffer.alloc(length);
  let x = 7;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = (x & 7) === 0 ? 0x20 : 0x61 + ((x >>> 8) % 20);
  }
  return out;
}
const words = text(64 << 20);
const bomb = zlib.deflateSync(Buffer.alloc(1 << 30), { level: 1 });

// The bytes of a set of calls, with and without the option.
const results = `(() => {
  const zlib = require('zlib');
  const C = zlib.constants;
  const data = (${text})(3 * 2 ** 20 + 5);
  const small = data.subarray(0, 300 * 1024 + 3);
  const big = { chunkSize: 4 * 2 ** 20 };
  const out = [];
  const add = (packed, unpack, opts) => {
    out.push(packed.length, zlib.crc32(packed));
    const back = unpack(packed, opts);
    out.push(back.length, zlib.crc32(back));
  };
  for (const opts of [{}, big]) {
    for (const level of [0, 1, 6, 9]) {
      for (const strategy of [C.Z_DEFAULT_STRATEGY, C.Z_FILTERED,
                              C.Z_HUFFMAN_ONLY, C.Z_RLE, C.Z_FIXED]) {
        add(zlib.deflateSync(data, { level, strategy, ...opts }),
            zlib.inflateSync, opts);
      }
    }
    add(zlib.gzipSync(data, opts), zlib.gunzipSync, opts);
    add(zlib.gzipSync(data, opts), zlib.unzipSync, opts);
    add(zlib.deflateRawSync(data, opts), zlib.inflateRawSync, opts);
    for (const quality of [0, 1, 2, 5, 9, 10, 11]) {
      const input = quality >= 10 ? small : data;
      add(zlib.brotliCompressSync(input, {
        params: { [C.BROTLI_PARAM_QUALITY]: quality }, ...opts,
      }), zlib.brotliDecompressSync, opts);
    }
    for (const level of [-5, 1, 3, 19]) {
      add(zlib.zstdCompressSync(level === 19 ? small : data, {
        params: { [C.ZSTD_c_compressionLevel]: level }, ...opts,
      }), zlib.zstdDecompressSync, opts);
    }
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = spawnSync(process.execPath, ['-p', results], {
  encoding: 'utf8',
});
assert.strictEqual(withoutOption.status, 0, withoutOption.stderr);

// Stopped inside one call of STREAM's sync path over INPUT.
function stopsInside(label, stream, input) {
  assertInterrupted(label, () => {
    stream._processChunk(input, stream._finishFlushFlag);
  }, T);
  assert.throws(() => stream._processChunk(Buffer.from('x'),
                                           stream._finishFlushFlag), {
    code: 'ERR_INVALID_STATE',
    message: /stopped by --event-loop-timeout/,
  });
  stream.close();
}

const whole = { chunkSize: 1 << 30 };
runEachInACallback([
  () => stopsInside('brotli, quality 11', zlib.createBrotliCompress(),
                    words.subarray(0, 8 << 20)),
  () => stopsInside('deflate, level 9, 1 GiB chunks',
                    zlib.createDeflate({ level: 9, ...whole }), words),
  () => stopsInside('zstd, level 19, 1 GiB chunks',
                    zlib.createZstdCompress({
                      params: { [C.ZSTD_c_compressionLevel]: 19 }, ...whole,
                    }), words.subarray(0, 8 << 20)),
  () => stopsInside('inflate, 1 GiB chunks', zlib.createInflate(whole), bomb),
  // The convenience function has no stream to look at: it throws in time.
  () => assertInterrupted('brotliCompressSync',
                          () => zlib.brotliCompressSync(
                            words.subarray(0, 8 << 20)), T),
  () => {
    // A new stream works.
    assert.strictEqual(
      String(zlib.brotliDecompressSync(zlib.brotliCompressSync('abc'))),
      'abc');
  },
  () => {
    // Within a budget (a generous one: the data is made in JavaScript) the
    // calls run in slices and give the bytes of a run without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption.stdout.trim());
  },
]);
