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
  TypedArrayPrototypeSubarray,
  Uint8Array,
} = primordials;

const { isDataView } = require('internal/util/types');
const { setImmediate } = require('timers');
const { callbackState } = require('internal/cure/callbacks');
const { TimeoutError } = require('internal/cure/errors');

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

function isTimeout(err) {
  return err instanceof TimeoutError && err.code === 'ERR_EVENT_LOOP_TIMEOUT';
}

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

// The writes of a TLS socket under --event-loop-timeout.
//
// TLSWrap encrypts a write's data in the call that hands it over
// (SSL_write() into its buffer; the records go out later), after encoding
// a string to UTF-8, all in the callback that writes: 16 MiB took ~40 ms
// with AES-256-CBC and HMAC-SHA384, a suite that a TLS 1.2 client may
// choose, and a body of 16 Mi two-byte characters ~65 ms (140 and 190 ms
// here with the machine busy), which res.end() of a request's size reaches
// with nothing asking for the budget.
//
// With a callback budget on the thread (callbackState.enabled), a write
// of a TLS socket of more than kWriteTurnBytes (a string: of more than
// kWriteTurnChars characters) goes to the handle about kWriteTurnBytes a
// turn of the loop: the first piece in the call, the others in immediates
// of their own, so that other callbacks run between them. Its callback
// comes once the last piece is written, as the handle's would for the
// whole; the stream holds later writes back until then, so nothing is
// reordered, and an error of a piece ends the write with it (no piece
// after it is written). A string is cut between characters (never inside
// a surrogate pair) and encoded a piece at a time, for the encodings whose
// bytes are the concatenation of their pieces' (utf8, latin1, ascii,
// utf16le); another (hex, base64) is decoded whole, as upstream's
// handleWriteReq() does. The stream's bytesWritten counts a piece once it
// went to the handle.
//
// Each piece is handed over as stream_base_commons' writeGeneric() does,
// with no JavaScript call between the handle's writeBuffer() and the
// record that it went (a check there could take a TimeoutError): a piece
// is written once, never skipped. A TimeoutError in the first call
// (Node's own code holds one back 10 ms, so it comes here only when the
// callback is already that far past its budget) leaves the rest scheduled
// and goes on to the caller; in an immediate, whose budget is its own and
// where no application code runs before the write's callback, it leaves
// the rest to the next immediate.
//
// Without a budget, for a socket other than TLS, or for a write of up to
// kWriteTurnBytes, the write goes to the handle as upstream's code hands
// it.

const kWriteTurnBytes = 1 << 20;
// A UTF-16 code unit is at most 3 bytes of UTF-8 (a pair, 4 bytes for 2).
const kWriteTurnChars = (kWriteTurnBytes / 3) | 0;

let writeDeps;
function lazyWriteDeps() {
  if (writeDeps === undefined) {
    const { WriteWrap, kLastWriteWasAsync, kBytesWritten, streamBaseState } =
      internalBinding('stream_wrap');
    const { kAfterAsyncWrite, kUpdateTimer } =
      require('internal/stream_base_commons');
    const { Buffer } = require('buffer');
    const {
      ErrnoException,
      codes: { ERR_SOCKET_CLOSED },
    } = require('internal/errors');
    writeDeps = {
      Buffer, ERR_SOCKET_CLOSED, ErrnoException, WriteWrap, kAfterAsyncWrite,
      kBytesWritten, kLastWriteWasAsync, kUpdateTimer, streamBaseState,
    };
  }
  return writeDeps;
}

function isPieceEncoding(encoding) {
  switch (encoding) {
    case 'utf8': case 'utf-8': case 'latin1': case 'binary': case 'ascii':
    case 'ucs2': case 'ucs-2': case 'utf16le': case 'utf-16le':
      return true;
    default:
      return false;
  }
}

// At least the chunk's bytes (a string's, in any encoding: at most 3 a
// code unit).
function chunkWeight(chunk) {
  return typeof chunk === 'string' ?
    chunk.length * 3 : TypedArrayPrototypeGetByteLength(chunk);
}

// Skips the entries written in full; true if a piece is left.
function hasPieceLeft(write) {
  const entries = write.entries;
  while (write.index < entries.length) {
    const chunk = entries[write.index][0];
    const length = typeof chunk === 'string' ?
      chunk.length : TypedArrayPrototypeGetByteLength(chunk);
    if (write.offset < length) return true;
    entries[write.index] = null;  // Written: let it go.
    write.index++;
    write.offset = 0;
  }
  return false;
}

// The next piece (hasPieceLeft() said there is one), its end kept in
// write.nextOffset until it went to the handle.
function nextPiece(write) {
  const entry = write.entries[write.index];
  let chunk = entry[0];
  const encoding = entry[1];
  if (typeof chunk === 'string' && !isPieceEncoding(encoding)) {
    chunk = entry[0] = lazyWriteDeps().Buffer.from(chunk, encoding);
    entry[1] = 'buffer';
  }
  const start = write.offset;
  if (typeof chunk === 'string') {
    let end = start + kWriteTurnChars;
    if (end >= chunk.length) {
      end = chunk.length;
    } else if (isHighSurrogate(StringPrototypeCharCodeAt(chunk, end - 1))) {
      end--;  // Keep the pair (or the lone high surrogate) together.
    }
    write.nextOffset = end;
    return lazyWriteDeps().Buffer.from(StringPrototypeSlice(chunk, start, end),
                                       encoding);
  }
  const length = TypedArrayPrototypeGetByteLength(chunk);
  const end = length - start > kWriteTurnBytes ? start + kWriteTurnBytes :
    length;
  write.nextOffset = end;
  return start === 0 && end === length ?
    chunk : TypedArrayPrototypeSubarray(chunk, start, end);
}

