#include "crypto/crypto_priority_job.h"

#include "crypto/crypto_sig.h"
#include "env-inl.h"
#include "node_event_loop_timeout.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "ncrypto.h"
#include "openssl/crypto.h"
#include "openssl/err.h"
#include "openssl/pem.h"
#include "openssl/pkcs12.h"
#include "openssl/ssl.h"
#include "openssl/opensslv.h"
#include "uv/sync-stop.h"
#include "util.h"
#if !defined(OPENSSL_IS_BORINGSSL) && OPENSSL_VERSION_MAJOR >= 3
#include "openssl/core_names.h"
#include "openssl/kdf.h"
#endif

namespace node {
namespace crypto {

// Moving errors between threads needs OpenSSL 3's ERR_get_error_all() and
// ERR_set_error(); with another library the work runs in place.
#if !defined(OPENSSL_IS_BORINGSSL) && OPENSSL_VERSION_MAJOR >= 3
#define NODECURE_PRIORITY_JOBS 1
#else
#define NODECURE_PRIORITY_JOBS 0
#endif

// One entry of OpenSSL's error queue, copied off the executor thread. (Its
// file and function are not: OpenSSL keeps such pointers, not copies.)
struct PriorityJob::Error {
  unsigned long code;  // NOLINT(runtime/int)
  std::string data;    // empty without ERR_TXT_STRING
};

PriorityJob::PriorityJob() = default;
PriorityJob::~PriorityJob() = default;

PriorityJob* PriorityJob::RunJob(PriorityJob* job) {
  CHECK_NOT_NULL(job);
  if (!NODECURE_PRIORITY_JOBS || !uv_sync_stop_inside()) {
    job->Work();
    return job;
  }
  job->req_.data = job;
  // The caller's error queue goes with the job: Work() on the executor
  // finds, and may clear (ClearErrorOnReturn) or add to, what it would find
  // in place, and the queue comes back as Work() left it (RaiseErrors()).
  // An abandoned job takes the caller's entries with it.
  TakeQueue(&job->errors_);
  switch (uv_priority_work(&job->req_, OnWork, OnAbandoned, 0)) {
    case 0:
      return job;
    case UV_ETIMEDOUT:
    case UV_ECANCELED:
      return nullptr;  // OnAbandoned() deletes it.
    default:
      // No executor (the cap on abandoned threads, no thread or memory):
      // Work() did not run. In place, as without the option.
      RaiseQueue(job->errors_);
      job->errors_.clear();
      job->Work();
      return job;
  }
}

void PriorityJob::OnWork(uv_priority_work_t* req) {
  PriorityJob* job = static_cast<PriorityJob*>(req->data);
  RaiseQueue(job->errors_);  // the caller's, on the executor's (empty) queue
  job->errors_.clear();
  job->Work();
  // The queue is the executor's: move its entries into the job, for
  // RaiseErrors() on the caller's thread (or for nobody, if abandoned).
  job->moved_errors_ = true;
  TakeQueue(&job->errors_);
}

void PriorityJob::OnAbandoned(uv_priority_work_t* req) {
  delete static_cast<PriorityJob*>(req->data);
}

void PriorityJob::TakeQueue(std::vector<Error>* out) {
#if NODECURE_PRIORITY_JOBS
  const char* data;
  int flags;
  while (unsigned long code =  // NOLINT(runtime/int)
         ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags)) {
    out->push_back(
        Error{code, (flags & ERR_TXT_STRING) && data != nullptr ? data : ""});
  }
#endif
}

void PriorityJob::RaiseQueue(const std::vector<Error>& in) {
#if NODECURE_PRIORITY_JOBS
  for (const Error& e : in) {
    ERR_new();
    ERR_set_debug(nullptr, 0, nullptr);
    if (e.data.empty()) {
      ERR_set_error(ERR_GET_LIB(e.code), ERR_GET_REASON(e.code), nullptr);
    } else {
      ERR_set_error(
          ERR_GET_LIB(e.code), ERR_GET_REASON(e.code), "%s", e.data.c_str());
    }
  }
#endif
}

void PriorityJob::RaiseErrors() {
  if (!moved_errors_) return;  // Ran in place: they are on this thread.
  moved_errors_ = false;
  RaiseQueue(errors_);
  errors_.clear();
}

namespace {

// A key-pair generation, with its own EVP_PKEY_CTX (whose progress callback
// asks uv_threadpool_should_stop(): its executor's flag once abandoned).
class KeyPairJob final : public PriorityJob {
 public:
  explicit KeyPairJob(ncrypto::EVPKeyCtxPointer ctx) : ctx_(std::move(ctx)) {}
  ~KeyPairJob() override { EVP_PKEY_free(pkey_); }

