#include "crypto/crypto_priority_job.h"

#include <memory>
#include <string>
#include <utility>

#include "ncrypto.h"
#include "openssl/err.h"
#include "openssl/opensslv.h"
#include "uv/sync-stop.h"
#include "util.h"

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

PriorityJob* PriorityJob::RunJob(PriorityJob* job) {
  CHECK_NOT_NULL(job);
  if (!NODECURE_PRIORITY_JOBS || !uv_sync_stop_inside()) {
    job->Work();
    return job;
  }
  job->req_.data = job;
  switch (uv_priority_work(&job->req_, OnWork, OnAbandoned, 0)) {
    case 0:
      return job;
    case UV_ETIMEDOUT:
    case UV_ECANCELED:
      return nullptr;  // OnAbandoned() deletes it.
    default:
      // No executor (the cap on abandoned threads, no thread or memory):
      // Work() did not run. In place, as without the option.
      job->Work();
      return job;
  }
}

void PriorityJob::OnWork(uv_priority_work_t* req) {
  PriorityJob* job = static_cast<PriorityJob*>(req->data);
  job->Work();
  // The queue is the executor's: move its entries into the job, for
  // RaiseErrors() on the caller's thread (or for nobody, if abandoned).
  job->moved_errors_ = true;
#if NODECURE_PRIORITY_JOBS
  const char* data;
  int flags;
  while (unsigned long code =  // NOLINT(runtime/int)
         ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags)) {
    job->errors_.push_back(
        Error{code, (flags & ERR_TXT_STRING) && data != nullptr ? data : ""});
  }
#endif
}

void PriorityJob::OnAbandoned(uv_priority_work_t* req) {
  delete static_cast<PriorityJob*>(req->data);
}

void PriorityJob::RaiseErrors() {
  if (!moved_errors_) return;  // Ran in place: they are on this thread.
  moved_errors_ = false;
#if NODECURE_PRIORITY_JOBS
  for (const Error& e : errors_) {
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

}  // namespace crypto
}  // namespace node