function endWrite(write, err) {
  write.ended = true;
  write.cb(err);
}

// A piece's WriteWrap completed (oncomplete, `this` the WriteWrap), as
// stream_base_commons' onWriteComplete() does for a whole write; the next
// pieces go now.
function onPieceComplete(status) {
  const write = this.write;
  const socket = this.socket;
  write.pending = false;
  if (write.ended) return;
  if (status < 0) {
    endWrite(write, new (lazyWriteDeps().ErrnoException)(status, 'write',
                                                         this.error));
    return;
  }
  if (!socket.destroyed) {
    const { kAfterAsyncWrite, kUpdateTimer } = lazyWriteDeps();
    socket[kUpdateTimer]();
    socket[kAfterAsyncWrite](this);
  }
  writeNextTurn(socket, write);
}

// Hands pieces to the socket's handle, up to kWriteTurnBytes a turn. The
// handle takes one write at a time (TLSWrap::DoWrite() checks that none is
// in progress): a piece that did not complete in the call ends the turn,
// and its completion starts the next one. Then the next turn is
// scheduled, or the write ends once all went.
function writeTurn(socket, write) {
  write.scheduled = false;
  if (write.ended || write.pending) return;
  const handle = socket._handle;
  if (!handle) {
    endWrite(write, new (lazyWriteDeps().ERR_SOCKET_CLOSED)());
    return;
  }
  const {
    WriteWrap, kBytesWritten, kLastWriteWasAsync, streamBaseState,
  } = lazyWriteDeps();
  let turn = 0;
  while (hasPieceLeft(write)) {
    if (turn >= kWriteTurnBytes) {
      write.scheduled = true;
      setImmediate(writeNextTurn, socket, write);
      return;
    }
    const piece = nextPiece(write);
    const pieceLength = piece.length;
    const req = new WriteWrap();
    req.handle = handle;
    req.oncomplete = onPieceComplete;
    req.async = false;
    req.bytes = 0;
    req.buffer = null;
    req.write = write;
    req.socket = socket;
    // From the write to the record of how it went, no call (a TimeoutError
    // could come at one).
    const err = handle.writeBuffer(req, piece);
    write.offset = write.nextOffset;
    turn += pieceLength;
    if (err !== 0) {
      write.ended = true;
      write.cb(new (lazyWriteDeps().ErrnoException)(err, 'write', req.error));
      return;
    }
    if (streamBaseState[kLastWriteWasAsync]) {
      write.pending = true;
      req.async = true;
      req.bytes = streamBaseState[kBytesWritten];
      req.buffer = piece;
      socket[write.queueSizeKey] = req.bytes;
      return;
    }
  }
  endWrite(write, null);
}

function writeNextTurn(socket, write) {
  try {
    writeTurn(socket, write);
  } catch (err) {
    // The immediate's own TimeoutError in Node's code: the rest goes on in
    // the next. What the write's callback throws (the application's code
    // runs there) goes on as from any callback.
    if (!isTimeout(err) || write.ended) throw err;
    if (!write.scheduled && !write.pending) {
      write.scheduled = true;
      setImmediate(writeNextTurn, socket, write);
    }
  }
}

// net.Socket's _writeGeneric() (after its checks; `writev` and `data` as
// it gets them): true if the write went in turns, false if the caller
// writes it as upstream does. queueSizeKey is the socket's
// kLastWriteQueueSize.
function writeInTurns(socket, writev, data, encoding, cb, queueSizeKey) {
  if (!callbackState.enabled || socket.encrypted !== true) return false;
  let entries;
  if (writev) {
    let weight = 0;
    for (let i = 0; i < data.length; i++) weight += chunkWeight(data[i].chunk);
    if (weight <= kWriteTurnBytes) return false;
    entries = [];
    for (let i = 0; i < data.length; i++) {
      ArrayPrototypePush(entries, [data[i].chunk,
                                   data.allBuffers ? 'buffer' :
                                     data[i].encoding]);
    }
  } else {
    if (chunkWeight(data) <= kWriteTurnBytes) return false;
    entries = [[data, encoding]];
  }
  const write = {
    entries, index: 0, offset: 0, nextOffset: 0, cb, queueSizeKey,
    pending: false, ended: false, scheduled: false,
  };
  try {
    writeTurn(socket, write);
  } catch (err) {
    // Past the callback's budget in here: the rest waits for the next
    // turn, and the TimeoutError goes on to the caller.
    if (isTimeout(err) && !write.ended && !write.scheduled &&
        !write.pending) {
      write.scheduled = true;
      setImmediate(writeNextTurn, socket, write);
    }
    throw err;
  }
  return true;
}

module.exports = {
  crc32InPieces,
  deferClose,
  deferEnd,
  readChunk,
  writeInTurns,
};
