#ifndef SRC_CRYPTO_CRYPTO_PRIORITY_JOB_H_
#define SRC_CRYPTO_CRYPTO_PRIORITY_JOB_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "env.h"
#include "ncrypto.h"
#include "node_event_loop_timeout.h"
#include "openssl/crypto.h"
#include "uv.h"
#include "uv/sync-stop.h"
#include "util.h"
#include "uv/timeout.h"
#include "v8.h"

namespace node {

class Environment;

namespace crypto {

// nodecure: the crypto work of a *Sync API that can look for a stop only
// now and then. OpenSSL's prime search asks its callback once per candidate
// and per Miller-Rabin round, about 170 ms apart for RSA-15360 and seconds
// apart for bigger keys, so a generateKeyPairSync() stopped in place by
// --event-loop-timeout ended long after the budget; generatePrimeSync() and
// checkPrimeSync() the same. Such work runs on
// libuv's Priority Executor (uv/timeout.h) while the loop thread waits;
// when the callback's budget stops the loop's section (uv/sync-stop.h), the
// loop leaves the wait within 5 ms and throws the TimeoutError, and the
// work, abandoned, ends at its next callback (its executor's stop flag).
//
// Ownership: an abandoned job belongs to its executor thread, which deletes
// it once Work() returned. A job therefore owns everything Work() touches
// (OpenSSL objects, copies of its inputs), never the Environment, the
// CryptoJob's params or JS memory; Work() must not call into V8.
//
// Outside such a section (the callback API on a pool thread, or no budget)
// Work() runs in place, as upstream's code did.
class PriorityJob {
 public:
  // Out of line: Error is complete only in crypto_priority_job.cc.
  PriorityJob();
  virtual ~PriorityJob();
  PriorityJob(const PriorityJob&) = delete;
  PriorityJob& operator=(const PriorityJob&) = delete;

  // Runs job->Work() and returns the job once it returned, or nullptr if the
  // loop's section was stopped first (the job is the executor's now).
  template <typename T>
  static std::unique_ptr<T> Run(std::unique_ptr<T> job) {
    return std::unique_ptr<T>(static_cast<T*>(RunJob(job.release())));
  }

  // On the thread that called Run(), after it returned the job: OpenSSL's
  // errors of a failed Work() on another thread, raised on this one, where
  // CryptoErrorStore::Capture() looks for them.
  void RaiseErrors();

 protected:
  // The work: on an executor, or in place. A failure leaves its errors on
  // the running thread's OpenSSL error queue, as in place.
  virtual void Work() = 0;

 private:
  struct Error;

  static PriorityJob* RunJob(PriorityJob* job);
  // The calling thread's OpenSSL error queue, moved into *out (oldest
  // first), and raised again from `in`.
  static void TakeQueue(std::vector<Error>* out);
  static void RaiseQueue(const std::vector<Error>& in);
  static void OnWork(uv_priority_work_t* req);
  static void OnAbandoned(uv_priority_work_t* req);

