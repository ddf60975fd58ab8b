#include "crypto/crypto_pbkdf2_interruptible.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>

#include "node_threadpool_timeout.h"
#include "util.h"
#include "uv/timeout.h"

namespace node {
namespace crypto {

#if OPENSSL_VERSION_MAJOR >= 3
namespace {

// How many iterations run between two checks of the abandonment flag: a
// check is a thread-local load, an iteration two hash compressions (about
// a microsecond with SHA-512), so a stop comes within about a millisecond.
constexpr uint32_t kIterationsPerCheck = 1024;

struct MacDeleter {
  void operator()(EVP_MAC* mac) const { EVP_MAC_free(mac); }
  void operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }
};

}  // namespace
#endif  // OPENSSL_VERSION_MAJOR >= 3

ncrypto::DataPointer InterruptiblePbkdf2(
    const EVP_MD* md,
    const ncrypto::Buffer<const char>& pass,
    const ncrypto::Buffer<const unsigned char>& salt,
    uint32_t iterations,
    size_t length) {
  // With --threadpool-timeout never set, upstream's path; and what
  // ncrypto::pbkdf2() refuses or fails on, it refuses the same way.
  if (!ThreadPoolTimeout::ever_enabled() || md == nullptr || length == 0 ||
      iterations == 0 || pass.len > INT_MAX || salt.len > INT_MAX ||
      length > INT_MAX) {
    return ncrypto::pbkdf2(md, pass, salt, iterations, length);
  }
#if OPENSSL_VERSION_MAJOR >= 3
  ncrypto::ClearErrorOnReturn clear_error_on_return;

  std::unique_ptr<EVP_MAC, MacDeleter> mac(
      EVP_MAC_fetch(nullptr, OSSL_MAC_NAME_HMAC, nullptr));
  if (!mac) return {};
  std::unique_ptr<EVP_MAC_CTX, MacDeleter> ctx(EVP_MAC_CTX_new(mac.get()));
  if (!ctx) return {};
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(
          OSSL_MAC_PARAM_DIGEST, const_cast<char*>(EVP_MD_get0_name(md)), 0),
      OSSL_PARAM_construct_end(),
  };
  // An empty password is a valid HMAC key; EVP_MAC_init() takes NULL for
  // "keep the current key", so give it a non-null pointer.
  static const unsigned char kEmpty = 0;
  const unsigned char* key =
      pass.len == 0 ? &kEmpty
                    : reinterpret_cast<const unsigned char*>(pass.data);
  if (!EVP_MAC_init(ctx.get(), key, pass.len, params)) return {};
  const size_t md_len = EVP_MAC_CTX_get_mac_size(ctx.get());
  if (md_len == 0 || md_len > EVP_MAX_MD_SIZE) return {};

  auto out = ncrypto::DataPointer::Alloc(length);
  if (!out) return {};
  unsigned char* dst = static_cast<unsigned char*>(out.get());
  unsigned char u[EVP_MAX_MD_SIZE];
  unsigned char t[EVP_MAX_MD_SIZE];

  // T_i = U_1 ^ ... ^ U_c, U_1 = PRF(P, S || INT(i)), U_j = PRF(P, U_{j-1}).
  // EVP_MAC_init() without a key restarts the MAC with the same key, as
  // OpenSSL's own PBKDF2 does.
  for (uint32_t block = 1; length > 0; block++) {
    const unsigned char index[4] = {
        static_cast<unsigned char>(block >> 24),
        static_cast<unsigned char>(block >> 16),
        static_cast<unsigned char>(block >> 8),
        static_cast<unsigned char>(block),
    };
    size_t u_len = 0;
    if (!EVP_MAC_init(ctx.get(), nullptr, 0, nullptr) ||
        !EVP_MAC_update(ctx.get(), salt.data, salt.len) ||
        !EVP_MAC_update(ctx.get(), index, sizeof(index)) ||
        !EVP_MAC_final(ctx.get(), u, &u_len, sizeof(u)) || u_len != md_len) {
      return {};
    }
    memcpy(t, u, md_len);
    for (uint32_t j = 1; j < iterations; j++) {
      if (j % kIterationsPerCheck == 0 && uv_threadpool_should_stop())
        return {};
      if (!EVP_MAC_init(ctx.get(), nullptr, 0, nullptr) ||
          !EVP_MAC_update(ctx.get(), u, md_len) ||
          !EVP_MAC_final(ctx.get(), u, &u_len, sizeof(u))) {
        return {};
      }
      for (size_t k = 0; k < md_len; k++) t[k] ^= u[k];
    }
    const size_t n = std::min(length, md_len);
    memcpy(dst, t, n);
    dst += n;
    length -= n;
  }
  return out;
#else
  return ncrypto::pbkdf2(md, pass, salt, iterations, length);
#endif  // OPENSSL_VERSION_MAJOR >= 3
}

}  // namespace crypto
}  // namespace node