  int result() const { return result_; }
  EVP_PKEY* ReleaseKey() { return std::exchange(pkey_, nullptr); }

 protected:
  void Work() override { result_ = EVP_PKEY_keygen(ctx_.get(), &pkey_); }

 private:
  ncrypto::EVPKeyCtxPointer ctx_;
  EVP_PKEY* pkey_ = nullptr;
  int result_ = 0;
};

// The callback of a search on an executor: its own stop word only (not the
// Environment's, which an abandoned job must not touch).
bool KeepSearching(int, int) {
  return !uv_threadpool_should_stop();
}

// A copy of `bn` (an empty pointer stays empty). False if it failed.
bool Copy(const ncrypto::BignumPointer& bn, ncrypto::BignumPointer* out) {
  if (!bn) return true;
  out->reset(BN_dup(bn.get()));
  return static_cast<bool>(*out);
}

// A prime search on copies of its inputs.
class PrimeJob final : public PriorityJob {
 public:
  static std::unique_ptr<PrimeJob> New(
      const ncrypto::BignumPointer::PrimeConfig& config) {
    std::unique_ptr<PrimeJob> job(new PrimeJob(config.bits, config.safe));
    if (!job->prime_ || !Copy(config.add, &job->add_) ||
        !Copy(config.rem, &job->rem_)) {
      return nullptr;
    }
    return job;
  }

  bool ok() const { return ok_; }
  const ncrypto::BignumPointer& prime() const { return prime_; }

 protected:
  void Work() override {
    ok_ = prime_.generate(ncrypto::BignumPointer::PrimeConfig{
                              .bits = bits_,
                              .safe = safe_,
                              .add = add_,
                              .rem = rem_,
                          },
                          KeepSearching);
  }

 private:
  PrimeJob(int bits, bool safe)
      : prime_(ncrypto::BignumPointer::NewSecure()), bits_(bits), safe_(safe) {}

  ncrypto::BignumPointer prime_;
  ncrypto::BignumPointer add_;
  ncrypto::BignumPointer rem_;
  int bits_;
  bool safe_;
  bool ok_ = false;
};

// A primality test of a copy of the candidate.
class CheckPrimeJob final : public PriorityJob {
 public:
  static std::unique_ptr<CheckPrimeJob> New(
      const ncrypto::BignumPointer& candidate, int checks) {
    std::unique_ptr<CheckPrimeJob> job(new CheckPrimeJob(checks));
    if (!Copy(candidate, &job->candidate_) || !job->candidate_) return nullptr;
    return job;
  }

  int result() const { return result_; }

 protected:
  void Work() override { result_ = candidate_.isPrime(checks_, KeepSearching); }

 private:
  explicit CheckPrimeJob(int checks) : checks_(checks) {}

