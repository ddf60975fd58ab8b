'use strict';

// nodecure: a TLS socket's long write goes to its handle in turns of the
// loop under --event-loop-timeout (doc/contributing/timeout-audit.md,
// `tls_wrap`; doc/api/cure.md).
//
// TLSWrap encrypts all of a write's data in the call that hands it over
// (SSL_write() into its buffer; the records go out later), after encoding a
// string: res.end() of a 16 MiB body took ~40 ms with AES-256-CBC and
// HMAC-SHA384, a suite that a TLS 1.2 client may choose from the default
// list, and a body of 16 Mi two-byte characters ~65 ms (140 and 190 ms with
// the machine busy), in one native call that nothing stops.
//
// With a callback budget on the thread (callbackState.enabled), a write of
// more than kTurnBytes to a TLS socket goes to the handle about kTurnBytes
// a turn: the first turn in the call, each later one in an immediate of its
// own (a callback with a budget of its own), started once the turn before
// it completed. TLSWrap takes one write at a time (DoWrite() checks that
// none is in progress) and completes each asynchronously, so a turn is one
// handle.writev() of the next chunks and pieces of chunks. The write's
// callback comes once, after its last turn completed, as the handle's
// would for the whole; the stream holds later writes back until then, so
// nothing is reordered. A string is cut between characters (never inside
// a surrogate pair) where its encoding's bytes are those of its pieces
// (utf8, utf16le, latin1, ascii); one in another encoding (hex, base64) is
// decoded whole first, as upstream's handleWriteReq() does.
//
// Each turn moves the write's position only after the handle took the
// batch, with no call of ours from handle.writev() to that record (V8
// throws a TimeoutError only at a call or a loop's back edge), so a batch
// is written once and never skipped. (TLSWrap runs onTurnComplete() inside
// writev() when the connection's write fails at once; that ends the
// write, and nothing is handed over after it.) A TimeoutError anywhere
// else in a turn leaves the rest of the write to an immediate, and is not
// thrown on: in the call, through the stream's own code (an uncork()'s
// clearBuffer() would be left half done), it is as if the callback had
// caught it, the next one coming a budget later; in Node's own callbacks
// (an immediate, a turn's completion) it would be thrown into code that
// did not run long. It was published when it was made. Another exception
// ends the write with it. A turn after the socket was destroyed ends the
// write with ERR_SOCKET_CLOSED; a failed turn with the handle's error, as
// upstream.
//
// One window is left, as in upstream's onWriteComplete(): a TimeoutError
// at the very entry of writeNextTurn() or onTurnComplete(), if their
// callback ran past its budget (and Node's 10 ms of grace) before it got
// there (a long GC pause, a preemption), escapes before the write records
// anything, and the write waits for ever.
//
// What an application sees otherwise: a Buffer changed after write()
// returned changes the turns not yet handed over (as a plain TCP socket's
// write that libuv sends later; upstream's TLS encrypted all of it in the
// call); socket.bytesWritten counts a turn once it went to the handle;
// each turn's completion refreshes the socket's idle timer.
//
// Without a budget, for a socket other than TLS, or for a write of up to
// kTurnBytes, net.Socket writes as upstream.

const {
  ArrayPrototypePush,
  MathFloor,
  MathMax,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  Symbol,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeSubarray,
} = primordials;

const { Buffer } = require('buffer');
const { setImmediate } = require('timers');
const {
  ErrnoException,
  codes: { ERR_SOCKET_CLOSED },
} = require('internal/errors');
const {
  kAfterAsyncWrite,
  kUpdateTimer,
} = require('internal/stream_base_commons');
const { normalizeEncoding } = require('internal/util');
const { callbackState } = require('internal/cure/callbacks');
const { isEventLoopTimeout } = require('internal/cure/errors');
const { isHighSurrogate } = require('internal/cure/pieces');

function isLowSurrogate(code) {
  return code >= 0xDC00 && code <= 0xDFFF;
}
const {
  WriteWrap,
  kBytesWritten,
  kLastWriteWasAsync,
  streamBaseState,
} = internalBinding('stream_wrap');

