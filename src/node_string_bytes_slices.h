#ifndef SRC_NODE_STRING_BYTES_SLICES_H_
#define SRC_NODE_STRING_BYTES_SLICES_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <algorithm>
#include <cstddef>

#include "node.h"
#include "node_event_loop_timeout.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"
#include "v8.h"

namespace node {

class Environment;

// nodecure: buf.toString('hex'), 'base64' and 'base64url', and a
// StringDecoder's write() in those encodings, in slices that
// --event-loop-timeout can stop between.
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
// The other encodings stay one call: latin1, ascii and ucs2 are a copy,
// and utf8 goes through simdutf or V8; all at memory speed, at most a V8
// string's maximum length (2^29 - 24 characters: about 0.2 s here). The
// opposite direction (Buffer.from(string, encoding), buf.write()) is one
// call too: StringBytes::Write() also serves fs and stream writes, which
// must not act on half a decoded string.
//
// Only the JS-facing callers use this (the Buffer binding's slices, the
// StringDecoder); node::Encode(), which addons call and which CHECKs its
// result, stays StringBytes::Encode(). With no budget, for a callback that
// has none, for another encoding or for input of one slice or less it is
// StringBytes::Encode(), as upstream. Loop thread only (the sections are).
constexpr size_t kEncodeSliceBytes = 3 << 16;  // 192 KiB

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

// StringBytes::Encode(isolate, buf, buflen, encoding), in slices for hex,
// base64 and base64url (string_bytes.cc). Empty when it threw.
v8::MaybeLocal<v8::Value> EncodeInSlices(v8::Isolate* isolate,
                                         const char* api,
                                         const char* buf,
                                         size_t buflen,
                                         enum encoding encoding);

}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_STRING_BYTES_SLICES_H_