  ncrypto::BignumPointer candidate_;
  int checks_;
  int result_ = -1;
};

#if NODECURE_PRIORITY_JOBS
// Diffie-Hellman parameters (a safe prime and the generator), with their
// own EVP_PKEY_CTX, whose progress callback asks uv_threadpool_should_stop():
// the executor's flag once abandoned, the section's in place.
class DHParamsJob final : public PriorityJob {
 public:
  static std::unique_ptr<DHParamsJob> New(int bits, uint32_t generator) {
    auto ctx = ncrypto::EVPKeyCtxPointer::NewFromID(EVP_PKEY_DH);
    if (!ctx.initForParamgen() || !ctx.setDhParameters(bits, generator)) {
      return nullptr;
    }
    EVP_PKEY_CTX_set_cb(ctx.get(), [](EVP_PKEY_CTX*) -> int {
      return !uv_threadpool_should_stop();
    });
    return std::unique_ptr<DHParamsJob>(new DHParamsJob(std::move(ctx)));
  }

  void RunInPlace() { Work(); }
  ncrypto::EVPKeyPointer TakeParams() { return std::move(params_); }

 protected:
  void Work() override { params_ = ctx_.paramgen(); }

 private:
  explicit DHParamsJob(ncrypto::EVPKeyCtxPointer ctx) : ctx_(std::move(ctx)) {}

  ncrypto::EVPKeyCtxPointer ctx_;
  ncrypto::EVPKeyPointer params_;
};

// The check of a copy of Diffie-Hellman parameters.
class DHCheckJob final : public PriorityJob {
 public:
  static std::unique_ptr<DHCheckJob> New(const ncrypto::DHPointer& dh) {
    EVP_PKEY* copy = EVP_PKEY_dup(dh.get());
    if (copy == nullptr) return nullptr;
    return std::unique_ptr<DHCheckJob>(
        new DHCheckJob(ncrypto::DHPointer(ncrypto::EVPKeyPointer(copy))));
  }

  ncrypto::DHPointer::CheckResult result() const { return result_; }

 protected:
  void Work() override { result_ = dh_.check(); }

 private:
  explicit DHCheckJob(ncrypto::DHPointer dh) : dh_(std::move(dh)) {}

