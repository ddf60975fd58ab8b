#ifndef SRC_CRYPTO_CRYPTO_SLICES_H_
#define SRC_CRYPTO_CRYPTO_SLICES_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "crypto/crypto_priority_job.h"
#include "ncrypto.h"
#include "node_event_loop_timeout.h"
#include "util.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"
#include "v8.h"

namespace node {

class Environment;

namespace crypto {

// nodecure: a streaming OpenSSL update over the caller's data, fed in slices
// that --event-loop-timeout can stop between.
//
// hash.update(), hmac.update(), sign.update(), verify.update(),
// cipher.update() and crypto.hash() hand all of their data to OpenSSL in one
// call: about 0.2 s for 256 MB of SHA-256 on a 2-core machine, and nothing
// asks for the budget until it returns, so a request-sized input held the
// loop that long past its budget. An update of more than one slice (1 MiB)
// runs in a section that a timeout of the running callback stops
// (StoppableSyncCall), and asks uv_threadpool_should_stop() before each
// slice: the loop leaves within one slice (about 1 ms) and throws the
// callback's TimeoutError. OpenSSL's updates stream, so the slices give the
// result one call gives.
//
// A stopped update has fed OpenSSL only part of its data: the caller
// discards its context, so that the object fails from then on (its later
// updates and its digest, signature or verification throw) and never
// returns a digest of a prefix. An update that ran to its end is kept, even
// if the stop came during its last slice: its TimeoutError is thrown at V8's
// next check, after the call returned, as for any call that completed.
//
// With no budget, for a callback that has none, or for data of one slice or
// less, it is one call, as upstream. Loop thread only (the sections are).
constexpr size_t kUpdateSlice = 1 << 20;

enum class SlicedUpdate {
  kDone,     // update() returned true for every slice
  kFailed,   // update() returned false (OpenSSL's error), no more slices
  kStopped,  // stopped: the TimeoutError is thrown, the context is partial
};

// update(const char* data, size_t len) -> bool, once per slice of `data`.
// `api` names the call in the TimeoutError's message.
template <typename Update>
SlicedUpdate UpdateInSlices(Environment* env,
                            const char* api,
                            const char* data,
                            size_t len,
                            Update&& update) {
  auto result = [](bool ok) {
    return ok ? SlicedUpdate::kDone : SlicedUpdate::kFailed;
  };
  if (len <= kUpdateSlice) return result(update(data, len));
  StoppableSyncCall call;
  if (!call.entered()) return result(update(data, len));
  for (size_t done = 0; done < len;) {
    // Not before a slice once the section ended (an older stop, below):
    // outside a section the flag is never set.
    if (uv_threadpool_should_stop() && call.ThrowIfStopped(env, api)) {
      return SlicedUpdate::kStopped;
    }
    const size_t n = std::min(kUpdateSlice, len - done);
    if (!update(data + done, n)) {
      if (call.Leave()) uv_sync_stop_take();  // V8 throws at its next check.
      return SlicedUpdate::kFailed;
    }
    done += n;
  }
  if (call.Leave()) uv_sync_stop_take();  // Complete: V8 throws next.
  return SlicedUpdate::kDone;
}

// CipherBase::Update()'s EVP_CipherUpdate() into `out` (room for *out_len
// bytes; the length written on return), in slices where the mode streams:
// a stream cipher (ChaCha20, ChaCha20-Poly1305), ECB, CBC, CFB, OFB, CTR,
// GCM and OCB give in slices what they give in one call. The others take
// their whole input at once and stay one call: CCM (its length is set
// beforehand), XTS (each call is one data unit), SIV, GCM-SIV and the key
// wraps. The output of all slices is at most the input plus one block,
// which the caller's buffer holds.
inline bool CipherStreams(const ncrypto::CipherCtxPointer& ctx) {
  switch (ctx.getMode()) {
    case EVP_CIPH_STREAM_CIPHER:
    case EVP_CIPH_ECB_MODE:
    case EVP_CIPH_CBC_MODE:
    case EVP_CIPH_CFB_MODE:
    case EVP_CIPH_OFB_MODE:
    case EVP_CIPH_CTR_MODE:
    case EVP_CIPH_GCM_MODE:
    case EVP_CIPH_OCB_MODE:
      return true;
    default:
      return false;
  }
}

// A mode that takes its whole input at once (CipherStreams() false) is one
// call, and a key wrap's is slow: AES-KW of 16 MiB took 1.5 s on
// ./node-baseline (six AES blocks per 8 bytes), as long for the unwrap. Over
// kParseInPlaceBytes, in a callback whose synchronous calls a timeout would
// stop, that call runs as a PriorityJob (crypto_priority_job.h), which holds
// the cipher's context (moved out of the CipherBase for the call, moved back
// once it returned), a copy of the input and its own output, both wiped
// when it is deleted (a wrapped key is a key). Left at the stop, the job
// keeps them until it returns, and the CipherBase, its context gone, fails
// from then on, as after a stopped slice.
class CipherUpdateJob final : public PriorityJob {
 public:
  CipherUpdateJob(ncrypto::CipherCtxPointer ctx, std::string_view in, int room)
      : ctx_(std::move(ctx)),
        in_(in),
        out_(static_cast<size_t>(room)),
        out_len_(room) {}
  ~CipherUpdateJob() override { OPENSSL_cleanse(out_.data(), out_.size()); }

