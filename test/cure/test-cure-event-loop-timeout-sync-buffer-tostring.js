// Flags: --event-loop-timeout=60000
'use strict';
// buf.toString('hex'), 'base64' and 'base64url', and a StringDecoder's
// write() in those encodings, encode in slices of 192 KiB
// (src/node_string_bytes_slices.h) and are stopped between them: each
// encoded the whole buffer in one native call, with nothing asking for the
// budget (on ./node-baseline, 256 MiB as base64 in 0.1 to 1.3 s, as hex in
// 0.25 to 0.5 s). The error's message ("Synchronous buf.toString stopped")
// is made only where a slice loop stops, so it shows the stop came inside
// the call and not from V8 after it returned. Encodings that are not
// stopped give the strings of a run without the option, for lengths around
// the slice boundaries, with offsets, and through a StringDecoder fed in
// pieces.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one: the rest of the callback, whose budget starts
// over after the TimeoutError, must not meet a second one.
require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');
const { StringDecoder } = require('string_decoder');
const { TimeoutError, runWithEventLoopTimeout } = require('node:cure');
const { runEachInACallback } = require('../common/cure');

const T = 20;

// Made while the main module runs (no budget).
const big = Buffer.alloc(256 * 2 ** 20);
for (let i = 0; i < big.length; i += 4093) big[i] = i & 0xff;
// Its hex would be longer than a string can be (2^29 - 24 characters).
const forHex = big.subarray(0, 200 * 2 ** 20);

// The strings of a set of encodings (as digests), with and without the
// option.
const results = `(() => {
  const { createHash } = require('crypto');
  const { StringDecoder } = require('string_decoder');
  const S = 3 * 2 ** 16;  // kEncodeSliceBytes
  const data = Buffer.alloc(5 * S + 7);
  let x = 7;
  for (let i = 0; i < data.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    data[i] = x & 0xff;
  }
  const digest = (s) => createHash('sha256').update(s).digest('hex');
  const out = [];
  const lengths = [0, 1, 2, 3, S - 1, S, S + 1, S + 2, 2 * S + 1,
                   3 * S + 2, 5 * S, data.length];
  for (const enc of ['hex', 'base64', 'base64url', 'latin1', 'utf8']) {
    for (const n of lengths) {
      const s = data.subarray(0, n).toString(enc);
      out.push(enc, n, s.length, digest(s));
      if (enc !== 'utf8') {
        out.push(Buffer.from(s, enc).equals(data.subarray(0, n)));
      }
    }
    // Offsets: a slice then starts in the middle of the buffer.
    for (const [from, to] of [[1, S + 2], [5, data.length - 3],
                              [S, 4 * S + 1]]) {
      const s = data.toString(enc, from, to);
      out.push(enc, from, to, s.length, digest(s));
    }
    // A StringDecoder fed in pieces that split base64's groups.
    const decoder = new StringDecoder(enc);
    let s = '';
    for (const [from, to] of [[0, S + 1], [S + 1, 3 * S + 5],
                              [3 * S + 5, data.length]]) {
      s += decoder.write(data.subarray(from, to));
    }
    s += decoder.end();
    out.push(enc, 'decoder', s.length, digest(s));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = spawnSync(process.execPath, ['-p', results], {
  encoding: 'utf8',
});
assert.strictEqual(withoutOption.status, 0, withoutOption.stderr);

// The TimeoutError must be the slice loop's: V8's own, after the call
// returned, has another message.
function assertStoppedInside(label, api, fn) {
  const start = performance.now();
  assert.throws(() => runWithEventLoopTimeout(T, fn), (err) => {
    assert.ok(err instanceof TimeoutError, `${label}: ${err}`);
    assert.match(err.message, new RegExp(`^Synchronous ${api} stopped`),
                 `${label}: ${err.message}`);
    return true;
  }, `${label}: not interrupted`);
  const elapsed = performance.now() - start;
  assert.ok(elapsed < T + 1000, `${label}: interrupted after ${elapsed} ms`);
  console.log(`${label}: interrupted after ${elapsed.toFixed(1)} ms`);
}

runEachInACallback([
  () => assertStoppedInside('hex', 'buf.toString',
                            () => forHex.toString('hex')),
  () => assertStoppedInside('base64', 'buf.toString',
                            () => big.toString('base64')),
  () => assertStoppedInside('base64url from an offset', 'buf.toString',
                            () => big.toString('base64url', 7)),
  () => assertStoppedInside('StringDecoder base64', 'stringDecoder.write',
                            () => new StringDecoder('base64').write(big)),
  () => assertStoppedInside('StringDecoder hex', 'stringDecoder.write',
                            () => new StringDecoder('hex').write(forHex)),
  () => {
    // A stopped encoding leaves nothing behind: the next ones work.
    assert.strictEqual(big.subarray(0, 4).toString('hex'), '00000000');
    assert.strictEqual(big.subarray(4093, 4094).toString('base64'), '/Q==');
  },
  () => {
    // Within a budget (a generous one: the data is made in JavaScript) the
    // encodings run in slices and give the strings of a run without the
    // option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption.stdout.trim());
  },
]);