  ncrypto::DHPointer dh_;
  ncrypto::DHPointer::CheckResult result_ =
      ncrypto::DHPointer::CheckResult::CHECK_FAILED;
};

// A named group's parameters (DiffieHellmanGroup, or a prime OpenSSL knows
// as one): its check tests nothing, or at most a modp group's 8192 bits.
bool IsNamedGroup(const ncrypto::DHPointer& dh) {
  size_t len = 0;
  return EVP_PKEY_get_group_name(dh.get(), nullptr, 0, &len) == 1;
}
#endif

// Whether a search of this thread's may leave for an executor.
bool MayLeave(Environment* env) {
  return NODECURE_PRIORITY_JOBS && env->is_main_thread() &&
         uv_sync_stop_inside();
}

#if NODECURE_PRIORITY_JOBS
bool SearchesForPrimes(EVP_PKEY_CTX* ctx) {
  for (const char* type : {"RSA", "RSA-PSS", "DSA", "DH", "DHX"}) {
    if (EVP_PKEY_CTX_is_a(ctx, type)) return true;
  }
  return false;
}
#endif

}  // namespace

int GenerateKeyPair(ncrypto::EVPKeyCtxPointer ctx, EVP_PKEY** out) {
#if NODECURE_PRIORITY_JOBS
  if (SearchesForPrimes(ctx.get())) {
    std::unique_ptr<KeyPairJob> job =
        PriorityJob::Run(std::make_unique<KeyPairJob>(std::move(ctx)));
    if (!job) return 0;  // Stopped: the caller throws the TimeoutError.
    job->RaiseErrors();
    *out = job->ReleaseKey();
    return job->result();
  }
#endif
  return EVP_PKEY_keygen(ctx.get(), out);
}

bool GeneratePrime(Environment* env,
                   const ncrypto::BignumPointer& prime,
                   const ncrypto::BignumPointer::PrimeConfig& config,
                   ncrypto::BignumPointer::PrimeCheckCallback in_place_cb) {
  std::unique_ptr<PrimeJob> job;
  if (MayLeave(env)) job = PrimeJob::New(config);
  if (!job) return prime.generate(config, std::move(in_place_cb));
  job = PriorityJob::Run(std::move(job));
  if (!job) return false;  // Stopped: the caller throws the TimeoutError.
  job->RaiseErrors();
  return job->ok() && BN_copy(prime.get(), job->prime().get()) != nullptr;
}

int CheckPrime(Environment* env,
               const ncrypto::BignumPointer& candidate,
               int checks,
               ncrypto::BignumPointer::PrimeCheckCallback in_place_cb) {
  std::unique_ptr<CheckPrimeJob> job;
  if (MayLeave(env)) job = CheckPrimeJob::New(candidate, checks);
  if (!job) return candidate.isPrime(checks, std::move(in_place_cb));
  job = PriorityJob::Run(std::move(job));
  if (!job) return -1;  // Stopped: the caller throws the TimeoutError.
  job->RaiseErrors();
  return job->result();
}

ncrypto::DHPointer NewDHParameters(Environment* env,
                                   int bits,
                                   uint32_t generator) {
#if NODECURE_PRIORITY_JOBS
  // A refusal before any search (a bad size or generator) leaves no error
  // of ours: upstream's call below fails the same way and reports its own.
  ERR_set_mark();
  std::unique_ptr<DHParamsJob> job = DHParamsJob::New(bits, generator);
  if (!job) {
    ERR_pop_to_mark();
  } else {
    ERR_clear_last_mark();
    if (MayLeave(env)) {
      job = PriorityJob::Run(std::move(job));
      if (!job) return {};  // Stopped: the caller throws the TimeoutError.
      job->RaiseErrors();
    } else {
      job->RunInPlace();
    }
    ncrypto::EVPKeyPointer params = job->TakeParams();
    if (!params) return {};
    return ncrypto::DHPointer(std::move(params));
  }
#endif
  return ncrypto::DHPointer::New(bits, generator);
}

ncrypto::DHPointer::CheckResult CheckDHParameters(Environment* env,
                                                  ncrypto::DHPointer& dh) {
#if NODECURE_PRIORITY_JOBS
  // A DiffieHellmanGroup's parameters may have no EVP_PKEY yet: its check
  // tests nothing.
  if (MayLeave(env) && dh.get() != nullptr && !IsNamedGroup(dh)) {
    ERR_set_mark();
    std::unique_ptr<DHCheckJob> job = DHCheckJob::New(dh);
    ERR_pop_to_mark();  // A failed copy: checked in place, as upstream.
    if (job) {
      job = PriorityJob::Run(std::move(job));
      if (!job) return ncrypto::DHPointer::CheckResult::CHECK_FAILED;
      return job->result();  // check() clears OpenSSL's errors itself.
    }
  }
#endif
  return dh.check();
}

namespace {

constexpr const char kKeyParseApi[] = "private key decryption";

// A memory BIO that reads a copy as the caller's BIO read the original (an
// empty one: an empty BIO, which BIO_new_mem_buf() of null data is not).
ncrypto::BIOPointer MemBIO(const InputCopy& in) {
  if (in.size() == 0) return ncrypto::BIOPointer(BIO_new(BIO_s_mem()));
  return ncrypto::BIOPointer(
      BIO_new_mem_buf(in.data(), static_cast<int>(in.size())));
}

class PrivateKeyParseJob final : public PriorityJob {
 public:
  PrivateKeyParseJob(
      const ncrypto::EVPKeyPointer::PrivateKeyEncodingConfig& config,
      const ncrypto::Buffer<const unsigned char>& buffer)
      : config_(config),
        key_(std::string_view(reinterpret_cast<const char*>(buffer.data),
                              buffer.len)) {}

  std::optional<ncrypto::EVPKeyPointer::ParseKeyResult>& result() {
    return result_;
  }

