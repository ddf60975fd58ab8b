#include "crypto/crypto_kdf_interruptible.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>

#include "node_threadpool_timeout.h"
#include "util.h"
#include "uv/sync-stop.h"
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

inline uint32_t Rotl(uint32_t x, int n) {
  return (x << n) | (x >> (32 - n));
}

// Salsa20/8's core on one 64-byte block (RFC 7914, section 3).
void Salsa208(uint32_t b[16]) {
  uint32_t x[16];
  memcpy(x, b, sizeof(x));
  for (int i = 0; i < 8; i += 2) {
    x[4] ^= Rotl(x[0] + x[12], 7);
    x[8] ^= Rotl(x[4] + x[0], 9);
    x[12] ^= Rotl(x[8] + x[4], 13);
    x[0] ^= Rotl(x[12] + x[8], 18);
    x[9] ^= Rotl(x[5] + x[1], 7);
    x[13] ^= Rotl(x[9] + x[5], 9);
    x[1] ^= Rotl(x[13] + x[9], 13);
    x[5] ^= Rotl(x[1] + x[13], 18);
    x[14] ^= Rotl(x[10] + x[6], 7);
    x[2] ^= Rotl(x[14] + x[10], 9);
    x[6] ^= Rotl(x[2] + x[14], 13);
    x[10] ^= Rotl(x[6] + x[2], 18);
    x[3] ^= Rotl(x[15] + x[11], 7);
    x[7] ^= Rotl(x[3] + x[15], 9);
    x[11] ^= Rotl(x[7] + x[3], 13);
    x[15] ^= Rotl(x[11] + x[7], 18);
    x[1] ^= Rotl(x[0] + x[3], 7);
    x[2] ^= Rotl(x[1] + x[0], 9);
    x[3] ^= Rotl(x[2] + x[1], 13);
    x[0] ^= Rotl(x[3] + x[2], 18);
    x[6] ^= Rotl(x[5] + x[4], 7);
    x[7] ^= Rotl(x[6] + x[5], 9);
    x[4] ^= Rotl(x[7] + x[6], 13);
    x[5] ^= Rotl(x[4] + x[7], 18);
    x[11] ^= Rotl(x[10] + x[9], 7);
    x[8] ^= Rotl(x[11] + x[10], 9);
    x[9] ^= Rotl(x[8] + x[11], 13);
    x[10] ^= Rotl(x[9] + x[8], 18);
    x[12] ^= Rotl(x[15] + x[14], 7);
    x[13] ^= Rotl(x[12] + x[15], 9);
    x[14] ^= Rotl(x[13] + x[12], 13);
    x[15] ^= Rotl(x[14] + x[13], 18);
  }
  for (int i = 0; i < 16; i++) b[i] += x[i];
}

// scryptBlockMix (RFC 7914, section 4) of the 2r blocks of `b` into `y`,
// 32r words each.
void BlockMix(const uint32_t* b, uint32_t* y, uint64_t r) {
  uint32_t x[16];
  memcpy(x, b + (2 * r - 1) * 16, sizeof(x));
  for (uint64_t i = 0; i < 2 * r; i++) {
    for (int k = 0; k < 16; k++) x[k] ^= b[i * 16 + k];
    Salsa208(x);
    // Even blocks to the first half, odd blocks to the second.
    memcpy(y + ((i & 1) * r + i / 2) * 16, x, sizeof(x));
  }
}

// scryptROMix (RFC 7914, section 5) of one 128r-byte block, in place. `v`
// holds 32rN words, `xy` 64r. False once the task was abandoned.
bool RoMix(uint8_t* block, uint64_t r, uint64_t n, uint32_t* v, uint32_t* xy) {
  const uint64_t words = 32 * r;
  uint32_t* x = xy;
  uint32_t* y = xy + words;
  for (uint64_t k = 0; k < words; k++) {
    const uint8_t* w = block + 4 * k;
    x[k] = uint32_t{w[0]} | uint32_t{w[1]} << 8 | uint32_t{w[2]} << 16 |
           uint32_t{w[3]} << 24;
  }
  for (uint64_t i = 0; i < n; i++) {
    if (i % kIterationsPerCheck == 0 && uv_threadpool_should_stop())
      return false;
    memcpy(v + i * words, x, words * sizeof(*x));
    BlockMix(x, y, r);
    std::swap(x, y);
  }
  for (uint64_t i = 0; i < n; i++) {
    if (i % kIterationsPerCheck == 0 && uv_threadpool_should_stop())
      return false;
    // Integerify: the first 64 bits of the last block, little-endian.
    const uint32_t* last = x + (2 * r - 1) * 16;
    const uint64_t j = (uint64_t{last[0]} | uint64_t{last[1]} << 32) & (n - 1);
    const uint32_t* vj = v + j * words;
    for (uint64_t k = 0; k < words; k++) x[k] ^= vj[k];
    BlockMix(x, y, r);
    std::swap(x, y);
  }
  for (uint64_t k = 0; k < words; k++) {
    uint8_t* w = block + 4 * k;
    w[0] = static_cast<uint8_t>(x[k]);
    w[1] = static_cast<uint8_t>(x[k] >> 8);
    w[2] = static_cast<uint8_t>(x[k] >> 16);
    w[3] = static_cast<uint8_t>(x[k] >> 24);
  }
  return true;
}

}  // namespace
#endif  // OPENSSL_VERSION_MAJOR >= 3

