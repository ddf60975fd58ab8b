'use strict';
// The Buffers of a readv abandoned past its budget stay its own until it
// returns, whatever JS does with them after the TimeoutError: here the
// caller empties its Array of Buffers and transfers their ArrayBuffers away
// (structuredClone() with a transfer list), the clones become garbage, GC
// runs and fresh Buffers of the same size are allocated (they would take
// the memory if it had been freed). Only then does data arrive for the
// abandoned read. The fresh Buffers must be untouched.
require('../common');
const assert = require('assert');
const cure = require('../common/cure');

const kSize = 64 * 1024;

cure.runWithAbandonedFifoRead(__filename, async (fifo) => {
  const buffers = [Buffer.alloc(kSize), Buffer.alloc(kSize)];
  const fh = await cure.abandonFifoRead(fifo, (fh) => fh.readv(buffers));
  // Detached, and garbage once the clones are.
  const stores = buffers.map((b) => b.buffer);
  buffers.length = 0;
  structuredClone(stores, { transfer: stores });
  assert.strictEqual(stores[0].byteLength, 0);
  stores.length = 0;
  await cure.checkLateReadLandsInItsBuffers(fh, kSize, 2);
});