 protected:
  void Work() override {
    result_.emplace(ncrypto::EVPKeyPointer::TryParsePrivateKey(
        config_,
        ncrypto::Buffer<const unsigned char>{
            .data = reinterpret_cast<const unsigned char*>(key_.data()),
            .len = key_.size(),
        }));
  }

 private:
  // Its passphrase is a DataPointer, freed with OPENSSL_clear_free().
  const ncrypto::EVPKeyPointer::PrivateKeyEncodingConfig config_;
  const InputCopy key_;
  std::optional<ncrypto::EVPKeyPointer::ParseKeyResult> result_;
};

// PasswordCallback() (crypto_util.cc) for an InputCopy.
int CopyPassword(char* buf, int size, int rwflag, void* u) {
  const InputCopy* pass = static_cast<const InputCopy*>(u);
  if (static_cast<size_t>(size) < pass->size()) return -1;
  memcpy(buf, pass->view().data(), pass->size());
  return static_cast<int>(pass->size());
}

class PEMPrivateKeyJob final : public PriorityJob {
 public:
  PEMPrivateKeyJob(std::string_view pem, std::string_view passphrase)
      : pem_(pem), passphrase_(passphrase) {}

  ncrypto::EVPKeyPointer TakeKey() { return std::move(key_); }

 protected:
  void Work() override {
    ncrypto::BIOPointer bio = MemBIO(pem_);
    if (!bio) return;
    key_.reset(PEM_read_bio_PrivateKey(
        bio.get(), nullptr, CopyPassword, const_cast<InputCopy*>(&passphrase_)));
  }

 private:
  const InputCopy pem_;
  const InputCopy passphrase_;
  ncrypto::EVPKeyPointer key_;
};

class PKCS12Job final : public PriorityJob {
 public:
  PKCS12Job(std::string_view pfx, const char* pass)
      : pfx_(pfx),
        pass_(pass == nullptr ? std::string_view()
                              : std::string_view(pass, strlen(pass) + 1)),
        has_pass_(pass != nullptr) {}

  PKCS12Contents& contents() { return contents_; }

 protected:
  void Work() override {
    ncrypto::BIOPointer bio = MemBIO(pfx_);
    if (!bio) return;
    PKCS12* p12_ptr = nullptr;
    if (!d2i_PKCS12_bio(bio.get(), &p12_ptr)) return;
    ncrypto::DeleteFnPtr<PKCS12, PKCS12_free> p12(p12_ptr);
    EVP_PKEY* pkey_ptr = nullptr;
    X509* cert_ptr = nullptr;
    STACK_OF(X509)* extra_certs_ptr = nullptr;
    if (!PKCS12_parse(p12.get(),
                      has_pass_ ? pass_.data() : nullptr,
                      &pkey_ptr,
                      &cert_ptr,
                      &extra_certs_ptr)) {
      return;
    }
    contents_.parsed = true;
    contents_.pkey.reset(pkey_ptr);
    contents_.cert.reset(cert_ptr);
    contents_.extra_certs.reset(extra_certs_ptr);
  }

 private:
  const InputCopy pfx_;
  const InputCopy pass_;  // with its NUL
  const bool has_pass_;
  PKCS12Contents contents_;
};

class SqueezeJob final : public PriorityJob {
 public:
  SqueezeJob(ncrypto::EVPMDCtxPointer ctx, size_t length)
      : ctx_(std::move(ctx)), length_(length) {}

  ncrypto::EVPMDCtxPointer TakeContext() { return std::move(ctx_); }
  ncrypto::DataPointer TakeOutput() { return std::move(out_); }

 protected:
  void Work() override { out_ = ctx_.digestFinal(length_); }

