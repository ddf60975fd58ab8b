// Flags: --event-loop-timeout=60000
'use strict';
// cipher.update() of a key wrap mode (AES-KW, AES-KWP) takes its whole
// input in one call, six AES blocks per 8 bytes: 1.5 s for 16 MiB, wrap or
// unwrap. Over 64 KiB, in a callback with a budget, that call runs on the
// Priority Executor (CipherUpdateJob, src/crypto/crypto_slices.h), and the
// budget stops it there: "Synchronous cipher.update stopped", a message
// made only where such a call stops, long before the call would end; the
// cipher is unusable after. Wraps and unwraps that are not stopped give
// what the same calls give in place (the main module has no budget), on
// both sides of 64 KiB, and the unwrap of a corrupted input fails as in
// place.
const common = require('../common');
if (!common.hasCrypto) common.skip('missing crypto');
const assert = require('assert');
const crypto = require('crypto');
const {
  assertSyncCallStopped,
  runEachInACallback,
} = require('../common/cure');

const key = Buffer.from('29c9eab5ed5ad44134a1437fe2e673b4' +
                        'd88a5b7c72e68454fea08721392b7323', 'hex');
const modes = [
  ['id-aes256-wrap', Buffer.from('a6a6a6a6a6a6a6a6', 'hex')],
  ['id-aes256-wrap-pad', Buffer.from('a65959a6', 'hex')],
];
const sizes = [64 * 1024 - 8, 64 * 1024 + 8, 300 * 1024];

function bytes(n) {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + (i >> 8)) & 0xff;
  return b;
}

function run(make, name, iv, input) {
  const c = make(name, key, iv);
  return Buffer.concat([c.update(input), c.final()]);
}
const wrap = (name, iv, input) =>
  run(crypto.createCipheriv, name, iv, input);
const unwrap = (name, iv, input) =>
  run(crypto.createDecipheriv, name, iv, input);
function errorOf(fn) {
  try {
    fn();
  } catch (err) {
    return `${err.code} ${err.message}`;
  }
  assert.fail('did not throw');
}

// In place: the main module's evaluation has no budget.
const inPlace = [];
for (const [name, iv] of modes) {
  for (const size of sizes) {
    const wrapped = wrap(name, iv, bytes(size));
    const corrupt = Buffer.from(wrapped);
    corrupt[corrupt.length >> 1] ^= 1;
    inPlace.push({ name, iv, size, wrapped,
                   error: errorOf(() => unwrap(name, iv, corrupt)), corrupt });
  }
}

const T = 100;
const big = Buffer.alloc(32 * 1024 * 1024, 0x61);

runEachInACallback([
  () => {
    for (const { name, iv, size, wrapped, error, corrupt } of inPlace) {
      const label = `${name} of ${size} bytes`;
      assert.deepStrictEqual(wrap(name, iv, bytes(size)), wrapped, label);
      assert.deepStrictEqual(unwrap(name, iv, wrapped), bytes(size), label);
      assert.strictEqual(errorOf(() => unwrap(name, iv, corrupt)), error,
                         label);
    }
  },
  () => {
    const [name, iv] = modes[0];
    const cipher = crypto.createCipheriv(name, key, iv);
    assertSyncCallStopped('wrap of 32 MiB', 'cipher.update',
                          () => cipher.update(big), T);
    assert.throws(() => cipher.update(bytes(16)),
                  /Trying to add data in unsupported state/);
  },
  () => {
    const [name, iv] = modes[1];
    const decipher = crypto.createDecipheriv(name, key, iv);
    assertSyncCallStopped('unwrap of 32 MiB', 'cipher.update',
                          () => decipher.update(big), T);
    assert.throws(() => decipher.update(bytes(16)),
                  /Trying to add data in unsupported state/);
  },
]);
