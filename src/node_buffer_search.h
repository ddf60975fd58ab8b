#ifndef SRC_NODE_BUFFER_SEARCH_H_
#define SRC_NODE_BUFFER_SEARCH_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <algorithm>
#include <cstddef>
#include <optional>

#include "nbytes.h"
#include "node_event_loop_timeout.h"
#include "util.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"

namespace node {

class Environment;

namespace Buffer {

// nodecure: buf.indexOf(), buf.lastIndexOf() and buf.includes() of a string
// or a buffer, in windows that --event-loop-timeout can stop between.
//
// Each searched the whole buffer in one call of nbytes::SearchString(), with
// nothing asking for the budget: 13 s for 'ab' in 2 GiB of 'a' here, the
// searcher's worst case. A search over more than one window (kSearchWindow
// characters, or the needle's length if that is longer, so that the work
// stays linear) runs in a section that a timeout of the running callback
// stops (StoppableSyncCall), and asks uv_threadpool_should_stop() before
// each window. A window of 256 Ki characters is at most about 2 ms of that
// worst case (0.2 s backward under AddressSanitizer, whose backward search
// is not vectorized).
//
// The windows give the result of one call. Forward, a window covers the
// match positions [lo, lo + w) and the haystack [lo, lo + w + n - 1): the
// first match found there is the first at or after lo, and any match that
// begins in it ends inside it. Backward (lastIndexOf), a window covers the
// positions [lo, hi] and the haystack [lo, hi + n), searched backward from
// hi. Not found is `length`, as for nbytes::SearchString().
//
// With no budget, for a callback that has none, or for a range of one
// window or less it is one call, as upstream. Loop thread only.
constexpr size_t kSearchWindow = 1 << 18;

// Returns what nbytes::SearchString(haystack, length, needle, needle_length,
// start, is_forward) returns, or nothing when stopped: then the TimeoutError
// is thrown (`api` names the call in its message).
template <typename Char>
std::optional<size_t> SearchInWindows(Environment* env,
                                      const char* api,
                                      const Char* haystack,
                                      size_t length,
                                      const Char* needle,
                                      size_t needle_length,
                                      size_t start,
                                      bool is_forward) {
  auto one_call = [&]() {
    return nbytes::SearchString(
        haystack, length, needle, needle_length, start, is_forward);
  };
  if (needle_length == 0 || length < needle_length) return one_call();
  const size_t window = std::max(kSearchWindow, needle_length);
  const size_t last = length - needle_length;  // the last match position
  if (is_forward ? start > last || last - start < window
                 : std::min(start, last) < window) {
    return one_call();
  }
  StoppableSyncCall call;
  if (!call.entered()) return one_call();
  size_t found = length;
  if (is_forward) {
    for (size_t lo = start; lo <= last; lo += window) {
      if (uv_threadpool_should_stop() && call.ThrowIfStopped(env, api))
        return std::nullopt;
      const size_t end = std::min(length, lo + window + needle_length - 1);
      const size_t r = nbytes::SearchString(
          haystack, end, needle, needle_length, lo, true);
      if (r < end) {
        found = r;
        break;
      }
      if (last - lo < window) break;
    }
  } else {
    for (size_t hi = std::min(start, last);;) {
      if (uv_threadpool_should_stop() && call.ThrowIfStopped(env, api))
        return std::nullopt;
      const size_t lo = hi >= window - 1 ? hi - (window - 1) : 0;
      const size_t len = hi + needle_length - lo;
      const size_t r = nbytes::SearchString(
          haystack + lo, len, needle, needle_length, hi - lo, false);
      if (r < len) {
        found = lo + r;
        break;
      }
      if (lo == 0) break;
      hi = lo - 1;
    }
  }
  if (call.Leave()) uv_sync_stop_take();  // Complete: V8 throws next.
  return found;
}

}  // namespace Buffer
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_BUFFER_SEARCH_H_