 private:
  ncrypto::EVPMDCtxPointer ctx_;
  const size_t length_;
  ncrypto::DataPointer out_;
};

#if NODECURE_PRIORITY_JOBS
// The TLS 1.2 PRF (RFC 5246, 5) of `secret` and `seed` into `length` bytes
// of its own, with the PRF digest named `digest`: OpenSSL's TLS1-PRF KDF,
// which tls1_PRF() runs for SSL_export_keying_material().
class ExporterJob final : public PriorityJob {
 public:
  ExporterJob(const char* digest,
              std::string secret,
              std::string seed,
              size_t length)
      : digest_(digest),
        secret_(std::move(secret)),
        seed_(std::move(seed)),
        length_(length) {}
  ~ExporterJob() override {
    OPENSSL_cleanse(secret_.data(), secret_.size());
  }

  ncrypto::DataPointer TakeOutput() { return std::move(out_); }

 protected:
  // A failure's errors do not stay on the queue (the caller then runs
  // upstream's call, which raises its own); marked here, on the thread
  // that runs it, since a mark does not move with the queue.
  void Work() override {
    ERR_set_mark();
    Derive();
    ERR_pop_to_mark();
  }

 private:
  void Derive() {
    EVP_KDF* kdf = EVP_KDF_fetch(nullptr, OSSL_KDF_NAME_TLS1_PRF, nullptr);
    EVP_KDF_CTX* ctx = kdf != nullptr ? EVP_KDF_CTX_new(kdf) : nullptr;
    EVP_KDF_free(kdf);
    if (ctx == nullptr) return;
    const OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(
            OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest_.c_str()), 0),
        OSSL_PARAM_construct_octet_string(
            OSSL_KDF_PARAM_SECRET, secret_.data(), secret_.size()),
        OSSL_PARAM_construct_octet_string(
            OSSL_KDF_PARAM_SEED, seed_.data(), seed_.size()),
        OSSL_PARAM_construct_end(),
    };
    auto out = ncrypto::DataPointer::Alloc(length_);
    if (out && EVP_KDF_derive(ctx, out.get<unsigned char>(), length_,
                              params) == 1) {
      out_ = std::move(out);
    }
    EVP_KDF_CTX_free(ctx);
  }

  const std::string digest_;
  std::string secret_;
  std::string seed_;
  const size_t length_;
  ncrypto::DataPointer out_;
};
#endif  // NODECURE_PRIORITY_JOBS

}  // namespace

std::optional<ncrypto::EVPKeyPointer::ParseKeyResult> ParsePrivateKey(
    Environment* env,
    const ncrypto::EVPKeyPointer::PrivateKeyEncodingConfig& config,
    const ncrypto::Buffer<const unsigned char>& buffer) {
  auto job = RunStoppable(
      env, kKeyParseApi, std::make_unique<PrivateKeyParseJob>(config, buffer));
  if (!job) return std::nullopt;
  return std::move(job->result());
}

std::optional<ncrypto::EVPKeyPointer> ReadPrivateKeyPEM(
    Environment* env, std::string_view pem, std::string_view passphrase) {
  auto job = RunStoppable(
      env, kKeyParseApi, std::make_unique<PEMPrivateKeyJob>(pem, passphrase));
  if (!job) return std::nullopt;
  return job->TakeKey();
}

std::optional<PKCS12Contents> ReadPKCS12(Environment* env,
                                         std::string_view pfx,
                                         const char* pass) {
  auto job =
      RunStoppable(env, kKeyParseApi, std::make_unique<PKCS12Job>(pfx, pass));
  if (!job) return std::nullopt;
  return std::move(job->contents());
}

std::optional<ncrypto::Result<ncrypto::X509Pointer, int>> ParseX509(
    Environment* env, const ncrypto::Buffer<const unsigned char>& buffer) {
  return RunOnInput(
      env,
      "new X509Certificate",
      std::string_view(reinterpret_cast<const char*>(buffer.data), buffer.len),
      [](std::string_view der) {
        return ncrypto::X509Pointer::Parse(ncrypto::Buffer<const unsigned char>{
            .data = reinterpret_cast<const unsigned char*>(der.data()),
            .len = der.size(),
        });
      });
}

