// Flags: --event-loop-timeout=10
'use strict';
// zlib's callback APIs (zlib.gunzip(buffer, callback) and the others) join
// the chunks of the output in one go when the stream ends. With a huge
// output that join runs past the budget; its TimeoutError is the request's
// and goes to the callback. Before, it was thrown into the stream's 'end'
// emitter, where nothing could catch it, and the process died of an
// uncaught TimeoutError (found by the EHP suite's demo: four gunzip bombs
// under load).
const common = require('../common');
const assert = require('assert');
const zlib = require('zlib');
const { runWithEventLoopTimeout } = require('node:cure');

// 256 MiB of zeros, inflated in 16 chunks of 16 MiB: joining them copies
// 256 MiB into fresh memory, several times 10 ms anywhere (and the heap
// that a gigabyte left to collect made the next callbacks overrun too).
const size = 2 ** 28;
const bomb = zlib.gzipSync(Buffer.alloc(size, 0), { level: 1 });

setTimeout(common.mustCall(() => {
  zlib.gunzip(bomb, { chunkSize: 16 * 2 ** 20 }, common.mustCall((err, out) => {
    assert.ok(err instanceof TimeoutError, `${err}`);
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    assert.strictEqual(out, undefined);
    // In a callback of its own (this one goes on after its TimeoutError,
    // and would get another one budget later): a small one still works,
    // and the process lives on. With a budget of its own: the first
    // allocations after the gigabyte may wait for a collection of the heap
    // longer than 10 ms (seen on a loaded machine).
    setImmediate(common.mustCall(() => {
      runWithEventLoopTimeout(60_000, () => {
        zlib.gunzip(zlib.gzipSync('ok'), common.mustSucceed((small) => {
          assert.strictEqual(small.toString(), 'ok');
        }));
      });
    }));
  }));
}), 1);
