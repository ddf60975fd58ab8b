#ifndef SRC_NODE_I18N_SLICES_H_
#define SRC_NODE_I18N_SLICES_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <cstddef>

#include "node_event_loop_timeout.h"
#include "unicode/ucnv.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "uv/timeout.h"

namespace node {

class Environment;

namespace i18n {

// nodecure: TextDecoder's decode() in a legacy encoding (Shift_JIS, GBK,
// Big5, EUC-KR, windows-1252, ...), in slices that --event-loop-timeout can
// stop between.
//
// The `icu` binding's decode() gave ICU's converter the whole input in one
// ucnv_toUnicode() call, at a converter's speed: 128 MiB of random bytes
// took 1.2 s as Shift_JIS, 1.5 s as Big5 on ./node-baseline, with nothing
// asking for the budget (a request body in a legacy encoding). A converter
// takes its input in pieces by design (it keeps a character split between
// two calls in its state), so the input of more than kDecodeSliceBytes goes
// to it one slice at a time, in a section that a timeout of the running
// callback stops (StoppableSyncCall), each slice but the last without
// flushing and the last with the caller's flush: the output is that of one
// call. Between slices it asks uv_threadpool_should_stop(); a stopped
// decode throws the TimeoutError and its caller resets the converter, as a
// flush does. With no budget, for a callback that has none, or for input of
// one slice or less, it is one call, as upstream. Loop thread only.
constexpr size_t kDecodeSliceBytes = 1 << 20;  // 1 MiB

// ucnv_toUnicode(conv, target, target_limit, source, source_limit, nullptr,
// flush, status), in slices (above). Returns false when stopped: the
// TimeoutError is then thrown.
inline bool ToUnicodeInSlices(Environment* env,
                              UConverter* conv,
                              UChar** target,
                              const UChar* target_limit,
                              const char** source,
                              const char* source_limit,
                              UBool flush,
                              UErrorCode* status) {
  auto one_call = [&]() {
    ucnv_toUnicode(conv,
                   target,
                   target_limit,
                   source,
                   source_limit,
                   nullptr,
                   flush,
                   status);
    return true;
  };
  if (static_cast<size_t>(source_limit - *source) <= kDecodeSliceBytes) {
    return one_call();
  }
  StoppableSyncCall call;
  if (!call.entered()) return one_call();
  for (;;) {
    const bool last =
        static_cast<size_t>(source_limit - *source) <= kDecodeSliceBytes;
    const char* slice_limit = last ? source_limit : *source + kDecodeSliceBytes;
    ucnv_toUnicode(conv,
                   target,
                   target_limit,
                   source,
                   slice_limit,
                   nullptr,
                   last ? flush : false,
                   status);
    if (last || U_FAILURE(*status)) break;
    if (uv_threadpool_should_stop() &&
        call.ThrowIfStopped(env, "textDecoder.decode")) {
      return false;
    }
  }
  if (call.Leave()) uv_sync_stop_take();  // Complete: V8 throws next.
  return true;
}

}  // namespace i18n
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_I18N_SLICES_H_
