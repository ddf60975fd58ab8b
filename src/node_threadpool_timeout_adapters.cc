// nodecure: --threadpool-timeout's adapters, one per kind of pooled work
// (ThreadPoolTimeout, src/node_threadpool_timeout.h). Each is called from
// its subsystem's done callback with a timeout status and decides, for
// that kind, what the abandoned task keeps (through Keep(),
// src/node_threadpool_timeout.cc) and how its JS callback learns of it:
//
//   fs       KeepFsRequest(): the request wrap, its uv_fs_t (cleanup
//            deferred), a managed read buffer, the Buffers' memory;
//            CompleteRefusedLater() for a request the slow-resource list
//            refused; the error is UVException()'s
//   dns      KeepDnsRequest(): the request wrap (getaddrinfo() may still
//            write its result); the error is DNSException's
//   crypto   AfterCryptoJobTimeout(): the job; ondone(TimeoutError) or
//            the WebCrypto promise's rejection
//   zlib     AfterZlibTimeout(): the stream; onerror() with the code
//   napi     AfterNapiWorkTimeout(): nothing of the addon's is freed;
//            `complete` runs once `execute` returned, the loop kept alive
//
// Loop thread only, as the done callbacks are.

#include "node_threadpool_timeout.h"

#include <string>

#include "async_wrap-inl.h"
#include "base_object-inl.h"
#include "env-inl.h"
#include "node_cure_errors.h"
#include "node_file.h"
#include "node_internals.h"
#include "req_wrap-inl.h"
#include "util-inl.h"

