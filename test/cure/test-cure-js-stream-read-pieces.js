// Flags: --expose-internals --event-loop-timeout=60000
'use strict';
// readChunk() (lib/internal/cure/pieces.js), the wrapped stream's 'data'
// listener of a JSStreamSocket under a budget, on a handle that records
// what it gets and throws where told: a TimeoutError from a piece ends the
// call and the rest follows in an immediate, ahead of the chunks that came
// meanwhile and before the end and the close; another exception lets the rest go on and
// is thrown after it, as JSStream's readBuffer() does; without a budget the
// chunk is one call. Every byte arrives once, in order.
const common = require('../common');
const assert = require('assert');
const { readChunk, deferClose, deferEnd } = require('internal/cure/pieces');
const { callbackState } = require('internal/cure/callbacks');

const kPiece = 16 * 1024;
const timeout = () => new TimeoutError('stopped',
                                       { code: 'ERR_EVENT_LOOP_TIMEOUT' });

// A socket whose handle throws a TimeoutError at the calls in `timeoutAt`
// and another error at those in `errorAt` (1-based), after taking the piece.
function socketThatThrows(timeoutAt = [], errorAt = []) {
  const got = [];
  let eofs = 0;
  const socket = {
    _handle: {
      readBuffer(piece) {
        got.push(Buffer.from(piece));
        if (timeoutAt.includes(got.length)) throw timeout();
        if (errorAt.includes(got.length)) throw new Error(`error ${got.length}`);
      },
      emitEOF() { eofs++; },
    },
  };
  return { socket, got, eofs: () => eofs };
}

const a = Buffer.alloc(6 * kPiece + 1000).map((_, i) => i % 251);
const b = Buffer.alloc(3 * kPiece, 7);
const c = Buffer.from('short');
const isTimeout = { code: 'ERR_EVENT_LOOP_TIMEOUT', name: 'TimeoutError' };

assert.strictEqual(callbackState.enabled, true);

// Stopped in the second piece: two calls, then the rest (and b and c, which
// came meanwhile) in immediates, the second of which is stopped too, then
// the end.
const stopped = socketThatThrows([2, 5]);
assert.throws(() => readChunk(stopped.socket, a), isTimeout);
assert.strictEqual(stopped.got.length, 2);
readChunk(stopped.socket, b);
readChunk(stopped.socket, c);
assert.strictEqual(stopped.got.length, 2);
assert.strictEqual(deferEnd(stopped.socket), true);
process.on('uncaughtException', common.mustCall((err) => {
  assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
}));
setImmediate(common.mustCall(() => {
  // The first immediate ran (and threw); the second runs after this one.
  setImmediate(common.mustCall(() => {
    assert.ok(Buffer.concat(stopped.got).equals(Buffer.concat([a, b, c])));
    assert.strictEqual(stopped.got.length, 7 + 3 + 1);
    assert.strictEqual(stopped.eofs(), 1);
  }));
}));

// Stopped in the last piece: nothing waits, the end is not deferred.
const last = socketThatThrows([7]);
assert.throws(() => readChunk(last.socket, a), isTimeout);
assert.ok(Buffer.concat(last.got).equals(a));
assert.strictEqual(deferEnd(last.socket), false);

// Another exception: the rest goes on, then the first is thrown.
const other = socketThatThrows([], [2, 4]);
assert.throws(() => readChunk(other.socket, a), /error 2/);
assert.ok(Buffer.concat(other.got).equals(a));

// Another exception, then a TimeoutError: the call ends there, the first
// exception is thrown, and the rest follows.
const both = socketThatThrows([3], [1]);
assert.throws(() => readChunk(both.socket, a), /error 1/);
assert.strictEqual(both.got.length, 3);
setImmediate(common.mustCall(() => {
  assert.ok(Buffer.concat(both.got).equals(a));
}));

// Destroyed while the rest waits: nothing more is handed over.
const destroyed = socketThatThrows([1]);
assert.throws(() => readChunk(destroyed.socket, a), isTimeout);
destroyed.socket._handle = null;
setImmediate(common.mustCall(() => {
  assert.strictEqual(destroyed.got.length, 1);
}));

// The wrapped stream ended and closed before the rest went over (its
// 'end' and 'close' come in nextTicks, before any immediate): the end, then
// the destroy, after the rest.
const closed = socketThatThrows([1]);
let destroys = 0;
closed.socket.destroy = common.mustCall(() => {
  destroys++;
  assert.ok(Buffer.concat(closed.got).equals(a));
  assert.strictEqual(closed.eofs(), 1);
  closed.socket._handle = null;
});
assert.throws(() => readChunk(closed.socket, a), isTimeout);
assert.strictEqual(deferEnd(closed.socket), true);
assert.strictEqual(deferClose(closed.socket), true);
setImmediate(common.mustCall(() => assert.strictEqual(destroys, 1)));
assert.strictEqual(deferClose(last.socket), false);

// Up to a piece: one call, as upstream.
const small = socketThatThrows();
readChunk(small.socket, Buffer.alloc(kPiece));
assert.strictEqual(small.got.length, 1);

// Without a budget on the thread: one call for the whole chunk.
callbackState.enabled = false;
const off = socketThatThrows();
readChunk(off.socket, a);
assert.strictEqual(off.got.length, 1);
assert.strictEqual(deferEnd(off.socket), false);
callbackState.enabled = true;
