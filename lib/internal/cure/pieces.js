'use strict';

// nodecure: one-shot native calls that V8 calls through its fast API, which
// cannot throw, fed their input a piece at a time from a JavaScript loop,
// where --event-loop-timeout's TimeoutError is thrown between pieces
// (doc/contributing/timeout-audit.md, kind `chunked`).
//
// zlib.crc32() ran over its whole input in one call: 0.54 s for 1 GiB and
// 4.7 s for a string of 2^29 - 24 characters on ./node-baseline (the string
// is made UTF-8 first), with nothing asking for the budget, and optimized
// code reaches it as a fast call, which cannot throw at all. A CRC-32
// continues from the value of the bytes before it, so the pieces give the
// result of one call: crc32(b, crc32(a, v)) === crc32(a + b, v). A string
// is cut between characters, never inside a surrogate pair (whose UTF-8
// differs from that of its halves), so its pieces' UTF-8 is the string's.
//
// Input of one piece or less is one call, as upstream; a larger one costs
// one call a MiB more, with or without a budget, and gives the same value.

const {
  ArrayPrototypePush,
  ArrayPrototypeShift,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetBuffer,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  Symbol,
  Uint8Array,
} = primordials;

const { isDataView } = require('internal/util/types');
const { setImmediate } = require('timers');
const { callbackState } = require('internal/cure/callbacks');
const { isEventLoopTimeout: isTimeout } = require('internal/cure/errors');

// Bytes (or characters) a piece: about 0.5 ms of CRC-32 here, about 5 ms
// of a string's UTF-8 (four times that under AddressSanitizer).
const kPiece = 1 << 20;

function isHighSurrogate(code) {
  return code >= 0xD800 && code <= 0xDBFF;
}

// crc32Native(data, value) over `data` (a string or an ArrayBufferView)
// in pieces of kPiece.
function crc32InPieces(crc32Native, data, value) {
  if (typeof data === 'string') {
    const length = data.length;
    if (length <= kPiece) return crc32Native(data, value);
    for (let start = 0; start < length;) {
      let end = start + kPiece;
      if (end >= length) {
        end = length;
      } else if (isHighSurrogate(StringPrototypeCharCodeAt(data, end - 1))) {
        end--;  // Keep the pair (or the lone high surrogate) together.
      }
      value = crc32Native(StringPrototypeSlice(data, start, end), value);
      start = end;
    }
    return value;
  }
  let buffer, offset, length;
  if (isDataView(data)) {
    buffer = DataViewPrototypeGetBuffer(data);
    offset = DataViewPrototypeGetByteOffset(data);
    length = DataViewPrototypeGetByteLength(data);
  } else {
    buffer = TypedArrayPrototypeGetBuffer(data);
    offset = TypedArrayPrototypeGetByteOffset(data);
    length = TypedArrayPrototypeGetByteLength(data);
  }
  if (length <= kPiece) return crc32Native(data, value);
  for (let at = 0; at < length; at += kPiece) {
    const size = length - at < kPiece ? length - at : kPiece;
    value = crc32Native(new Uint8Array(buffer, offset + at, size), value);
  }
  return value;
}

// The reads of a JSStreamSocket (TLS or HTTP/2 over a JavaScript
// stream: a WebSocket tunnel, a duplex pair, a proxy's stream) under
// --event-loop-timeout.
//
// JSStream's readBuffer() (src/js_stream.cc) hands one chunk of the wrapped
// stream to its listener in one call. TLS decrypts it a buffer at a time
// and emits each piece of cleartext to JavaScript as it goes; readBuffer()
// catches what that JavaScript throws and rethrows the first exception only
// once the whole chunk went through. A message-based transport hands over a
// whole message of the peer's as one chunk, so a TimeoutError thrown into a
// 'data' listener was caught there, and the rest of the message ran
// through the listeners anyway (a fresh budget after each TimeoutError),
// for as long as the peer's message was long.
//
// With a callback budget on the thread (callbackState.enabled), a chunk of
// more than kPieceBytes goes to readBuffer() a piece at a time. A piece that
// comes back with the TimeoutError ends the call: the pieces after it wait
// in kUnread, ahead of any chunk that comes meanwhile, and an immediate
// hands them over, as a callback of its own (with a budget of its own).
// Nothing is lost or reordered, and the wrapped stream's end and close are
// passed on after them. Another exception goes on as readBuffer() does:
// the rest is handed over, then the first exception is thrown.
//
// Without a budget, or for a chunk of up to kPieceBytes, readBuffer() gets
// the chunk as upstream's code gave it.