// A turn: about 3 to 10 ms of encoding and encryption here.
const kTurnBytes = 1 << 20;

// write.failure when the socket was gone at a turn.
const kClosed = Symbol('kClosed');

// The most bytes a UTF-16 code unit of a string takes in `encoding`, for
// the encodings whose bytes are the concatenation of their pieces'; 0 for
// the others (hex, base64, base64url).
function unitBytes(encoding) {
  switch (normalizeEncoding(encoding)) {
    case 'utf8': return 3;
    case 'utf16le': return 2;
    case 'latin1': case 'ascii': return 1;
    default: return 0;
  }
}

// At least the chunk's bytes, about (hex and base64 strings: at most).
function chunkWeight(chunk, encoding) {
  if (typeof chunk !== 'string') return TypedArrayPrototypeGetByteLength(chunk);
  return chunk.length * MathMax(1, unitBytes(encoding));
}

// The next turn's chunks as handle.writev() takes them ([chunk, encoding,
// ...]), about kTurnBytes; where it ends is kept in write.nextIndex and
// write.nextOffset until the handle took them. Changes nothing else but a
// chunk decoded whole (the same bytes).
function nextBatch(write) {
  const chunks = [];
  let room = kTurnBytes;
  let index = write.index;
  let offset = write.offset;
  while (index < write.chunks.length) {
    let chunk = write.chunks[index];
    const encoding = write.encodings[index];
    let unit = 1;
    if (typeof chunk === 'string') {
      unit = unitBytes(encoding);
      if (unit === 0) {
        chunk = write.chunks[index] = Buffer.from(chunk, encoding);
        unit = 1;
      }
    }
    const length = typeof chunk === 'string' ?
      chunk.length : TypedArrayPrototypeGetByteLength(chunk);
    // A full turn takes the empty chunks after it too: a turn of empty
    // chunks only would be TLSWrap's empty write.
    if (room <= 0 && length > offset) break;
    let end = length;
    if ((length - offset) * unit > room) {
      end = offset + MathMax(1, MathFloor(room / unit));
      if (typeof chunk === 'string' &&
          isHighSurrogate(StringPrototypeCharCodeAt(chunk, end - 1))) {
        // Never between the halves of a pair (a lone high surrogate is
        // U+FFFD wherever it is cut).
        if (end - 1 > offset) {
          end--;
        } else if (isLowSurrogate(StringPrototypeCharCodeAt(chunk, end))) {
          end++;
        }
      }
    }
    let piece = chunk;
    if (offset !== 0 || end !== length) {
      piece = typeof chunk === 'string' ?
        StringPrototypeSlice(chunk, offset, end) :
        TypedArrayPrototypeSubarray(chunk, offset, end);
    }
    ArrayPrototypePush(chunks, piece,
                       typeof chunk === 'string' ? encoding : 'buffer');
    room -= (end - offset) * unit;
    if (end < length) {
      offset = end;
      break;
    }
    index++;
    offset = 0;
  }
  write.nextIndex = index;
  write.nextOffset = offset;
  return chunks;
}

function schedule(write) {
  if (write.scheduled) return;
  setImmediate(writeNextTurn, write);
  // Only now: a TimeoutError in setImmediate() leaves it unset, and the
  // caller's catch schedules again (a second turn finds the first pending
  // or done, and returns).
  write.scheduled = true;
}

// Ends the write with write.failure, built first: a TimeoutError while it
// is built leaves the write to a turn, which builds it again.
function fail(write) {
  const failure = write.failure;
  const err = failure === kClosed ?
    new ERR_SOCKET_CLOSED() :
    new ErrnoException(failure, 'write', write.failedReq.error);
  write.ended = true;
  write.cb(err);
}

// A turn completed (synchronously, or in onTurnComplete()): the next one,
// or the end.
function afterTurn(write) {
  if (write.index < write.chunks.length) {
    schedule(write);
    return;
  }
  write.ended = true;
  write.cb(null);
}

