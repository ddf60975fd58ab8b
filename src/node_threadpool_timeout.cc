#include "node_threadpool_timeout.h"

#include <stdio.h>
#include <stdlib.h>  // on_exit() (glibc)
#include <unistd.h>  // _exit()

#include <atomic>
#include <cstdlib>
#include <unordered_map>

#include "async_wrap-inl.h"
#include "base_object-inl.h"
#include "env-inl.h"
#include "node_errors.h"
#include "node_file.h"
#include "node_internals.h"
#include "node_external_reference.h"
#include "node_realm-inl.h"
#include "req_wrap-inl.h"
#include "util-inl.h"

namespace node {

using v8::Context;
using v8::EscapableHandleScope;
using v8::Exception;
using v8::Function;
using v8::FunctionCallbackInfo;
using v8::HandleScope;
using v8::Integer;
using v8::Isolate;
using v8::Local;
using v8::MaybeLocal;
using v8::Number;
using v8::Object;
using v8::String;
using v8::Undefined;
using v8::Value;

namespace {

// The fs request whose timeout has just put its resource on the slow-resource
// list: libuv calls OnSlowResourceMarked() on the request's loop thread right
// before the request's callback, which ends in KeepFsRequest() on the same
// thread.
thread_local const uv_fs_t* marked_request = nullptr;

void OnSlowResourceMarked(const uv_fs_t* req) {
  marked_request = req;
}

// At exit(): work the threadpool abandoned, or kept past its budget, may
// still be running inside OpenSSL or another library whose exit handlers
// free what it uses. OpenSSL's cleanup is registered before main() (Node
// 24's ncrypto initializes OpenSSL from static constructors, so
// OPENSSL_INIT_NO_ATEXIT at startup comes too late) and the destructors of
// static objects before this handler, so they run after it. Abandoned work
// owns what it touches until it returns: while any is live the process ends
// here, stdio flushed and reset (node.cc's own atexit(ResetStdio) is among
// the handlers skipped), without the handlers after this one (a DSA key
// generation abandoned at exit took a SIGSEGV in OpenSSL's RAND lock in 18
// of 30 runs without this). Registered once, when a budget is first set.
void EndWithoutExitHandlersIfAbandoned(int status, void*) {
  uv_threadpool_stats_t stats;
  uv_threadpool_get_stats(&stats);
  if (stats.abandoned_live == 0 && stats.kept_live == 0) return;
  fflush(nullptr);
  ResetStdio();
  _exit(status);
}

// What a timed-out task may still touch, until libuv reclaims it.
struct AbandonedTask {
  Environment* env;
  BaseObjectPtr<AsyncWrap> object;
  ThreadPoolTimeout::ReleaseCallback release;
  void* data;
  uv_fs_t* fs_req;   // uv_fs_req_cleanup() at reclaim, if set
  uv_buf_t managed;  // Environment::release_managed_buffer() at reclaim
  BaseObject* held;  // held strongly by `object` (see HoldFor())
  bool orphaned;
  // The memory of the Buffers an abandoned fs read or write uses
  // (FSReqBase::PinnedBuffers()): a detach after the TimeoutError cannot
  // free it.
  std::vector<std::shared_ptr<v8::BackingStore>> pinned;
};

// A kept object may itself hold another BaseObject strongly: an FSReqBase
// holds its realm's fs BindingData. If the Environment goes first, the
// realm's cleanup only Detach()es that one too, and it must be untracked
// once, however many kept requests hold it: how many do, per object (an
// object belongs to one Environment, so to one thread).
thread_local std::unordered_map<BaseObject*, size_t> held_count;

void OnHeldObjectOrphaned(void* arg) {
  BaseObject* held = static_cast<BaseObject*>(arg);
  held_count.erase(held);
  // Leaked with the requests that hold it (see OnEnvironmentCleanup()).
  held->realm()->UntrackBaseObject(held);
}

void HoldFor(Environment* env, BaseObject* held) {
  if (held != nullptr && ++held_count[held] == 1)
    env->AddCleanupHook(OnHeldObjectOrphaned, held);
}

void ReleaseFor(Environment* env, BaseObject* held) {
  if (held == nullptr) return;
  auto it = held_count.find(held);
  CHECK_NE(it, held_count.end());
  if (--it->second == 0) {
    held_count.erase(it);
    env->RemoveCleanupHook(OnHeldObjectOrphaned, held);
  }
}

}  // namespace

// The Environment goes before the task returns: leak what the task may
// still touch, and make sure nothing in the realm waits for it.
static void OnEnvironmentCleanup(void* arg) {
  AbandonedTask* task = static_cast<AbandonedTask*>(arg);
  task->orphaned = true;
  // The read may still fill it: out of the Environment's hands, leaked.
  if (task->managed.base != nullptr)
    USE(task->env->release_managed_buffer(task->managed).release());
  if (task->object) {
    AsyncWrap* object = task->object.get();
    // Realm::~Realm() checks that every BaseObject was deleted; this one is
    // leaked on purpose (bounded by libuv's cap on abandoned threads), with
    // its strong pointer, so the realm's own cleanup only Detach()es it.
    object->realm()->UntrackBaseObject(object);
    new BaseObjectPtr<AsyncWrap>(std::move(task->object));
  }
  // Leaked with it: the read may still fill them after the isolate went.
  if (!task->pinned.empty())
    new std::vector<std::shared_ptr<v8::BackingStore>>(
        std::move(task->pinned));
}

// On the loop thread, once the abandoned work has returned.
static void OnTaskReclaimed(void* arg) {
  AbandonedTask* task = static_cast<AbandonedTask*>(arg);
  if (task->orphaned) {
    delete task;
    return;
  }
  Environment* env = task->env;
  env->RemoveCleanupHook(OnEnvironmentCleanup, task);
  ReleaseFor(env, task->held);
  HandleScope handle_scope(env->isolate());
  // The release callbacks may call into JS (N-API's `complete`).
  Context::Scope context_scope(env->context());
  if (task->fs_req != nullptr) uv_fs_req_cleanup(task->fs_req);
  if (task->managed.base != nullptr)
    env->release_managed_buffer(task->managed);  // Freed here.
  AsyncWrap* object = task->object.get();
  ThreadPoolTimeout::ReleaseCallback release = task->release;
  void* data = task->data;
  if (task->fs_req != nullptr && object != nullptr) object->Detach();
  task->object.reset();  // Deletes a detached request wrap.
  delete task;
  if (release != nullptr) release(object, data);
}

// require('internal/cure/threadpool')[name], or an empty handle.
static MaybeLocal<Function> LibFunction(Environment* env, const char* name) {
  Isolate* isolate = env->isolate();
  Local<Context> context = env->context();
  Local<Function> require = env->principal_realm()->builtin_module_require();
  if (require.IsEmpty()) return {};
  Local<Value> id = OneByteString(isolate, "internal/cure/threadpool");
  Local<Value> exports;
  Local<Value> fn;
  if (!require->Call(context, v8::Null(isolate), 1, &id).ToLocal(&exports) ||
      !exports->IsObject() ||
      !exports.As<Object>()
           ->Get(context, OneByteString(isolate, name))
           .ToLocal(&fn) ||
      !fn->IsFunction()) {
    return {};
  }
  return fn.As<Function>();
}

static Local<Value> StringOrUndefined(Isolate* isolate, const char* s) {
  if (s == nullptr) return Undefined(isolate);
  Local<String> str;
  if (!String::NewFromUtf8(isolate, s).ToLocal(&str))
    return Undefined(isolate);
  return str;
}

// Calls fn(...argv) of lib/internal/cure/threadpool.js in the async context
// of `wrap` if given (a subscriber's error is reported by
// diagnostics_channel itself), else in none.
static void CallLib(Environment* env,
                    AsyncWrap* wrap,
                    Local<Function> fn,
                    int argc,
                    Local<Value>* argv) {
  if (wrap != nullptr) {
    USE(wrap->MakeCallback(fn, argc, argv));
    return;
  }
  errors::TryCatchScope try_catch(env);
  USE(fn->Call(env->context(), Undefined(env->isolate()), argc, argv));
}

// Publishes 'cure:threadpool-timeout' (and 'cure:slow-resource') through
// lib/internal/cure/threadpool.js, in the async context of `wrap` if given,
// so that a subscriber sees the request's AsyncLocalStorage. Costs one JS
// call per timeout, nothing per request.
static void Publish(Environment* env,
                    AsyncWrap* wrap,
                    const ThreadPoolTimeout::Event& event,
                    bool slow_resource) {
  if (!env->can_call_into_js()) return;
  Isolate* isolate = env->isolate();
  HandleScope handle_scope(isolate);
  Context::Scope context_scope(env->context());
  Local<Function> active;
  Local<Function> publish;
  {
    errors::TryCatchScope try_catch(env);
    Local<Value> yes;
    if (!LibFunction(env, "threadpoolChannelsActive").ToLocal(&active) ||
        !active->Call(env->context(), Undefined(isolate), 0, nullptr)
             .ToLocal(&yes) ||
        !yes->IsTrue() ||
        !LibFunction(env, "publishThreadpoolTimeout").ToLocal(&publish)) {
      return;
    }
  }
  Local<Value> argv[] = {
      OneByteString(isolate, event.kind),
      Integer::New(isolate, event.status),
      StringOrUndefined(isolate, event.syscall),
      StringOrUndefined(isolate, event.path),
      v8::Boolean::New(isolate, slow_resource),
  };
  CallLib(env, wrap, publish, arraysize(argv), argv);
}

void ThreadPoolTimeout::Apply(const std::string& option,
                              const std::string& action) {
  // Validated by CheckTimeoutOption() and CheckTimeoutActionOption()
  // (src/node_options.cc).
  if (action == "report") SetReportOnly(true);
  uint64_t ms = std::strtoull(option.c_str(), nullptr, 10);
  if (ms != 0) SetBudget(ms);
}

// The name of an fs request's call, for reports (as Node's syscall names).
static const char* FsCallName(uv_fs_type type) {
  switch (type) {
    case UV_FS_OPEN: return "open";
    case UV_FS_CLOSE: return "close";
    case UV_FS_READ: return "read";
    case UV_FS_WRITE: return "write";
    case UV_FS_SENDFILE: return "sendfile";
    case UV_FS_STAT: return "stat";
    case UV_FS_LSTAT: return "lstat";
    case UV_FS_FSTAT: return "fstat";
    case UV_FS_FTRUNCATE: return "ftruncate";
    case UV_FS_UTIME: return "utime";
    case UV_FS_FUTIME: return "futime";
    case UV_FS_ACCESS: return "access";
    case UV_FS_CHMOD: return "chmod";
    case UV_FS_FCHMOD: return "fchmod";
    case UV_FS_FSYNC: return "fsync";
    case UV_FS_FDATASYNC: return "fdatasync";
    case UV_FS_UNLINK: return "unlink";
    case UV_FS_RMDIR: return "rmdir";
    case UV_FS_MKDIR: return "mkdir";
    case UV_FS_MKDTEMP: return "mkdtemp";
    case UV_FS_RENAME: return "rename";
    case UV_FS_SCANDIR: return "scandir";
    case UV_FS_LINK: return "link";
    case UV_FS_SYMLINK: return "symlink";
    case UV_FS_READLINK: return "readlink";
    case UV_FS_CHOWN: return "chown";
    case UV_FS_FCHOWN: return "fchown";
    case UV_FS_REALPATH: return "realpath";
    case UV_FS_COPYFILE: return "copyfile";
    case UV_FS_LCHOWN: return "lchown";
    case UV_FS_OPENDIR: return "opendir";
    case UV_FS_READDIR: return "readdir";
    case UV_FS_CLOSEDIR: return "closedir";
    case UV_FS_STATFS: return "statfs";
    case UV_FS_MKSTEMP: return "mkstemp";
    case UV_FS_LUTIME: return "lutime";
    default: return nullptr;
  }
}

// Publishes a report of a task past its budget through
// lib/internal/cure/threadpool.js (the channel and the process warning), in
// the async context of `wrap` if given. One JS call per report.
static void PublishReport(Environment* env,
                          AsyncWrap* wrap,
                          const char* kind,
                          const char* syscall,
                          const char* resource,
                          uint64_t elapsed_ms) {
  if (!env->can_call_into_js()) return;
  Isolate* isolate = env->isolate();
  HandleScope handle_scope(isolate);
  Context::Scope context_scope(env->context());
  Local<Function> report;
  {
    errors::TryCatchScope try_catch(env);
    if (!LibFunction(env, "reportThreadpoolTimeout").ToLocal(&report)) return;
  }
  Local<Value> argv[] = {
      OneByteString(isolate, kind),
      StringOrUndefined(isolate, syscall),
      StringOrUndefined(isolate, resource),
      Number::New(isolate, static_cast<double>(elapsed_ms)),
  };
  CallLib(env, wrap, report, arraysize(argv), argv);
}

// libuv's report callback (uv_threadpool_set_report_cb()), on the loop
// thread of a task past its budget while the action is to report, before
// the request's done callback: the tagged object (TagScope) is alive.
static void OnReport(uv_loop_t* loop, void* tag, uint64_t elapsed_ms) {
  const uintptr_t bits = reinterpret_cast<uintptr_t>(tag);
  if (bits & ThreadPoolTimeout::TagScope::kWorkTag) {
    ThreadPoolWork* work = reinterpret_cast<ThreadPoolWork*>(
        bits & ~ThreadPoolTimeout::TagScope::kWorkTag);
    const ThreadPoolWork::TimeoutInfo info = work->GetTimeoutInfo();
    PublishReport(
        work->env(), info.owner, info.kind, info.name, nullptr, elapsed_ms);
    return;
  }
  AsyncWrap* wrap = static_cast<AsyncWrap*>(tag);
  CHECK_EQ(wrap->env()->event_loop(), loop);
  switch (wrap->provider_type()) {
    case AsyncWrap::PROVIDER_GETADDRINFOREQWRAP: {
      // libuv's copy of the host name: the work only reads it.
      uv_getaddrinfo_t* req =
          static_cast<ReqWrap<uv_getaddrinfo_t>*>(wrap)->req();
      PublishReport(wrap->env(),
                    wrap,
                    "dns",
                    "getaddrinfo",
                    req->hostname,
                    elapsed_ms);
      return;
    }
    case AsyncWrap::PROVIDER_GETNAMEINFOREQWRAP: {
      uv_getnameinfo_t* req =
          static_cast<ReqWrap<uv_getnameinfo_t>*>(wrap)->req();
      char ip[INET6_ADDRSTRLEN] = "";
      uv_ip_name(reinterpret_cast<const sockaddr*>(&req->storage),
                 ip,
                 sizeof(ip));
      PublishReport(
          wrap->env(), wrap, "dns", "getnameinfo", ip, elapsed_ms);
      return;
    }
    default: {
      // The other requests that opt in are fs requests (OptIn).
      uv_fs_t* req = static_cast<ReqWrap<uv_fs_t>*>(wrap)->req();
      PublishReport(wrap->env(),
                    wrap,
                    "fs",
                    FsCallName(req->fs_type),
                    req->path,
                    elapsed_ms);
      return;
    }
  }
}

void ThreadPoolTimeout::SetReportOnly(bool report) {
  uv_threadpool_set_report_cb(OnReport);
  CHECK_EQ(uv_threadpool_set_action(report ? UV_THREADPOOL_ACTION_REPORT
                                           : UV_THREADPOOL_ACTION_STOP),
           0);
}

uint64_t ThreadPoolTimeout::budget() {
  return uv_threadpool_get_timeout();
}

void ThreadPoolTimeout::SetBudget(uint64_t ms) {
  if (ms != 0 && !ever_enabled_.exchange(true)) {
    uv_fs_slow_resource_set_cb(OnSlowResourceMarked);
    CHECK_EQ(on_exit(EndWithoutExitHandlersIfAbandoned, nullptr), 0);
  }
  CHECK_EQ(uv_threadpool_set_timeout(ms), 0);
}

const char* ThreadPoolTimeout::ErrorCode(int64_t errorno) {
  // As codeOf() in lib/internal/cure/threadpool.js.
  switch (errorno) {
    case UV_ESLOWRESOURCE:
      return "ERR_SLOW_RESOURCE";
    case UV_EPOOLSTALLED:
      return "ERR_THREADPOOL_STALLED";
    default:
      return "ERR_THREADPOOL_TIMEOUT";
  }
}

// err.outcome: what became of the request. 'none': it did nothing and
// never will (it stopped, never ran, or was refused); 'unknown': it was
// abandoned while it ran and may still take effect, fully or in part. Known
// only in the request's done callback (undefined elsewhere, e.g. for an
// ETIMEDOUT of the kernel's own).
static Local<Value> Outcome(Isolate* isolate, int errorno) {
  const int stopped =
      errorno == UV_ESLOWRESOURCE || errorno == UV_EPOOLSTALLED
          ? 1
          : uv_threadpool_work_stopped();
  if (stopped < 0) return Undefined(isolate);
  return stopped ? FIXED_ONE_BYTE_STRING(isolate, "none")
                 : FIXED_ONE_BYTE_STRING(isolate, "unknown");
}

Local<Value> ThreadPoolTimeout::UVException(Isolate* isolate,
                                            int errorno,
                                            const char* syscall,
                                            const char* path,
                                            const char* dest) {
  Environment* env = Environment::GetCurrent(isolate);
  CHECK_NOT_NULL(env);
  EscapableHandleScope scope(isolate);
  Local<Context> context = env->context();
  Local<Value> argv[] = {
      Integer::New(isolate, errorno),
      StringOrUndefined(isolate, syscall),
      StringOrUndefined(isolate, path),
      StringOrUndefined(isolate, dest),
      Undefined(isolate),  // hostname
      Outcome(isolate, errorno),
  };
  if (env->can_call_into_js()) {
    errors::TryCatchScope try_catch(env);
    Local<Function> create;
    Local<Value> error;
    if (LibFunction(env, "createThreadpoolError").ToLocal(&create) &&
        create->Call(context, Undefined(isolate), arraysize(argv), argv)
            .ToLocal(&error)) {
      return scope.Escape(error);
    }
  }
  // No JS: a plain Error with the same properties (not a TimeoutError).
  Local<Object> e = Exception::Error(OneByteString(
                        isolate, uv_timeout_strerror(errorno)))
                        .As<Object>();
  const char* code = ErrorCode(errorno);
  USE(e->Set(context, env->errno_string(), argv[0]));
  USE(e->Set(context, env->code_string(), OneByteString(isolate, code)));
  USE(e->Set(context, env->syscall_string(), argv[1]));
  if (path != nullptr) USE(e->Set(context, env->path_string(), argv[2]));
  if (dest != nullptr) USE(e->Set(context, env->dest_string(), argv[3]));
  if (!argv[5]->IsUndefined())
    USE(e->Set(context, FIXED_ONE_BYTE_STRING(isolate, "outcome"), argv[5]));
  return scope.Escape(e);
}

Local<Value> ThreadPoolTimeout::WorkError(Environment* env,
                                          int status,
                                          const char* kind,
                                          const char* name) {
  Isolate* isolate = env->isolate();
  EscapableHandleScope scope(isolate);
  Local<Value> argv[] = {
      Integer::New(isolate, status),
      OneByteString(isolate, kind),
      StringOrUndefined(isolate, name),
  };
  {
    errors::TryCatchScope try_catch(env);
    Local<Function> create;
    Local<Value> error;
    if (LibFunction(env, "createWorkTimeoutError").ToLocal(&create) &&
        create->Call(env->context(), Undefined(isolate), arraysize(argv), argv)
            .ToLocal(&error)) {
      return scope.Escape(error);
    }
  }
  Local<Object> e = Exception::Error(OneByteString(
                        isolate, uv_timeout_strerror(status)))
                        .As<Object>();
  USE(e->Set(env->context(), env->errno_string(), argv[0]));
  USE(e->Set(env->context(),
             env->code_string(),
             OneByteString(isolate, ErrorCode(status))));
  return scope.Escape(e);
}

static bool Keep(Environment* env,
                 AsyncWrap* object,
                 ThreadPoolTimeout::ReleaseCallback release,
                 void* data,
                 uv_fs_t* fs_req,
                 uv_buf_t managed,
                 BaseObject* held,
                 fs::FSReqBase* pinning) {
  AbandonedTask* task = new AbandonedTask{env,
                                          BaseObjectPtr<AsyncWrap>(object),
                                          release,
                                          data,
                                          fs_req,
                                          managed,
                                          held,
                                          false,
                                          {}};
  if (pinning != nullptr) task->pinned = pinning->PinnedBuffers();
  // Only valid inside the done callback of a task that timed out.
  if (uv_threadpool_on_reclaim(OnTaskReclaimed, task) != 0) {
    task->object.reset();
    delete task;
    return false;
  }
  env->AddCleanupHook(OnEnvironmentCleanup, task);
  HoldFor(env, held);
  return true;
}

bool ThreadPoolTimeout::KeepUntilReclaimed(Environment* env,
                                           AsyncWrap* object,
                                           ReleaseCallback release,
                                           void* data,
                                           const Event& event) {
  if (!Keep(env,
            object,
            release,
            data,
            nullptr,
            uv_buf_init(nullptr, 0),
            nullptr,
            nullptr))
    return false;
  Publish(env, object, event, false);
  return true;
}

static bool KeepFs(AsyncWrap* wrap,
                   uv_fs_t* req,
                   const char* syscall,
                   uv_buf_t managed,
                   BaseObject* held,
                   fs::FSReqBase* pinning) {
  if (!ThreadPoolTimeout::IsTimeout(req->result)) return false;
  const bool marked = marked_request == req;
  marked_request = nullptr;
  Environment* env = wrap->env();
  if (!Keep(env, wrap, nullptr, nullptr, req, managed, held, pinning))
    return false;
  // req->path is libuv's copy: the abandoned work only reads it.
  Publish(env,
          wrap,
          ThreadPoolTimeout::Event{
              "fs", syscall, req->path, static_cast<int>(req->result)},
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
  Local<Value> error = WorkError(env, status, "crypto", name);
  if (reject != nullptr) {
    InternalCallbackScope callback_scope(job);
    reject(job, error);
    return;
  }
  USE(job->MakeCallback(env->ondone_string(), 1, &error));
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
      OneByteString(isolate, ErrorCode(status))};
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

// internalBinding('cure'): the threadpool half.

static void GetThreadpoolTimeout(const FunctionCallbackInfo<Value>& args) {
  args.GetReturnValue().Set(
      static_cast<double>(ThreadPoolTimeout::budget()));
}

// Whether a budget was ever set: only then is a UV_ETIMEDOUT ours.
static void IsThreadpoolTimeoutEverEnabled(
    const FunctionCallbackInfo<Value>& args) {
  args.GetReturnValue().Set(ThreadPoolTimeout::ever_enabled());
}

// 0: a task past its budget is stopped (throw), 1: only reported.
static void GetThreadpoolTimeoutAction(
    const FunctionCallbackInfo<Value>& args) {
  args.GetReturnValue().Set(ThreadPoolTimeout::report_only() ? 1 : 0);
}

static void SetThreadpoolTimeoutAction(
    const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(env->is_main_thread());  // Checked in JS: the pool is process-wide.
  CHECK(args[0]->IsUint32());
  const uint32_t action = args[0].As<v8::Uint32>()->Value();
  CHECK_LE(action, 1);  // Validated in JS.
  ThreadPoolTimeout::SetReportOnly(action == 1);
}

static void SetThreadpoolTimeout(const FunctionCallbackInfo<Value>& args) {
  Environment* env = Environment::GetCurrent(args);
  CHECK(env->is_main_thread());  // Checked in JS: the pool is process-wide.
  CHECK(args[0]->IsNumber());
  double ms = args[0].As<Number>()->Value();
  CHECK(ms >= 0 && ms <= 2147483647);  // Validated in JS.
  ThreadPoolTimeout::SetBudget(static_cast<uint64_t>(ms));
}

// getThreadpoolStats(): the uv_threadpool_stats_t counters, in order.
static void GetThreadpoolStats(const FunctionCallbackInfo<Value>& args) {
  Isolate* isolate = args.GetIsolate();
  uv_threadpool_stats_t stats;
  uv_threadpool_get_stats(&stats);
  const uint64_t counters[] = {stats.timed_out,
                               stats.extended,
                               stats.abandoned,
                               stats.abandoned_live,
                               stats.cap_hits,
                               stats.slow_resources,
                               stats.slow_resource_marks,
                               stats.slow_resource_hits,
                               stats.kept_live,
                               stats.stalled,
                               stats.reported,
                               stats.hopped};
  Local<Value> values[arraysize(counters)];
  for (size_t i = 0; i < arraysize(counters); i++)
    values[i] = Number::New(isolate, static_cast<double>(counters[i]));
  args.GetReturnValue().Set(
      v8::Array::New(isolate, values, arraysize(values)));
}

static void ClearSlowResources(const FunctionCallbackInfo<Value>& args) {
  uv_fs_slow_resource_clear();
}

void ThreadPoolTimeout::InitializeBinding(Local<Context> context,
                                          Local<Object> target) {
  Isolate* isolate = context->GetIsolate();
  SetMethodNoSideEffect(
      context, target, "getThreadpoolTimeout", GetThreadpoolTimeout);
  SetMethodNoSideEffect(context,
                        target,
                        "isThreadpoolTimeoutEverEnabled",
                        IsThreadpoolTimeoutEverEnabled);
  SetMethod(context, target, "setThreadpoolTimeout", SetThreadpoolTimeout);
  SetMethodNoSideEffect(
      context, target, "getThreadpoolTimeoutAction", GetThreadpoolTimeoutAction);
  SetMethod(
      context, target, "setThreadpoolTimeoutAction", SetThreadpoolTimeoutAction);
  SetMethodNoSideEffect(
      context, target, "getThreadpoolStats", GetThreadpoolStats);
  SetMethod(context, target, "clearSlowResources", ClearSlowResources);
  // The uv error numbers of lib/internal/cure/threadpool.js.
  USE(target->Set(context,
                  FIXED_ONE_BYTE_STRING(isolate, "UV_ETIMEDOUT"),
                  Integer::New(isolate, UV_ETIMEDOUT)));
  USE(target->Set(context,
                  FIXED_ONE_BYTE_STRING(isolate, "UV_EABANDONCAP"),
                  Integer::New(isolate, UV_EABANDONCAP)));
  USE(target->Set(context,
                  FIXED_ONE_BYTE_STRING(isolate, "UV_ESLOWRESOURCE"),
                  Integer::New(isolate, UV_ESLOWRESOURCE)));
  USE(target->Set(context,
                  FIXED_ONE_BYTE_STRING(isolate, "UV_EPOOLSTALLED"),
                  Integer::New(isolate, UV_EPOOLSTALLED)));
}

void ThreadPoolTimeout::RegisterExternalReferences(
    ExternalReferenceRegistry* registry) {
  registry->Register(GetThreadpoolTimeout);
  registry->Register(IsThreadpoolTimeoutEverEnabled);
  registry->Register(SetThreadpoolTimeout);
  registry->Register(GetThreadpoolTimeoutAction);
  registry->Register(SetThreadpoolTimeoutAction);
  registry->Register(GetThreadpoolStats);
  registry->Register(ClearSlowResources);
}

}  // namespace node
