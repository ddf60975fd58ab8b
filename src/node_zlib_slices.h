#ifndef SRC_NODE_ZLIB_SLICES_H_
#define SRC_NODE_ZLIB_SLICES_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <algorithm>
#include <cstdint>

#include "node_event_loop_timeout.h"
#include "util.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"

namespace node {

class Environment;

namespace zlib {

// nodecure: one writeSync() of a zlib, brotli or zstd stream, in slices that
// --event-loop-timeout can stop between.
//
// zlib's, brotli's and zstd's *Sync() functions and a stream's sync path
// (processChunkSync() in lib/zlib.js) loop in JS, one native call per
// output chunk, and the budget is checked between calls. One call still
// ran as long as its buffers let it: with a large chunkSize an inflate bomb
// filled a GiB in one call, and a brotli encoder at quality 11 (its default)
// compressed a whole input given at once: 4.7 s for 7 MiB here, with nothing
// asking for the budget. A call whose buffer to slice is over one slice
// (below) runs in a section that a timeout of the running callback stops
// (StoppableSyncCall), and asks uv_threadpool_should_stop() before each
// slice: the loop leaves within one slice and throws the TimeoutError.
//
// Which buffer is sliced is the one that keeps the output what one call
// gives (checked byte for byte by test-cure-event-loop-timeout-sync-zlib-
// slices.js against a run without the option):
//
//   kInput   deflate, gzip and deflateRaw at level 1 to 9, and brotli
//            compression at quality 2 to 11: the input, each slice but the
//            last with no flush (Z_NO_FLUSH, BROTLI_OPERATION_PROCESS: both
//            0), the last with the caller's. These encoders emit the same
//            bytes however their input arrives; their output is at most
//            about their input, so a slice of input bounds a call.
//   kOutput  every decoder (inflate, gunzip, unzip, inflateRaw, brotli and
//            zstd decompression) and zstd compression: the output, all of
//            the input each time. Decoders are deterministic; zstd
//            compression emits one frame whatever its output room (its
//            content size is pledged from the whole input, as in one call).
//   kNone    deflate at level 0 (its stored blocks follow the output room
//            and the input's arrival) and brotli at quality 0 and 1 (their
//            one-pass block sizes follow the input given): fast enough not
//            to need slices, and so left as one call.
//
// The slices end where one call would have returned: when the output is
// full, or when a slice with the caller's flush (kInput) or the whole
// output (kOutput) returned with room left, or on an error. The caller
// then sees the input and output left as after one call
// (GetAfterWriteOffsets()).
//
// A stopped call has fed the library only part of its input: the stream is
// unusable from then on (the caller marks it, and a later write throws), as
// a stream stopped on the threadpool is. With no budget, for a callback that
// has none, or for buffers of one slice or less it is one call, as upstream.
// Loop thread only (the sections are).
//
// A slice is 1 MiB (kWriteSlice), about 1 to 100 ms of work, except where
// that took about 0.6 s here: brotli's input at quality 10 and 11, and
// zstd's compressed output (1.7 MiB of text at level 19) are sliced at
// 64 KiB (kSlowWriteSlice).
constexpr uint32_t kWriteSlice = 1 << 20;
constexpr uint32_t kSlowWriteSlice = 64 << 10;

enum class SyncSlices { kNone, kInput, kOutput };

// What a context's sync_slices() gives: which buffer, in slices of what.
struct SlicePlan {
  SyncSlices how;
  uint32_t size = kWriteSlice;
};

enum class SlicedWrite {
  kDone,     // one call's work is done (an error, if any, is in the context)
  kStopped,  // stopped: the TimeoutError is thrown, the stream is partial
};

// Context: ZlibContext, BrotliEncoderContext, ... (src/node_zlib.cc), of
// which it uses SetBuffers(), SetFlush(), DoThreadPoolWork(),
// GetAfterWriteOffsets() and GetErrorInfo().
template <typename Context>
SlicedWrite WriteInSlices(Environment* env,
                          Context* ctx,
                          SlicePlan plan,
                          uint32_t flush,
                          const char* in,
                          uint32_t in_len,
                          char* out,
                          uint32_t out_len) {
  auto one_call = [&]() {
    ctx->SetBuffers(in, in_len, out, out_len);
    ctx->SetFlush(flush);
    ctx->DoThreadPoolWork();
    return SlicedWrite::kDone;
  };
  const SyncSlices how = plan.how;
  const uint32_t slice = plan.size;
  CHECK_GT(slice, 0);
  if (how == SyncSlices::kNone ||
      (how == SyncSlices::kInput ? in_len : out_len) <= slice) {
    return one_call();
  }
  StoppableSyncCall call;
  if (!call.entered()) return one_call();
  for (;;) {
    if (uv_threadpool_should_stop() && call.ThrowIfStopped(env, "zlib")) {
      ctx->SetBuffers(in, in_len, out, out_len);
      return SlicedWrite::kStopped;
    }
    const uint32_t n_in =
        how == SyncSlices::kInput ? std::min(in_len, slice) : in_len;
    const uint32_t n_out =
        how == SyncSlices::kOutput ? std::min(out_len, slice) : out_len;
    const bool last = how == SyncSlices::kInput ? n_in == in_len
                                                : n_out == out_len;
    ctx->SetBuffers(in, n_in, out, n_out);
    ctx->SetFlush(how == SyncSlices::kInput && !last ? 0 : flush);
    ctx->DoThreadPoolWork();
    uint32_t avail_in, avail_out;
    ctx->GetAfterWriteOffsets(&avail_in, &avail_out);
    CHECK_LE(avail_in, n_in);
    CHECK_LE(avail_out, n_out);
    const uint32_t consumed = n_in - avail_in;
    const uint32_t produced = n_out - avail_out;
    in += consumed;
    in_len -= consumed;
    out += produced;
    out_len -= produced;
    // Where one call would have returned. With no flush and room left an
    // encoder has taken its whole slice; if it has not and made no progress
    // at all, it is stuck as one call would be.
    if (ctx->GetErrorInfo().IsError() || out_len == 0 ||
        (avail_out != 0 && (last || how == SyncSlices::kOutput)) ||
        (consumed == 0 && produced == 0)) {
      break;
    }
  }
  // What one call leaves: the input not taken, the output room not used,
  // the caller's flush (which GetErrorInfo() reads).
  ctx->SetBuffers(in, in_len, out, out_len);
  ctx->SetFlush(flush);
  if (call.Leave()) uv_sync_stop_take();  // Complete: V8 throws next.
  return SlicedWrite::kDone;
}

}  // namespace zlib
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_ZLIB_SLICES_H_
