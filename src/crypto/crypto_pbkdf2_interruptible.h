#ifndef SRC_CRYPTO_CRYPTO_PBKDF2_INTERRUPTIBLE_H_
#define SRC_CRYPTO_CRYPTO_PBKDF2_INTERRUPTIBLE_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <cstddef>
#include <cstdint>

#include "ncrypto.h"

namespace node {
namespace crypto {

// nodecure: PBKDF2-HMAC (RFC 8018, section 5.2) computed here instead of in
// one PKCS5_PBKDF2_HMAC() call, so that a threadpool task that ran past
// --threadpool-timeout and was abandoned stops between iterations
// (uv_threadpool_should_stop()) instead of hashing on for hours. Same
// output as ncrypto::pbkdf2(); returns an empty pointer on failure and once
// stopped. Outside an abandoned pool task (pbkdf2Sync()) it runs to the
// end. With the option never set it is ncrypto::pbkdf2(). Needs OpenSSL 3's
// EVP_MAC; with an older library it is ncrypto::pbkdf2().
ncrypto::DataPointer InterruptiblePbkdf2(
    const EVP_MD* md,
    const ncrypto::Buffer<const char>& pass,
    const ncrypto::Buffer<const unsigned char>& salt,
    uint32_t iterations,
    size_t length);

}  // namespace crypto
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_CRYPTO_CRYPTO_PBKDF2_INTERRUPTIBLE_H_
