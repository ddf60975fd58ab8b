#ifndef SRC_CRYPTO_CRYPTO_KDF_INTERRUPTIBLE_H_
#define SRC_CRYPTO_CRYPTO_KDF_INTERRUPTIBLE_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <cstddef>
#include <cstdint>

#include "ncrypto.h"

namespace node {
namespace crypto {

// nodecure: the key derivations that can run for minutes, computed here
// instead of in one OpenSSL call, so that they stop within a millisecond or
// so of a stop (uv_threadpool_should_stop()) instead of running on: a
// threadpool task's, set at its --threadpool-timeout deadline, or a
// synchronous call's (pbkdf2Sync(), scryptSync(): a sync-stop section that
// --event-loop-timeout stops). Each has the output of its ncrypto
// counterpart, and returns an empty pointer on failure and once stopped.
// Where no stop can come (neither option ever set, outside a section), and
// without OpenSSL 3, they are their ncrypto counterparts.

// PBKDF2-HMAC (RFC 8018, section 5.2): stops between iterations.
ncrypto::DataPointer InterruptiblePbkdf2(
    const EVP_MD* md,
    const ncrypto::Buffer<const char>& pass,
    const ncrypto::Buffer<const unsigned char>& salt,
    uint32_t iterations,
    size_t length);

// scrypt (RFC 7914): stops between steps of ROMix.
ncrypto::DataPointer InterruptibleScrypt(
    const ncrypto::Buffer<const char>& pass,
    const ncrypto::Buffer<const unsigned char>& salt,
    uint64_t N,
    uint64_t r,
    uint64_t p,
    uint64_t maxmem,
    size_t length);

}  // namespace crypto
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_CRYPTO_CRYPTO_KDF_INTERRUPTIBLE_H_