bool LongKey(const ncrypto::EVPKeyPointer& key) {
  return key && key.bits() > kOpInPlaceKeyBits;
}

namespace {

ByteSource CopyOf(const ByteSource& in) {
  if (in.size() == 0) return ByteSource();
  auto buf = ncrypto::DataPointer::Alloc(in.size());
  CHECK(buf);
  memcpy(buf.get(), in.data(), in.size());
  return ByteSource::Allocated(buf.release());
}

// SignOnKey()'s job's SignConfiguration: nothing of its caller's.
class SignCopy {
 public:
  explicit SignCopy(const SignConfiguration& params) {
    copy_.mode = params.mode;
    copy_.key = params.key.addRef();
    copy_.data = CopyOf(params.data);
    copy_.digest = params.digest;
    copy_.flags = params.flags;
    copy_.padding = params.padding;
    copy_.salt_length = params.salt_length;
    copy_.dsa_encoding = params.dsa_encoding;
    copy_.context_string = CopyOf(params.context_string);
  }
  const SignConfiguration& view() const { return copy_; }

 private:
  SignConfiguration copy_;
};

}  // namespace

SignOnKeyResult SignOnKey(Environment* env,
                          const SignConfiguration& params,
                          ByteSource* out) {
  // (With an error already on the queue, in place: a failure without a
  // reason of its own would throw that one there, and cannot be told from
  // one with a reason here.)
  if (params.mode != SignConfiguration::Mode::Sign ||
      !LongKey(params.key.GetAsymmetricKey()) ||
      !EventLoopTimeout::SyncCallsStoppable(env) || ERR_peek_error() != 0) {
    return SignOnKeyResult::kInPlace;
  }
  auto signature = RunHolding<SignCopy>(
      env, "crypto.sign", params, [](const SignConfiguration& copy) {
        ByteSource bytes;
        // As the threadpool runs crypto.sign() with a callback: no
        // Environment (nothing of it is used off its thread), no throw.
        if (!SignTraits::DeriveBits(
                nullptr, copy, &bytes, CryptoJobMode::kCryptoJobAsync)) {
          return std::optional<ByteSource>();
        }
        return std::optional<ByteSource>(std::move(bytes));
      });
  if (!signature) return SignOnKeyResult::kStopped;
  if (!*signature) {
    return ERR_peek_error() != 0 ? SignOnKeyResult::kFailed
                                 : SignOnKeyResult::kInPlace;
  }
  *out = std::move(**signature);
  return SignOnKeyResult::kSigned;
}

bool LongCertificate(const ncrypto::X509View& view) {
  // The length only: the parsed parts keep their encoding, so this reads
  // cached lengths rather than encoding the certificate again.
  // A failure's errors do not stay on the queue: the caller's would.
  ERR_set_mark();
  const int length = i2d_X509(view.get(), nullptr);
  ERR_pop_to_mark();
  return length < 0 || static_cast<size_t>(length) > kParseInPlaceBytes;
}

ncrypto::BIOPointer ReadOnlyBIO(const ncrypto::BIOPointer& bio) {
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);  // NOLINT
  return ncrypto::BIOPointer(BIO_new_mem_buf(
      length > 0 ? data : "", length > 0 ? static_cast<int>(length) : 0));
}

std::optional<ncrypto::DataPointer> SqueezeXOF(Environment* env,
                                               ncrypto::EVPMDCtxPointer* ctx,
                                               size_t length) {
  if (length <= kSqueezeInPlaceBytes) return ctx->digestFinal(length);
  auto job = RunStoppable(
      env, "hash.digest", std::make_unique<SqueezeJob>(std::move(*ctx), length));
  if (!job) return std::nullopt;
  *ctx = job->TakeContext();
  return job->TakeOutput();
}

