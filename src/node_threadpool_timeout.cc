// nodecure: --threadpool-timeout's core on the Node side (ThreadPoolTimeout,
// src/node_threadpool_timeout.h): the options and the exit handler; the
// keeping of what an abandoned task may still touch (Keep(), until libuv's
// reclaim callback or the Environment's cleanup, whichever comes first);
// the diagnostics_channel events and reports; the TimeoutErrors of
// threadpool requests (made by src/node_cure_errors.h's factory). The
// per-subsystem adapters are in src/node_threadpool_timeout_adapters.cc,
// the binding's methods in src/node_cure.cc.

#include "node_threadpool_timeout.h"

#include <stdio.h>
#include <stdlib.h>  // on_exit() (glibc)
#include <unistd.h>  // _exit()

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "async_wrap-inl.h"
#include "base_object-inl.h"
#include "env-inl.h"
#include "node_cure_errors.h"
#include "node_errors.h"
#include "node_file.h"
#include "node_internals.h"
#include "node_realm-inl.h"
#include "req_wrap-inl.h"
#include "util-inl.h"

namespace node {

using v8::Context;
using v8::EscapableHandleScope;
using v8::Exception;
using v8::Function;
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
// of 30 runs without this). Registered once (GuardExit()), when a budget
// is first set or --event-loop-timeout is first used.
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
void ThreadPoolTimeout::Publish(Environment* env,
                                AsyncWrap* wrap,
                                const Event& event,
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
      OneByteString(isolate,
                    cure::CodeString(cure::ThreadpoolCode(event.status))),
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
      OneByteString(isolate,
                    cure::CodeString(cure::TimeoutCode::kThreadpoolTimeout)),
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

bool ThreadPoolTimeout::TakeSlowResourceMark(const uv_fs_t* req) {
  const bool marked = marked_request == req;
  marked_request = nullptr;
  return marked;
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

void ThreadPoolTimeout::GuardExit() {
  static std::once_flag once;
  std::call_once(once, [] {
    CHECK_EQ(on_exit(EndWithoutExitHandlersIfAbandoned, nullptr), 0);
  });
}

void ThreadPoolTimeout::SetBudget(uint64_t ms) {
  if (ms != 0 && !ever_enabled_.exchange(true)) {
    uv_fs_slow_resource_set_cb(OnSlowResourceMarked);
    GuardExit();
  }
  CHECK_EQ(uv_threadpool_set_timeout(ms), 0);
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
  Local<Object> error;
  // Upstream's callers use the error as it comes: undefined, not an empty
  // handle, if V8 failed (an exception, e.g. termination, is pending).
  if (!NewThreadpoolError(env,
                          errorno,
                          syscall,
                          path,
                          dest,
                          nullptr,
                          Outcome(isolate, errorno))
           .ToLocal(&error)) {
    return scope.Escape(Undefined(isolate));
  }
  return scope.Escape(error);
}

// Shaped like upstream's UVException() and DNSException (lib/internal/
// errors.js): "<what became of it>, <syscall> '<path>' -> '<dest>'", for DNS
// "<...>, <syscall> <hostname>", with the properties errno, syscall, path,
// dest and hostname where given, and outcome unless undefined.
MaybeLocal<Object> ThreadPoolTimeout::NewThreadpoolError(
    Environment* env,
    int errorno,
    const char* syscall,
    const char* path,
    const char* dest,
    const char* hostname,
    Local<Value> outcome) {
  Isolate* isolate = env->isolate();
  EscapableHandleScope scope(isolate);
  Local<Context> context = env->context();
  std::string message = cure::ThreadpoolMessage(errorno);
  if (syscall != nullptr) message += std::string(", ") + syscall;
  if (path != nullptr) message += std::string(" '") + path + "'";
  if (dest != nullptr) message += std::string(" -> '") + dest + "'";
  if (hostname != nullptr) message += std::string(" ") + hostname;
  Local<Object> e;
  if (!cure::TimeoutErrors::New(env, cure::ThreadpoolCode(errorno), message)
           .ToLocal(&e) ||
      e->Set(context, env->errno_string(), Integer::New(isolate, errorno))
          .IsNothing() ||
      cure::TimeoutErrors::SetString(env, e, env->syscall_string(), syscall)
          .IsNothing() ||
      cure::TimeoutErrors::SetString(env, e, env->path_string(), path)
          .IsNothing() ||
      cure::TimeoutErrors::SetString(env, e, env->dest_string(), dest)
          .IsNothing() ||
      cure::TimeoutErrors::SetString(
          env, e, env->hostname_string(), hostname)
          .IsNothing() ||
      (!outcome->IsUndefined() &&
       e->Set(context, FIXED_ONE_BYTE_STRING(isolate, "outcome"), outcome)
           .IsNothing())) {
    return MaybeLocal<Object>();
  }
  return scope.Escape(e);
}

// "<what became of it>, <kind> <name>", with errno.
MaybeLocal<Object> ThreadPoolTimeout::NewWorkError(Environment* env,
                                                   int status,
                                                   const char* kind,
                                                   const char* name) {
  Isolate* isolate = env->isolate();
  EscapableHandleScope scope(isolate);
  std::string message = cure::ThreadpoolMessage(status) + ", " + kind;
  if (name != nullptr) message += std::string(" ") + name;
  Local<Object> e;
  if (!cure::TimeoutErrors::New(env, cure::ThreadpoolCode(status), message)
           .ToLocal(&e) ||
      e->Set(env->context(), env->errno_string(), Integer::New(isolate, status))
          .IsNothing()) {
    return MaybeLocal<Object>();
  }
  return scope.Escape(e);
}

bool ThreadPoolTimeout::Keep(Environment* env,
                             AsyncWrap* object,
                             ReleaseCallback release,
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

}  // namespace node