// Hands the next batch to the socket's handle, unless one is in flight.
function writeTurn(write) {
  if (write.ended) return;
  if (write.failure !== undefined) {
    fail(write);
    return;
  }
  if (write.pending) return;
  const socket = write.socket;
  const handle = socket._handle;
  if (socket.destroyed || !handle) {
    write.failure = kClosed;
    fail(write);
    return;
  }
  const chunks = nextBatch(write);
  const req = new WriteWrap();
  req.handle = handle;
  req.oncomplete = onTurnComplete;
  req.async = false;
  req.bytes = 0;
  req.buffer = null;
  req.write = write;
  // From the handle's call to the record of it, no call: see above.
  const err = handle.writev(req, chunks, false);
  write.index = write.nextIndex;
  write.offset = write.nextOffset;
  if (err !== 0) {
    write.failedReq = req;
    write.failure = err;
    fail(write);
    return;
  }
  req._chunks = chunks;  // As upstream's writevGeneric().
  if (streamBaseState[kLastWriteWasAsync]) {
    write.pending = true;
    req.async = true;
    req.bytes = streamBaseState[kBytesWritten];
    socket[write.queueSizeKey] = req.bytes;
    return;
  }
  afterTurn(write);
}

// An immediate of its own: the next turn.
function writeNextTurn(write) {
  // First: a TimeoutError anywhere below must find it unset to schedule.
  write.scheduled = false;
  try {
    writeTurn(write);
  } catch (err) {
    if (write.ended) throw err;
    if (isEventLoopTimeout(err)) {
      schedule(write);
      return;
    }
    write.ended = true;
    write.cb(err);
  }
}

// A turn's WriteWrap completed (`this`), as upstream's onWriteComplete()
// for a whole write.
function onTurnComplete(status) {
  const write = this.write;
  write.pending = false;
  try {
    if (write.ended) return;
    if (status < 0) {
      write.failedReq = this;
      write.failure = status;
      fail(write);
      return;
    }
    const socket = write.socket;
    if (!socket.destroyed) {
      socket[kUpdateTimer]();
      socket[kAfterAsyncWrite](this);
    }
    afterTurn(write);
  } catch (err) {
    if (write.ended || !isEventLoopTimeout(err)) throw err;
    schedule(write);
  }
}

// net.Socket's _writeGeneric(), after its checks, with its arguments and
// its kLastWriteQueueSize: true if the write goes in turns, false if the
// caller writes it as upstream does.
function writeInTurns(socket, writev, data, encoding, cb, queueSizeKey) {
  if (!callbackState.enabled || socket.encrypted !== true) return false;
  let weight = 0;
  if (writev) {
    for (let i = 0; i < data.length && weight <= kTurnBytes; i++) {
      weight += chunkWeight(data[i].chunk,
                            data.allBuffers ? 'buffer' : data[i].encoding);
    }
  } else {
    weight = chunkWeight(data, encoding);
  }
  if (weight <= kTurnBytes) return false;
  const chunks = [];
  const encodings = [];
  if (writev) {
    for (let i = 0; i < data.length; i++) {
      ArrayPrototypePush(chunks, data[i].chunk);
      ArrayPrototypePush(encodings,
                         data.allBuffers ? 'buffer' : data[i].encoding);
    }
  } else {
    ArrayPrototypePush(chunks, data);
    ArrayPrototypePush(encodings, encoding);
  }
  const write = {
    socket, chunks, encodings, cb, queueSizeKey,
    index: 0, offset: 0, nextIndex: 0, nextOffset: 0,
    pending: false, scheduled: false, ended: false,
    failure: undefined, failedReq: null,
  };
  try {
    writeTurn(write);
  } catch (err) {
    if (write.ended) throw err;
    if (!isEventLoopTimeout(err)) {
      write.ended = true;  // As upstream's path, where this would throw.
      throw err;
    }
    // This callback ran past its budget in here: the write goes on in
    // turns, and the error is not thrown through the stream's code (an
    // uncork()'s clearBuffer() would be left half done), as if the
    // callback had caught it; the next comes a budget later.
    schedule(write);
  }
  return true;
}

module.exports = {
  writeInTurns,
};