namespace {
// Whether a stop may come: a threadpool task's, or a synchronous call's
// (uv/sync-stop.h: CryptoJob::Run() in sync mode).
bool Stoppable() {
  return ThreadPoolTimeout::ever_enabled() || uv_sync_stop_inside();
}
}  // namespace

ncrypto::DataPointer InterruptiblePbkdf2(
    const EVP_MD* md,
    const ncrypto::Buffer<const char>& pass,
    const ncrypto::Buffer<const unsigned char>& salt,
    uint32_t iterations,
    size_t length) {
  // With nothing that could stop it (--threadpool-timeout never set, and
  // not a synchronous call that --event-loop-timeout may stop), upstream's
  // path; and what ncrypto::pbkdf2() refuses or fails on, it refuses the
  // same way.
  if (!Stoppable() || md == nullptr || length == 0 ||
      iterations == 0 || pass.len > INT_MAX || salt.len > INT_MAX ||
      length > INT_MAX) {
    return ncrypto::pbkdf2(md, pass, salt, iterations, length);
  }
#if OPENSSL_VERSION_MAJOR >= 3
  std::unique_ptr<EVP_MAC, MacDeleter> mac(
      EVP_MAC_fetch(nullptr, OSSL_MAC_NAME_HMAC, nullptr));
  std::unique_ptr<EVP_MAC_CTX, MacDeleter> ctx(
      mac ? EVP_MAC_CTX_new(mac.get()) : nullptr);
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
  const size_t md_len =
      ctx && EVP_MAC_init(ctx.get(), key, pass.len, params)
          ? EVP_MAC_CTX_get_mac_size(ctx.get())
          : 0;
  if (md_len == 0 || md_len > EVP_MAX_MD_SIZE) {
    // What HMAC's setup refuses (a digest no provider offers, as after
    // crypto.setFips(1) without the FIPS provider), upstream's path refuses
    // too, quickly and with its own OpenSSL error for the caller to report
    // (test-crypto-no-algorithm).
    ERR_clear_error();
    return ncrypto::pbkdf2(md, pass, salt, iterations, length);
  }
  ncrypto::ClearErrorOnReturn clear_error_on_return;

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

ncrypto::DataPointer InterruptibleScrypt(
    const ncrypto::Buffer<const char>& pass,
    const ncrypto::Buffer<const unsigned char>& salt,
    uint64_t N,
    uint64_t r,
    uint64_t p,
    uint64_t maxmem,
    size_t length) {
  // With nothing that could stop it (see above), upstream's path; and
  // parameters that OpenSSL refuses (N not a power of two, too much memory
  // for maxmem, ...) fail there the same way.
  if (!Stoppable() || length == 0 || pass.len > INT_MAX ||
      salt.len > INT_MAX || length > INT_MAX ||
      EVP_PBE_scrypt(nullptr, 0, nullptr, 0, N, r, p, maxmem, nullptr, 0) !=
          1) {
    return ncrypto::scrypt(pass, salt, N, r, p, maxmem, length);
  }
#if OPENSSL_VERSION_MAJOR >= 3
  ncrypto::ClearErrorOnReturn clear_error_on_return;
  // OpenSSL accepted them: r * p < 2^30, and 128r(N + p + 2) bytes fit in
  // maxmem, so none of the sizes below overflows.
  const uint64_t block_bytes = 128 * r;
  std::unique_ptr<uint8_t[]> b(new (std::nothrow) uint8_t[block_bytes * p]);
  std::unique_ptr<uint32_t[]> v(new (std::nothrow) uint32_t[32 * r * N]);
  std::unique_ptr<uint32_t[]> xy(new (std::nothrow) uint32_t[64 * r]);
  if (!b || !v || !xy) return {};

  // B = PBKDF2-HMAC-SHA256(P, S, 1, 128rp); each block through ROMix;
  // DK = PBKDF2-HMAC-SHA256(P, B, 1, dkLen).
  const EVP_MD* sha256 = EVP_sha256();
  if (!PKCS5_PBKDF2_HMAC(pass.data,
                         static_cast<int>(pass.len),
                         salt.data,
                         static_cast<int>(salt.len),
                         1,
                         sha256,
                         static_cast<int>(block_bytes * p),
                         b.get())) {
    return {};
  }
  for (uint64_t i = 0; i < p; i++) {
    if (!RoMix(b.get() + i * block_bytes, r, N, v.get(), xy.get())) return {};
  }
  auto out = ncrypto::DataPointer::Alloc(length);
  if (!out || !PKCS5_PBKDF2_HMAC(pass.data,
                                 static_cast<int>(pass.len),
                                 b.get(),
                                 static_cast<int>(block_bytes * p),
                                 1,
                                 sha256,
                                 static_cast<int>(length),
                                 static_cast<unsigned char*>(out.get()))) {
    return {};
  }
  return out;
#else
  return ncrypto::scrypt(pass, salt, N, r, p, maxmem, length);
#endif  // OPENSSL_VERSION_MAJOR >= 3
}

}  // namespace crypto
}  // namespace node