  bool ok() const { return ok_; }
  ncrypto::CipherCtxPointer TakeContext() { return std::move(ctx_); }
  // The output into `out`, which has room for CipherUpdateJob's `room`
  // bytes; its length.
  int CopyOut(unsigned char* out) const {
    CHECK_GE(out_len_, 0);
    CHECK_LE(static_cast<size_t>(out_len_), out_.size());
    std::copy_n(out_.data(), out_len_, out);
    return out_len_;
  }

 protected:
  void Work() override {
    ok_ = ctx_.update({reinterpret_cast<const unsigned char*>(in_.data()),
                       in_.size()},
                      out_.data(),
                      &out_len_);
  }

 private:
  ncrypto::CipherCtxPointer ctx_;
  InputCopy in_;
  std::vector<unsigned char> out_;
  int out_len_;
  bool ok_ = false;
};

inline SlicedUpdate CipherUpdateOnExecutor(Environment* env,
                                           ncrypto::CipherCtxPointer& ctx,
                                           const char* data,
                                           size_t len,
                                           unsigned char* out,
                                           int* out_len) {
  auto job = RunStoppable(
      env,
      "cipher.update",
      std::make_unique<CipherUpdateJob>(
          std::move(ctx), std::string_view(data, len), *out_len));
  if (!job) return SlicedUpdate::kStopped;  // The context is the job's.
  ctx = job->TakeContext();
  *out_len = job->CopyOut(out);
  return job->ok() ? SlicedUpdate::kDone : SlicedUpdate::kFailed;
}

inline SlicedUpdate CipherUpdateInSlices(Environment* env,
                                         ncrypto::CipherCtxPointer& ctx,
                                         const char* data,
                                         size_t len,
                                         unsigned char* out,
                                         int* out_len) {
  auto update = [&](const char* d, size_t n, unsigned char* o, int* o_len) {
    return ctx.update({reinterpret_cast<const unsigned char*>(d), n}, o, o_len);
  };
  if (len <= kUpdateSlice || !CipherStreams(ctx)) {
    if (len > kParseInPlaceBytes && !CipherStreams(ctx) &&
        EventLoopTimeout::SyncCallsStoppable(env)) {
      return CipherUpdateOnExecutor(env, ctx, data, len, out, out_len);
    }
    return update(data, len, out, out_len) ? SlicedUpdate::kDone
                                            : SlicedUpdate::kFailed;
  }
  const int room = *out_len;
  int written = 0;
  SlicedUpdate result =
      UpdateInSlices(env, "cipher.update", data, len, [&](auto d, auto n) {
        int n_out = room - written;
        if (!update(d, n, out + written, &n_out)) return false;
        CHECK_LE(n_out, room - written);
        written += n_out;
        return true;
      });
  *out_len = written;
  return result;
}

// crypto.hash() (Hash::OneShotDigest()): ncrypto::hashDigest() or
// xofHashDigest() of `in`, with the update in slices. Empty when OpenSSL
// failed, or when stopped: then *stopped is set and the TimeoutError is
// thrown.
inline ncrypto::DataPointer HashDigestInSlices(
    Environment* env,
    const ncrypto::Buffer<const unsigned char>& in,
    const EVP_MD* md,
    bool is_xof,
    size_t output_length,
    bool* stopped) {
  // A long XOF output (a length a request may pass) is squeezed as a
  // PriorityJob (crypto_priority_job.h), from a context made here.
  const bool long_xof = is_xof && output_length > kSqueezeInPlaceBytes;
  if ((in.len <= kUpdateSlice && !long_xof) || md == nullptr) {
    return is_xof ? ncrypto::xofHashDigest(in, md, output_length)
                  : ncrypto::hashDigest(in, md);
  }
  auto ctx = ncrypto::EVPMDCtxPointer::New();
  if (!ctx || !ctx.digestInit(md)) return {};
  if (in.len <= kUpdateSlice) {
    if (!ctx.digestUpdate(ncrypto::Buffer<const void>{in.data, in.len})) {
      return {};
    }
  } else {
    SlicedUpdate r = UpdateInSlices(
        env,
        "crypto.hash",
        reinterpret_cast<const char*>(in.data),
        in.len,
        [&](auto d, auto n) {
          return ctx.digestUpdate(ncrypto::Buffer<const void>{d, n});
        });
    *stopped = r == SlicedUpdate::kStopped;
    if (r != SlicedUpdate::kDone) return {};
  }
  if (long_xof) {
    auto out = SqueezeXOF(env, &ctx, output_length);
    *stopped = !out.has_value();
    return out ? std::move(*out) : ncrypto::DataPointer();
  }
  return ctx.digestFinal(is_xof ? output_length : EVP_MD_size(md));
}

// The message of the error that an object whose update was stopped throws
// from then on (ERR_CRYPTO_INVALID_STATE).
constexpr const char kStoppedUpdateMessage[] =
    "An update of this object was stopped by --event-loop-timeout; "
    "its state is incomplete";

}  // namespace crypto
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_CRYPTO_CRYPTO_SLICES_H_
