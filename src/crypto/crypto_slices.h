#ifndef SRC_CRYPTO_CRYPTO_SLICES_H_
#define SRC_CRYPTO_CRYPTO_SLICES_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <algorithm>
#include <cstddef>

#include "node_event_loop_timeout.h"
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
// hash.update(), hmac.update(), sign.update() and verify.update() hand all
// of their data to OpenSSL in one call: about 0.3 s for 500 MB of SHA-256 on
// a 2-core machine, and nothing asks for the budget until it returns, so a
// request-sized input held the loop that long past a budget of 100 ms. An
// update of more than one slice (1 MiB) runs in a section that a timeout of
// the running callback stops (StoppableSyncCall), and asks
// uv_threadpool_should_stop() before each slice: the loop leaves within one
// slice (about 1 ms) and throws the callback's TimeoutError. OpenSSL's
// updates stream, so the slices give the result one call gives.
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

// The message of the error that an object whose update was stopped throws
// from then on (ERR_CRYPTO_INVALID_STATE).
constexpr const char kStoppedUpdateMessage[] =
    "An update of this object was stopped by --event-loop-timeout; "
    "its state is incomplete";

}  // namespace crypto
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_CRYPTO_CRYPTO_SLICES_H_
