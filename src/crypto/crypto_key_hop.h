#ifndef SRC_CRYPTO_CRYPTO_KEY_HOP_H_
#define SRC_CRYPTO_CRYPTO_KEY_HOP_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "env.h"
#include "node_sync_hop.h"
#include "openssl/err.h"

namespace node {
namespace crypto {

// nodecure: the parse of a private key or a PKCS#12 that may run a KDF, on
// libuv's Priority Executor, where a timeout can leave it.
//
// An encrypted private key (PKCS#8 with PBES2) and a PKCS#12 carry their own
// KDF parameters: PBKDF2's iteration count (up to 2^31 - 1), scrypt's N, a
// PKCS#12's MAC iterations. OpenSSL runs them inside one decoder call with
// nothing to poll, so a key that a user uploads with its passphrase (a
// client certificate, a push-notification key) holds the loop for as long
// as its creator chose. RunKeyParse() runs such a parse through
// RunAbandonableAnySize() (node_sync_hop.h): whenever the running callback
// has a budget, on an executor thread, with copies of the key's bytes and
// of the passphrase, while the loop waits; a stop throws the TimeoutError
// ("Synchronous private key decryption stopped") and leaves the parse to
// end on that thread, which then frees the copies and what it made.
//
// OpenSSL's error queue is per thread: what the parse queued on the
// executor's is taken there (TakeOpenSSLErrors()) and queued again on the
// caller's, by library and reason, so that the error a caller throws from
// the queue (its message and opensslErrorStack) is the one it threw before.
// Without a budget the parse runs in place, and its errors are taken and
// queued again in the same order. Loop thread only (RunKeyParse()).
using OpenSSLErrors = std::vector<unsigned long>;  // NOLINT(runtime/int)

inline OpenSSLErrors TakeOpenSSLErrors() {
  OpenSSLErrors errors;
  while (unsigned long err = ERR_get_error()) {  // NOLINT(runtime/int)
    errors.push_back(err);
  }
  return errors;
}

inline void QueueOpenSSLErrors(const OpenSSLErrors& errors) {
  for (unsigned long err : errors) {  // NOLINT(runtime/int)
    ERR_raise(ERR_GET_LIB(err), ERR_GET_REASON(err));
  }
}

template <typename T>
struct WithOpenSSLErrors {
  T value;
  OpenSSLErrors errors;
};

// fn(inputs...) (each a std::string_view; fn captures nothing by
// reference), as above. nullopt: stopped, the TimeoutError thrown.
template <typename Fn, typename... Views>
auto RunKeyParse(Environment* env, Fn fn, Views... inputs)
    -> std::optional<std::invoke_result_t<Fn&, Views...>> {
  using Value = std::invoke_result_t<Fn&, Views...>;
  auto hopped = RunAbandonableAnySize(
      env,
      "private key decryption",
      [fn = std::move(fn)](Views... in) mutable {
        Value value = fn(in...);
        return WithOpenSSLErrors<Value>{std::move(value), TakeOpenSSLErrors()};
      },
      inputs...);
  if (!hopped) return std::nullopt;
  QueueOpenSSLErrors(hopped->errors);
  return std::optional<Value>(std::move(hopped->value));
}

}  // namespace crypto
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_CRYPTO_CRYPTO_KEY_HOP_H_