// One TLS record's worth of ciphertext, and more than its cleartext.
const kPieceBytes = 16 * 1024;

const kUnread = Symbol('kUnread');      // chunks not yet handed over
const kOffset = Symbol('kOffset');      // how much of the first went over
const kEnded = Symbol('kEnded');        // the wrapped stream ended after them
const kScheduled = Symbol('kScheduled');  // an immediate hands them over
const kClosed = Symbol('kClosed');      // the wrapped stream closed after them

// Hands what waits in kUnread to the socket's handle, a piece at a time,
// then the end if it came. The first chunk's offset moves (or the chunk
// leaves) as soon as a piece went over (readBuffer() returned, or threw:
// the piece went through either way), before any call that could take a
// TimeoutError, so that no piece is handed over twice or skipped. On a
// TimeoutError the rest waits for an immediate and it is thrown.
function handOverUnread(socket) {
  const unread = socket[kUnread];
  let first;
  let failed = false;
  try {
    while (unread.length > 0) {
      if (!socket._handle) {  // destroyed (by a listener)
        unread.length = 0;
        socket[kOffset] = 0;
        break;
      }
      const chunk = unread[0];
      const offset = socket[kOffset];
      if (offset >= chunk.length) {  // went over in full
        ArrayPrototypeShift(unread);
        socket[kOffset] = 0;
        continue;
      }
      const end = offset + kPieceBytes;
      let threw = false;
      let error;
      try {
        socket._handle.readBuffer(chunk.subarray(offset, end));
      } catch (err) {
        threw = true;
        error = err;
      }
      socket[kOffset] = end;
      if (end >= chunk.length) {
        ArrayPrototypeShift(unread);
        socket[kOffset] = 0;
      }
      if (threw) {
        if (isTimeout(error)) throw error;
        if (!failed) {
          failed = true;
          first = error;
        }
      }
    }
  } catch (err) {
    // The TimeoutError: from a piece's listeners, or between pieces.
    if (unread.length > 0 && !socket[kScheduled]) {
      socket[kScheduled] = true;
      setImmediate(fromImmediate, socket);
    }
    throw failed ? first : err;
  }
  if (socket[kEnded] && socket._handle) {
    socket[kEnded] = false;
    socket._handle.emitEOF();
  }
  if (socket[kClosed]) {
    socket[kClosed] = false;
    socket.destroy();
  }
  if (failed) throw first;
}

function fromImmediate(socket) {
  socket[kScheduled] = false;
  handOverUnread(socket);
}

// JSStreamSocket's 'data' listener of the wrapped stream: hands `chunk` to
// `socket._handle` (which the caller checked).
function readChunk(socket, chunk) {
  let unread = socket[kUnread];
  if (unread !== undefined && unread.length > 0) {
    ArrayPrototypePush(unread, chunk);  // after what waits
    return;
  }
  if (!callbackState.enabled || chunk.length <= kPieceBytes) {
    socket._handle.readBuffer(chunk);
    return;
  }
  if (unread === undefined) {
    unread = socket[kUnread] = [];
    socket[kOffset] = 0;
  }
  ArrayPrototypePush(unread, chunk);
  handOverUnread(socket);
}

// The 'end' listener: true if the end must wait for what waits (it is
// then passed on after it), false if the caller passes it on now.
function deferEnd(socket) {
  const unread = socket[kUnread];
  if (unread === undefined || unread.length === 0) return false;
  socket[kEnded] = true;
  return true;
}

// The 'close' listener: true if destroying the socket must wait for what
// waits (it is then destroyed after it, and after the end), false if the
// caller destroys it now. A wrapped stream that closes right after its end
// (its writable side finished first) would otherwise take the socket's
// handle, and the rest with it, before the immediate runs.
function deferClose(socket) {
  const unread = socket[kUnread];
  if (unread === undefined || unread.length === 0) return false;
  socket[kClosed] = true;
  return true;
}

module.exports = {
  crc32InPieces,
  isHighSurrogate,
  deferClose,
  deferEnd,
  readChunk,
};