  uv_priority_work_t req_;
  bool moved_errors_ = false;
  std::vector<Error> errors_;
};

// EVP_PKEY_keygen(ctx, out) for a key-pair generation: a PriorityJob for
// the types whose generation searches for primes (RSA, RSA-PSS, DSA, DH),
// in place for the others. Nonzero on success; zero on failure, with
// OpenSSL's errors on the calling thread's queue, and when stopped.
int GenerateKeyPair(ncrypto::EVPKeyCtxPointer ctx, EVP_PKEY** out);

// BN_generate_prime_ex() into `prime` (BignumPointer::generate()) and
// BN_is_prime_ex() of `candidate` (BignumPointer::isPrime()): the same
// search, whose callback comes once per candidate and round. On the main
// thread, inside a section that --event-loop-timeout may stop, a
// PriorityJob on copies of the inputs (the result is copied back); else in
// place with `in_place_cb`, as upstream (a Worker's search also stops when
// its Environment does, which an abandoned job could not ask).
bool GeneratePrime(Environment* env,
                   const ncrypto::BignumPointer& prime,
                   const ncrypto::BignumPointer::PrimeConfig& config,
                   ncrypto::BignumPointer::PrimeCheckCallback in_place_cb);
int CheckPrime(Environment* env,
               const ncrypto::BignumPointer& candidate,
               int checks,
               ncrypto::BignumPointer::PrimeCheckCallback in_place_cb);

// DHPointer::New(bits, generator) for createDiffieHellman(primeLength): a
// search for a safe prime (seconds at 2048 bits, minutes at 8192), whose
// callback comes once per candidate and round. On the main thread, inside
// a section that --event-loop-timeout may stop, a PriorityJob with its own
// EVP_PKEY_CTX; else in place, with a callback that stops it when the
// calling thread's section is stopped (a Worker's). Empty when it failed
// (OpenSSL's errors on the calling thread's queue) or was stopped.
ncrypto::DHPointer NewDHParameters(Environment* env,
                                   int bits,
                                   uint32_t generator);

// DHPointer::check() for the verifyError that createDiffieHellman(prime,
// generator) reads: primality tests of the prime and of (p - 1) / 2, with no
// callback (5 s for a safe prime of 4096 bits on a 2-core machine, minutes
// for 20,000 bits). On the main thread, inside a section that
// --event-loop-timeout may stop, a PriorityJob on a copy of the parameters
// (EVP_PKEY_dup()), left at the stop to run to its end on its executor;
// else, and for a named group (no test), in place as upstream. Stopped, it
// returns CHECK_FAILED; the caller's section throws the TimeoutError.
ncrypto::DHPointer::CheckResult CheckDHParameters(Environment* env,
                                                  ncrypto::DHPointer& dh);

// The parses whose KDF runs as many iterations as their input says: an
// encrypted private key (PBKDF2's count up to 2^31 - 1, scrypt's N) and a
// PKCS#12 (its MAC and PBE counts), which OpenSSL runs inside one decoder
// call with no callback: a key that a user uploads with its passphrase held
// the loop for as long as its author chose. Inside a section that
// --event-loop-timeout may stop (any thread: nothing in place could stop
// them), a PriorityJob on copies of the input and the passphrase, which the
// job wipes (OPENSSL_cleanse()) when it is deleted; else in place, as
// upstream. Each returns nullopt if the section was stopped first: the
// TimeoutError ("Synchronous private key decryption stopped") is then
// thrown. Otherwise OpenSSL's errors are on the calling thread's queue, as
// in place.
//
// EVPKeyPointer::TryParsePrivateKey(config, buffer) (crypto_keys.cc's
// TryParsePrivateKey(), when a passphrase is given).
std::optional<ncrypto::EVPKeyPointer::ParseKeyResult> ParsePrivateKey(
    Environment* env,
    const ncrypto::EVPKeyPointer::PrivateKeyEncodingConfig& config,
    const ncrypto::Buffer<const unsigned char>& buffer);
// PEM_read_bio_PrivateKey() of `pem` (the bytes of a memory BIO; null data
// for an empty one) with `passphrase` (SecureContext::SetKey(), which tries
// an empty one when none is given).
std::optional<ncrypto::EVPKeyPointer> ReadPrivateKeyPEM(
    Environment* env, std::string_view pem, std::string_view passphrase);
// d2i_PKCS12_bio() and PKCS12_parse() of `pfx` (as above) with `pass` (a
// NUL-terminated passphrase, or null) (SecureContext::LoadPKCS12()).
struct PKCS12Contents {
  bool parsed = false;  // both calls succeeded
  ncrypto::EVPKeyPointer pkey;
  ncrypto::X509Pointer cert;
  ncrypto::StackOfX509 extra_certs;
};
std::optional<PKCS12Contents> ReadPKCS12(Environment* env,
                                         std::string_view pfx,
                                         const char* pass);

// A job's copy of a caller's bytes (a key, a passphrase, a certificate),
// which keeps whether they were null (an empty memory BIO has no data, and
// what OpenSSL then does differs), wiped when the job is deleted: a key or a
// passphrase may be in it.
class InputCopy {
 public:
  explicit InputCopy(std::string_view in)
      : null_(in.data() == nullptr), bytes_(in) {}
  InputCopy(const InputCopy&) = delete;
  InputCopy& operator=(const InputCopy&) = delete;
  ~InputCopy() { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }

  const char* data() const { return null_ ? nullptr : bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  std::string_view view() const { return {data(), size()}; }

 private:
  const bool null_;
  std::string bytes_;
};

// Runs `job` inside a section of the calling thread's stop, so that it may
// leave for an executor (PriorityJob::Run()). The job once it returned,
// its errors on this thread's queue; or nullptr if the section was stopped
// first, with the TimeoutError thrown (`api` names the call).
template <typename T>
std::unique_ptr<T> RunStoppable(Environment* env,
                                const char* api,
                                std::unique_ptr<T> job) {
  StoppableSyncCall call;
  // A stop that came while the caller made the job (its copy of the input)
  // found no section to stop: taken here, before the job starts.
  if (call.entered() && EventLoopTimeout::ThrowIfSyncCallDue(env, api)) {
    return nullptr;
  }
  job = PriorityJob::Run(std::move(job));
  if (!job) {
    if (!call.ThrowIfStopped(env, api)) {
      // Not this section's stop (no other thread abandons the wait): as for
      // any stopped call, a TimeoutError rather than no result.
      v8::Local<v8::Value> error = EventLoopTimeout::StoppedCallError(env, api);
      if (!error.IsEmpty()) env->isolate()->ThrowException(error);
    }
    return nullptr;
  }
  if (call.Leave()) uv_sync_stop_take();  // Complete: V8 throws next.
  job->RaiseErrors();
  return job;
}

// Work on one input that has no callback to poll and grows with the input,
// in three forms below, by what the job holds so that an abandoned one
// reads nothing of its caller's: RunOnInput() (a copy of bytes),
// RunOnCert() (a parsed certificate) and RunOnMemoryBIO() (a loaded BIO).
// Each runs fn in place for an input of up to kParseInPlaceBytes, else in
// a HoldingJob as above. nullopt if the section was stopped first (the
// TimeoutError is thrown, `api` in its message); else fn's result, with
// OpenSSL's errors on the calling thread's queue. fn captures nothing by
// reference and touches nothing but what the job holds and OpenSSL.
constexpr size_t kParseInPlaceBytes = 64 << 10;

// A PriorityJob that runs fn(held.view()): `Held` is what Work() reads, the
// job's own (a copy, or a reference it took), made from the caller's
// arguments before the job can be abandoned.
template <typename Held, typename Fn>
class HoldingJob final : public PriorityJob {
 public:
  using Result =
      std::invoke_result_t<Fn&, decltype(std::declval<const Held&>().view())>;
  template <typename Arg>
  HoldingJob(const Arg& arg, Fn fn) : held_(arg), fn_(std::move(fn)) {}
  std::optional<Result>& result() { return result_; }

 protected:
  void Work() override { result_.emplace(fn_(held_.view())); }

 private:
  const Held held_;
  Fn fn_;
  std::optional<Result> result_;
};

template <typename Held, typename Arg, typename Fn>
auto RunHolding(Environment* env, const char* api, const Arg& arg, Fn fn) {
  auto job = RunStoppable(
      env, api, std::make_unique<HoldingJob<Held, Fn>>(arg, std::move(fn)));
  using Result = typename HoldingJob<Held, Fn>::Result;
  if (!job) return std::optional<Result>();
  return std::optional<Result>(std::move(job->result()));
}

// fn(input): the bytes of one input (an ASN.1 parse), the job's a copy of
// them (InputCopy, wiped).
template <typename Fn>
auto RunOnInput(Environment* env,
                const char* api,
                std::string_view input,
                Fn fn) -> std::optional<std::invoke_result_t<Fn&, std::string_view>> {
  if (input.size() <= kParseInPlaceBytes) return fn(input);
  return RunHolding<InputCopy>(env, api, input, std::move(fn));
}

// fn(view): a parsed certificate's work that grows with it: its names and
// extensions printed (subjectAltName of a 10 MiB certificate of 500,000
// names: 200 ms), searched (checkHost(), checkEmail(), checkIP(): about
// 100 ms) or encoded (toString()'s PEM: 46 ms). Over kParseInPlaceBytes of
// DER (LongCertificate()), the job holds a reference of its own to the
// certificate (X509_up_ref()): an abandoned job reads it until it returns,
// whatever becomes of the X509Certificate meanwhile. It only reads it, as
// the loop thread may at the same time (nothing changes a parsed
// certificate).
bool LongCertificate(const ncrypto::X509View& view);

class CertReference {
 public:
  explicit CertReference(const ncrypto::X509View& view) {
    CHECK_EQ(X509_up_ref(view.get()), 1);
    cert_ = ncrypto::X509Pointer(view.get());
  }
  ncrypto::X509View view() const { return cert_.view(); }

