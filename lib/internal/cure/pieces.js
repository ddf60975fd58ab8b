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
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetBuffer,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  Uint8Array,
} = primordials;

const { isDataView } = require('internal/util/types');

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

module.exports = {
  crc32InPieces,
};