LongExport ExportLongKeyingMaterial(Environment* env,
                                    SSL* ssl,
                                    size_t length,
                                    std::string_view label,
                                    const unsigned char* context,
                                    size_t context_length,
                                    bool use_context,
                                    ncrypto::DataPointer* out) {
#if !NODECURE_PRIORITY_JOBS
  return LongExport::kInPlace;  // the KDF API is OpenSSL 3's
#else
  if (length <= kSqueezeInPlaceBytes || SSL_is_dtls(ssl) ||
      SSL_version(ssl) != TLS1_2_VERSION) {
    return LongExport::kInPlace;
  }
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl);
  const SSL_SESSION* session = SSL_get_session(ssl);
  const EVP_MD* md =
      cipher != nullptr ? SSL_CIPHER_get_handshake_digest(cipher) : nullptr;
  if (session == nullptr || md == nullptr) return LongExport::kInPlace;
  // A suite of before TLS 1.2 names MD5-SHA1; TLS 1.2 uses SHA-256 for it
  // (ssl_get_algorithm2()).
  const char* digest = EVP_MD_get0_name(md);
  if (digest == nullptr) return LongExport::kInPlace;
  if (EVP_MD_is_a(md, "MD5-SHA1")) digest = "SHA256";
  {
    // Where nothing could stop it (no budget, or a thread without a stop),
    // upstream's call as it is.
    StoppableSyncCall probe;
    if (!probe.entered()) return LongExport::kInPlace;
    if (probe.ThrowIfStopped(env, "exportKeyingMaterial"))
      return LongExport::kStopped;
  }

  // Upstream's call for the first bytes: its checks, and the reference.
  unsigned char first[32];
  ERR_set_mark();
  const bool ok = SSL_export_keying_material(ssl,
                                             first,
                                             sizeof(first),
                                             label.data(),
                                             label.size(),
                                             context,
                                             context_length,
                                             use_context) == 1;
  ERR_pop_to_mark();
  if (!ok) return LongExport::kInPlace;  // fails there, as upstream

  std::string secret(SSL_MAX_MASTER_KEY_LENGTH, '\0');
  secret.resize(SSL_SESSION_get_master_key(
      session, reinterpret_cast<unsigned char*>(secret.data()),
      secret.size()));
  // label || client_random || server_random [|| length || context]
  std::string seed(label);
  unsigned char random[SSL3_RANDOM_SIZE];
  bool have = !secret.empty() && SSL_get_client_random(
                                     ssl, random, sizeof(random)) ==
                                     sizeof(random);
  if (have) {
    seed.append(reinterpret_cast<const char*>(random), sizeof(random));
    have = SSL_get_server_random(ssl, random, sizeof(random)) ==
           sizeof(random);
  }
  if (!have) {
    OPENSSL_cleanse(secret.data(), secret.size());
    OPENSSL_cleanse(first, sizeof(first));
    return LongExport::kInPlace;
  }
  seed.append(reinterpret_cast<const char*>(random), sizeof(random));
  if (use_context) {
    seed += static_cast<char>((context_length >> 8) & 0xff);
    seed += static_cast<char>(context_length & 0xff);
    if (context_length > 0)
      seed.append(reinterpret_cast<const char*>(context), context_length);
  }

  auto job = RunStoppable(env,
                          "exportKeyingMaterial",
                          std::make_unique<ExporterJob>(
                              digest, std::move(secret), std::move(seed),
                              length));
  if (!job) {
    OPENSSL_cleanse(first, sizeof(first));
    return LongExport::kStopped;
  }
  ncrypto::DataPointer output = job->TakeOutput();
  const bool same =
      output && CRYPTO_memcmp(output.get(), first, sizeof(first)) == 0;
  OPENSSL_cleanse(first, sizeof(first));
  if (!same) return LongExport::kInPlace;  // not upstream's output
  *out = std::move(output);
  return LongExport::kDone;
#endif  // NODECURE_PRIORITY_JOBS
}

}  // namespace crypto
}  // namespace node