 private:
  ncrypto::X509Pointer cert_;
};

template <typename Fn>
auto RunOnCert(Environment* env,
               const char* api,
               const ncrypto::X509View& view,
               Fn fn)
    -> std::optional<std::invoke_result_t<Fn&, const ncrypto::X509View&>> {
  if (!LongCertificate(view)) return fn(view);
  return RunHolding<CertReference>(env, api, view, std::move(fn));
}

// fn(key): a private-key operation whose cost grows with the key, not with
// its input: an RSA private operation (privateDecrypt(), privateEncrypt(),
// sign.sign()) with a key of 16,384 bits, which a tenant may upload, took
// about a second. With a key of more than kOpInPlaceKeyBits (LongKey()), in
// a callback whose synchronous calls a timeout would stop, the job holds a
// reference of its own to the key (EVP_PKEY_up_ref()), and fn must own
// copies of its other inputs (ToCopy(), never a view of JS memory): an
// abandoned job uses the key until it returns, whatever becomes of the
// KeyObject meanwhile, as OpenSSL lets threads share a key (what it caches
// in one, RSA's Montgomery contexts and blinding, it sets under the key's
// lock, as for upstream's asynchronous sign()). Otherwise fn runs in place.
constexpr int kOpInPlaceKeyBits = 4096;
bool LongKey(const ncrypto::EVPKeyPointer& key);

class KeyReference {
 public:
  explicit KeyReference(const ncrypto::EVPKeyPointer& key) {
    CHECK_EQ(EVP_PKEY_up_ref(key.get()), 1);
    key_ = ncrypto::EVPKeyPointer(key.get());
  }
  const ncrypto::EVPKeyPointer& view() const { return key_; }

 private:
  ncrypto::EVPKeyPointer key_;
};

template <typename Fn>
auto RunOnKey(Environment* env,
              const char* api,
              const ncrypto::EVPKeyPointer& key,
              Fn fn)
    -> std::optional<
        std::invoke_result_t<Fn&, const ncrypto::EVPKeyPointer&>> {
  if (!LongKey(key) || !EventLoopTimeout::SyncCallsStoppable(env)) {
    return fn(key);
  }
  return RunHolding<KeyReference>(env, api, key, std::move(fn));
}

// crypto.sign() (SignJob, synchronous): with a long key (as RunOnKey()), in
// a callback whose synchronous calls a timeout would stop, the signature is
// made by SignTraits::DeriveBits() on the Priority Executor, on a
// SignConfiguration of the job's own: a reference to the key
// (KeyObjectData::addRef()) and copies of the data and the context string.
// It runs there as for an asynchronous crypto.sign(): without the
// Environment, throwing nothing.
//   kInPlace  not taken (no budget, a short key, crypto.verify()), or it
//             failed without a reason on OpenSSL's queue (a context string
//             the key refuses): the caller runs it in place, where it
//             fails again, as upstream, before the key operation
//   kStopped  the TimeoutError "Synchronous crypto.sign stopped" is thrown
//   kFailed   OpenSSL's reason is on the calling thread's queue
//   kSigned   *out holds the signature
class ByteSource;
struct SignConfiguration;
enum class SignOnKeyResult { kInPlace, kStopped, kFailed, kSigned };
SignOnKeyResult SignOnKey(Environment* env,
                          const SignConfiguration& params,
                          ByteSource* out);

// X509Pointer::Parse() of a certificate of more than kParseInPlaceBytes
// (new X509Certificate() of a client's upload: one of 500,000 names took
// 70 ms as a 14 MB PEM): RunOnInput().
std::optional<ncrypto::Result<ncrypto::X509Pointer, int>> ParseX509(
    Environment* env, const ncrypto::Buffer<const unsigned char>& buffer);

// fn(in): reads of the bytes of a memory BIO (LoadBIO()'s) through `in`, a
// read-only memory BIO over the same bytes (null if OpenSSL could not make
// one): the PEM that tls.createSecureContext() reads from its `cert`, `ca`
// and `crl`, linear in the text at ASN.1 speed (a certificate of 13 MiB of
// PEM: 145 ms), which an application may take from its users. Over
// kParseInPlaceBytes, the job holds a reference of its own to the BIO
// (BIO_up_ref()), so that its bytes outlive an abandoned job's reads
// without a copy (nothing writes to the BIO once it is loaded).
ncrypto::BIOPointer ReadOnlyBIO(const ncrypto::BIOPointer& bio);

class BIOReference {
 public:
  explicit BIOReference(const ncrypto::BIOPointer& bio) {
    CHECK_EQ(BIO_up_ref(bio.get()), 1);
    bio_ = ncrypto::BIOPointer(bio.get());
  }
  ncrypto::BIOPointer view() const { return ReadOnlyBIO(bio_); }

