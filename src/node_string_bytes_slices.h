#ifndef SRC_NODE_STRING_BYTES_SLICES_H_
#define SRC_NODE_STRING_BYTES_SLICES_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "env.h"
#include "node.h"
#include "node_errors.h"
#include "node_event_loop_timeout.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"
#include "v8.h"

namespace node {

class Environment;

// nodecure: buf.toString('hex'), 'base64', 'base64url' and 'utf8', a
// StringDecoder's write() in those encodings, and TextDecoder's decode(),
// in slices that --event-loop-timeout can stop between.
//
// Each encoded the whole buffer in one call (nbytes::HexEncode(),
// simdutf::binary_to_base64()) with nothing asking for the budget: on
// ./node-baseline, 1.3 s for 256 MiB as base64 and 0.5 s for 200 MiB as hex,
// most of it writing the fresh output's pages. EncodeInSlices() encodes more
// than one slice (kEncodeSliceBytes of input, a multiple of 3 for base64, so
// that each slice ends on a whole group and only the last one pads) in a
// section that a timeout of the running callback stops
// (StoppableSyncCall), asking uv_threadpool_should_stop() between slices.
// A stopped encoding frees its output unseen and throws the callback's
// TimeoutError; nothing else was changed, so there is nothing to undo. A
// slice is about 1 ms of base64 natively.
//
// The slices write the bytes of one call: hex is two characters per byte,
// and base64 of input split at multiples of 3 bytes is the concatenation of
// the parts' base64.
//
// UTF-8 (buf.toString(), a StringDecoder's write(), and TextDecoder's
// decode() when not fatal) is decoded in slices of about 1 MiB
// (kDecodeUtf8SliceBytes): valid input goes through simdutf at memory
// speed, but invalid input through V8's decoder, about 14 ms a MiB here
// (225 ms for 16 MiB). Each slice ends before a byte that starts a
// sequence, so the decoder's replacement of an incomplete one is the same,
// and the slices' strings are joined (a cons string, flattened by V8 when
// it needs to). A fatal TextDecoder validates first and stays one call.
//
// The other encodings stay one call: latin1, ascii and ucs2 are a copy at
// memory speed, at most a V8 string's maximum length (2^29 - 24
// characters: about 0.2 s here). The opposite direction
// (Buffer.from(string, encoding), buf.write()) is one call too: StringBytes::Write() also serves fs and stream writes, which
// must not act on half a decoded string.
//
// Only the JS-facing callers use this (the Buffer binding's slices, the
// StringDecoder, TextDecoder); node::Encode(), which addons call and which CHECKs its
// result, stays StringBytes::Encode(). With no budget, for a callback that
// has none, for another encoding or for input of one slice or less it is
// StringBytes::Encode(), as upstream. Loop thread only (the sections are).
constexpr size_t kEncodeSliceBytes = 3 << 16;  // 192 KiB
constexpr size_t kDecodeUtf8SliceBytes = 1 << 20;  // 1 MiB

// Runs fn(offset, count) over [0, total) in slices of `slice` (count is
// `slice` for every slice but the last). Returns true when all ran; false
// when stopped between slices: then the TimeoutError is thrown (`api`
// names the call in its message) and the caller discards its output.
template <typename Fn>
bool RunInSlices(Environment* env,
                 const char* api,
                 size_t total,
                 size_t slice,
                 Fn&& fn) {
  if (total <= slice) {
    fn(size_t{0}, total);
    return true;
  }
  StoppableSyncCall call;
  if (!call.entered()) {
    fn(size_t{0}, total);
    return true;
  }
  for (size_t offset = 0; offset < total; offset += slice) {
    if (offset != 0 && uv_threadpool_should_stop() &&
        call.ThrowIfStopped(env, api)) {
      return false;
    }
    fn(offset, std::min(slice, total - offset));
  }
  if (call.Leave()) uv_sync_stop_take();  // Complete: V8 throws next.
  return true;
}

// The end of the UTF-8 slice that starts at `at`: about
// kDecodeUtf8SliceBytes on, before a byte that is not a continuation byte
// (10xxxxxx), or, where the four bytes up to the target all are, at the
// target: they cannot all belong to one sequence, so the target's is an
// orphan. A sequence left incomplete at a slice's end would be followed by
// such a byte in the whole input: the decoder replaces it with one U+FFFD
// in both cases, so the slices decode to the string of one call.
inline size_t Utf8SliceEnd(const char* buf, size_t at, size_t buflen) {
  const size_t target = at + kDecodeUtf8SliceBytes;
  if (target >= buflen) return buflen;
  for (size_t p = target; p > target - 4; p--) {
    if ((static_cast<uint8_t>(buf[p]) & 0xC0) != 0x80) return p;
  }
  return target;
}

// UTF-8 of more than one slice, decoded slice by slice with
// decode(part, length) (the caller's own decoding of a whole buffer, which
// throws on failure) in a section that a timeout of the running callback
// stops; the slices' strings are joined. With no budget, one
// decode(buf, buflen). Empty when it threw.
template <typename Decode>
v8::MaybeLocal<v8::Value> DecodeUtf8InSlices(Environment* env,
                                             const char* api,
                                             const char* buf,
                                             size_t buflen,
                                             Decode&& decode) {
  StoppableSyncCall call;
  if (!call.entered()) return decode(buf, buflen);
  v8::Isolate* isolate = env->isolate();
  v8::Local<v8::String> result = v8::String::Empty(isolate);
  for (size_t at = 0; at < buflen;) {
    if (at != 0 && uv_threadpool_should_stop() &&
        call.ThrowIfStopped(env, api)) {
      return v8::MaybeLocal<v8::Value>();
    }
    const size_t end = Utf8SliceEnd(buf, at, buflen);
    v8::Local<v8::Value> part;
    if (!decode(buf + at, end - at).ToLocal(&part)) {
      return v8::MaybeLocal<v8::Value>();
    }
    if (static_cast<size_t>(result->Length()) +
            static_cast<size_t>(part.As<v8::String>()->Length()) >
        static_cast<size_t>(v8::String::kMaxLength)) {
      isolate->ThrowException(ERR_STRING_TOO_LONG(isolate));
      return v8::MaybeLocal<v8::Value>();
    }
    result = v8::String::Concat(isolate, result, part.As<v8::String>());
    at = end;
  }
  if (call.Leave()) uv_sync_stop_take();  // Complete: V8 throws next.
  return result;
}

// StringBytes::Encode(isolate, buf, buflen, encoding), in slices for hex,
// base64, base64url and utf8 (string_bytes.cc). Empty when it threw.
v8::MaybeLocal<v8::Value> EncodeInSlices(v8::Isolate* isolate,
                                         const char* api,
                                         const char* buf,
                                         size_t buflen,
                                         enum encoding encoding);

}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_STRING_BYTES_SLICES_H_
