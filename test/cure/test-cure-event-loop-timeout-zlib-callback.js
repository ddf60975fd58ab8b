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

// 1 GiB of zeros, inflated in 16 chunks of 64 MiB: joining them copies
// 1 GiB into fresh memory, far longer than 10 ms anywhere.
const size = 2 ** 30;
const bomb = zlib.gzipSync(Buffer.alloc(size, 0), { level: 1 });

setTimeout(common.mustCall(() => {
  zlib.gunzip(bomb, { chunkSize: 64 * 2 ** 20 }, common.mustCall((err, out) => {
    assert.ok(err instanceof TimeoutError, `${err}`);
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    assert.strictEqual(out, undefined);
    // In a callback of its own (this one goes on after its TimeoutError,
    // and would get another one budget later): a small one still works,
    // and the process lives on.
    setImmediate(common.mustCall(() => {
      zlib.gunzip(zlib.gzipSync('ok'), common.mustSucceed((small) => {
        assert.strictEqual(small.toString(), 'ok');
      }));
    }));
  }));
}), 1);