 private:
  ncrypto::BIOPointer bio_;
};

template <typename Fn>
auto RunOnMemoryBIO(Environment* env,
                    const char* api,
                    const ncrypto::BIOPointer& bio,
                    Fn fn)
    -> std::optional<std::invoke_result_t<Fn&, const ncrypto::BIOPointer&>> {
  char* data = nullptr;
  if (BIO_get_mem_data(bio.get(), &data) <= static_cast<long>(  // NOLINT
                                               kParseInPlaceBytes)) {
    return fn(ReadOnlyBIO(bio));
  }
  return RunHolding<BIOReference>(env, api, bio, std::move(fn));
}

// The squeeze of an XOF output of `length` bytes from *ctx (hash.digest()
// with an outputLength a request may pass: 64 MiB of SHAKE256 took 0.29 s),
// for an output of more than kSqueezeInPlaceBytes: a PriorityJob that takes
// *ctx with it and gives it back. nullopt if the section was stopped first
// (the TimeoutError "Synchronous hash.digest stopped" is thrown, and *ctx,
// the job's now, is empty); else the output, empty on failure (OpenSSL's
// errors on the calling thread's queue).
constexpr size_t kSqueezeInPlaceBytes = 64 << 10;
std::optional<ncrypto::DataPointer> SqueezeXOF(Environment* env,
                                               ncrypto::EVPMDCtxPointer* ctx,
                                               size_t length);

// exportKeyingMaterial() (SSL_export_keying_material()) of more than
// kSqueezeInPlaceBytes on a TLS 1.2 connection: the PRF runs over the
// length its caller passes, two HMACs per 32 bytes of output (16 MiB took
// about 2 s), with no callback. TLS 1.3's exporter is HKDF, whose
// output is at most 255 hashes long. Inside a section that
// --event-loop-timeout may stop, a PriorityJob on copies of the
// session's master secret (wiped when the job is deleted) and of the seed
// (the label, both randoms and the context, as OpenSSL's
// tls1_export_keying_material() builds it) runs the same PRF (the TLS1-PRF
// KDF with the suite's PRF digest) into an output of its own; the
// connection itself stays on the loop thread. OpenSSL first runs the same
// export in place for 32 bytes, so that a label or a state that it refuses
// fails as upstream's call does, and the job's output must begin with those
// bytes: a protocol, suite or session that this mirror would get wrong runs
// upstream's call instead.
enum class LongExport {
  kInPlace,  // not handled here: run upstream's call
  kStopped,  // the section was stopped first: the TimeoutError is thrown
  kDone,     // *out holds the output
};
LongExport ExportLongKeyingMaterial(Environment* env,
                                    SSL* ssl,
                                    size_t length,
                                    std::string_view label,
                                    const unsigned char* context,
                                    size_t context_length,
                                    bool use_context,
                                    ncrypto::DataPointer* out);

}  // namespace crypto
}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_CRYPTO_CRYPTO_PRIORITY_JOB_H_