namespace node {

using v8::Context;
using v8::HandleScope;
using v8::Integer;
using v8::Isolate;
using v8::Local;
using v8::Object;
using v8::Value;

bool ThreadPoolTimeout::KeepFs(AsyncWrap* wrap,
                               uv_fs_t* req,
                               const char* syscall,
                               uv_buf_t managed,
                               BaseObject* held,
                               fs::FSReqBase* pinning) {
  if (!IsTimeout(req->result)) return false;
  const bool marked = TakeSlowResourceMark(req);
  Environment* env = wrap->env();
  if (!Keep(env, wrap, nullptr, nullptr, req, managed, held, pinning))
    return false;
  // req->path is libuv's copy: the abandoned work only reads it.
  Publish(env,
          wrap,
          Event{"fs", syscall, req->path, static_cast<int>(req->result)},
          marked);
  return true;
}

bool ThreadPoolTimeout::KeepFsRequest(AsyncWrap* wrap,
                                      uv_fs_t* req,
                                      const char* syscall,
                                      uv_buf_t managed) {
  return KeepFs(wrap, req, syscall, managed, nullptr, nullptr);
}

bool ThreadPoolTimeout::KeepFsRequest(fs::FSReqBase* wrap,
                                      uv_fs_t* req,
                                      const char* syscall) {
  return KeepFs(wrap,
                req,
                syscall,
                uv_buf_init(nullptr, 0),
                wrap->binding_data(),
                wrap);
}

void ThreadPoolTimeout::CompleteRefusedLater(AsyncWrap* wrap,
                                             uv_fs_t* req,
                                             uv_fs_cb after,
                                             const char* path) {
  // mkdtemp/mkstemp are never refused; their req->path would be freed by
  // uv_fs_req_cleanup() whatever req->cb is.
  const bool has_path = path != nullptr && req->fs_type != UV_FS_MKDTEMP &&
                        req->fs_type != UV_FS_MKSTEMP;
  wrap->env()->SetImmediate([keep = BaseObjectPtr<AsyncWrap>(wrap),
                             req,
                             after,
                             has_path,
                             copy = std::string(has_path ? path : "")](
                                Environment*) {
    // uv__slowres_check() already ran uv_fs_req_cleanup(): req->path is
    // null. Point it to our copy for the error; with req->cb cleared, the
    // uv_fs_req_cleanup() that `after` runs leaves it alone.
    req->result = UV_ESLOWRESOURCE;
    req->path = has_path ? copy.c_str() : nullptr;
    req->new_path = nullptr;
    req->cb = nullptr;
    after(req);
  });
}

bool ThreadPoolTimeout::KeepDnsRequest(AsyncWrap* wrap,
                                       int status,
                                       const char* syscall) {
  if (!IsTimeout(status)) return false;
  return KeepUntilReclaimed(wrap->env(),
                            wrap,
                            nullptr,
                            nullptr,
                            Event{"dns", syscall, nullptr, status});
}

void ThreadPoolTimeout::AfterCryptoJobTimeout(AsyncWrap* job,
                                              int status,
                                              const char* name,
                                              RejectCallback reject) {
  Environment* env = job->env();
  // The job (its params, its output) belongs to the abandoned work until it
  // returns; JS loses interest now.
  CHECK(KeepUntilReclaimed(
      env,
      job,
      [](AsyncWrap* job, void*) { delete job; },
      nullptr,
      Event{"crypto", name, nullptr, status}));
  if (!env->can_call_into_js()) return;
  HandleScope handle_scope(env->isolate());
  Context::Scope context_scope(env->context());
  Local<Object> error;
  // Empty only if V8 failed (an exception is pending).
  if (!NewWorkError(env, status, "crypto", name).ToLocal(&error)) return;
  if (reject != nullptr) {
    InternalCallbackScope callback_scope(job);
    reject(job, error);
    return;
  }
  Local<Value> argv[] = {error};
  USE(job->MakeCallback(env->ondone_string(), arraysize(argv), argv));
}

void ThreadPoolTimeout::AfterZlibTimeout(AsyncWrap* stream,
                                         int status,
                                         ReleaseCallback release) {
  Environment* env = stream->env();
  CHECK(KeepUntilReclaimed(
      env, stream, release, nullptr, Event{"zlib", nullptr, nullptr, status}));
  if (!env->can_call_into_js()) return;
  Isolate* isolate = env->isolate();
  HandleScope handle_scope(isolate);
  Context::Scope context_scope(env->context());
  Local<Value> argv[] = {
      OneByteString(isolate, uv_timeout_strerror(status)),
      Integer::New(isolate, status),
      OneByteString(isolate, cure::CodeString(cure::ThreadpoolCode(status)))};
  USE(stream->MakeCallback(env->onerror_string(), arraysize(argv), argv));
}

namespace {

// An abandoned Node-API work: the loop stays alive and the Environment's
// teardown waits until `execute` returned (OnNapiWorkReturned()).
struct NapiWait {
  Environment* env;
  uv_async_t keep_alive;  // ref'd: uv_run() does not return before us
  void (*complete)(void* work);
  void* work;
};

void OnNapiWorkReturned(AsyncWrap*, void* arg) {
  NapiWait* wait = static_cast<NapiWait*>(arg);
  wait->env->DecreaseWaitingRequestCounter();
  wait->complete(wait->work);
  uv_close(reinterpret_cast<uv_handle_t*>(&wait->keep_alive),
           [](uv_handle_t* handle) {
             NapiWait* done = ContainerOf(
                 &NapiWait::keep_alive, reinterpret_cast<uv_async_t*>(handle));
             delete done;
           });
}

}  // namespace

void ThreadPoolTimeout::AfterNapiWorkTimeout(Environment* env,
                                             int status,
                                             void* work,
                                             void (*complete)(void* work)) {
  NapiWait* wait = new NapiWait{env, {}, complete, work};
  CHECK_EQ(uv_async_init(env->event_loop(), &wait->keep_alive, nullptr), 0);
  env->IncreaseWaitingRequestCounter();
  CHECK(KeepUntilReclaimed(env,
                           nullptr,
                           OnNapiWorkReturned,
                           wait,
                           Event{"napi", nullptr, nullptr, status}));
}

}  // namespace node
