#ifndef SRC_NODE_THREADPOOL_TIMEOUT_H_
#define SRC_NODE_THREADPOOL_TIMEOUT_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include "uv.h"
#include "uv/timeout.h"
#include "v8.h"

namespace node {

class AsyncWrap;
class BaseObject;
class Environment;
class ThreadPoolWork;
namespace fs {
class FSReqBase;
}  // namespace fs

// nodecure: the Node side of --threadpool-timeout (doc/api/cure.md). libuv
// enforces the budget (deps/uv/include/uv/timeout.h,
// doc/contributing/threadpool-timeouts.md); this turns its statuses into
// TimeoutErrors and keeps alive what an abandoned task may still touch.
//
// Ownership after a timeout. A request or ThreadPoolWork whose done callback
// sees UV_ETIMEDOUT or UV_EABANDONCAP may still be running on an abandoned
// thread: libuv calls our reclaim callback on the loop thread once it has
// returned. Until then the object that holds the uv request (an fs or DNS
// ReqWrap, a CryptoJob, a CompressionStream, an N-API Work) belongs to the
// abandoned task, not to JS: KeepUntilReclaimed() holds a strong
// BaseObjectPtr to it (so GC and the realm's cleanup cannot delete it), and
// what would have been released in the done callback (uv_fs_req_cleanup(),
// the object itself, a read buffer) is released by the reclaim callback.
// The JS objects that the C++ object keeps alive (a request's oncomplete
// closure, a zlib handle's buffers) stay alive with it.
//
// If the Environment is torn down before the task returns (a worker that
// exits, the end of the process), its cleanup hook orphans the record: the
// object is untracked from its realm and leaked on purpose, and the reclaim
// callback, if it ever runs, only frees the record. The leak is bounded by
// libuv's cap on abandoned threads. JS memory that the task writes into
// directly (the Buffer of an fs read, randomFill's buffer) dies with the
// isolate; such tasks stop at once when abandoned (EINTR, cooperative
// checks), which is what makes this acceptable (see NOTES in the patch).
class ThreadPoolTimeout final {
 public:
  ThreadPoolTimeout() = delete;

  // Whether a request of type T made with the libuv function F takes the
  // budget: fs and DNS requests, except readdir and closedir, which use a
  // uv_dir_t and a DIR that fs.Dir owns and frees (dir.close(), GC): such a
  // request could not be abandoned without freeing memory under it.
  template <typename T, typename F>
  static constexpr bool IsTimedRequest() {
    if constexpr (std::is_same_v<T, uv_fs_t>) {
      return !std::is_same_v<F, decltype(&uv_fs_readdir)>;
    } else {
      return std::is_same_v<T, uv_getaddrinfo_t> ||
             std::is_same_v<T, uv_getnameinfo_t>;
    }
  }

  // Around a timed submission: the tag under which libuv reports the task
  // if it runs past its budget while the action is to report
  // (uv_threadpool_set_thread_tag(), OnReport() in the .cc): the request
  // wrap of an fs or DNS request, or a ThreadPoolWork (told apart by the
  // low bit; both are more than 2-aligned). Two thread-local stores, and
  // nothing while the option was never set.
  class TagScope final {
   public:
    explicit TagScope(AsyncWrap* request) : TagScope(request, 0) {}
    explicit TagScope(ThreadPoolWork* work) : TagScope(work, kWorkTag) {}
    ~TagScope() {
      if (active_) uv_threadpool_set_thread_tag(saved_);
    }
    TagScope(const TagScope&) = delete;
    TagScope& operator=(const TagScope&) = delete;

    static constexpr uintptr_t kWorkTag = 1;

   private:
    TagScope(void* object, uintptr_t bits)
        : active_(object != nullptr && ever_enabled()) {
      if (active_) {
        saved_ = uv_threadpool_set_thread_tag(reinterpret_cast<void*>(
            reinterpret_cast<uintptr_t>(object) | bits));
      }
    }
    bool active_;
    void* saved_ = nullptr;
  };

  // Around the submission of a request of Node's bindings (ReqWrap's
  // Dispatch()): libuv times the fs and DNS requests that the calling thread
  // submits while it has a budget, and only those, so that requests made by
  // addons, by libuv itself (fs.watchFile()'s stat) or by the trace writer
  // keep upstream's contract. `request` is its tag (TagScope). Costs four
  // thread-local stores, and nothing while the option was never set.
  class OptIn final {
   public:
    OptIn(bool timed, AsyncWrap* request)
        : timed_(timed && ever_enabled()),
          tag_(timed_ ? request : nullptr) {
      if (timed_)
        saved_ = uv_threadpool_set_thread_timeout(UV_THREADPOOL_TIMEOUT_DEFAULT);
    }
    ~OptIn() {
      if (timed_) uv_threadpool_set_thread_timeout(saved_);
    }
    OptIn(const OptIn&) = delete;
    OptIn& operator=(const OptIn&) = delete;

   private:
    bool timed_;
    TagScope tag_;
    uint64_t saved_ = 0;
  };

  // At startup, on the main thread, with the validated options (node.cc):
  // --threadpool-timeout and --threadpool-timeout-action.
  static void Apply(const std::string& option, const std::string& action);

  // --threadpool-timeout-action=report: a task past its budget runs on and
  // completes as without one; it is only reported, once, on its loop thread
  // (the cure:threadpool-timeout channel with action 'report' and a process
  // warning, lib/internal/cure/threadpool.js), in its request's async
  // context where it has one. Process-wide, as the pool is.
  static void SetReportOnly(bool report);
  static bool report_only() {
    return uv_threadpool_get_action() == UV_THREADPOOL_ACTION_REPORT;
  }

  // The pool's budget in ms (0: off). Process-wide; node:cure changes it
  // from the main thread only.
  static uint64_t budget();
  static void SetBudget(uint64_t ms);
  // Once per process, before any work can be abandoned (a budget set here,
  // or --event-loop-timeout in use, whose stops abandon Priority Executor
  // jobs): at exit() with abandoned work still live, the process ends
  // without the exit handlers that would free what that work uses
  // (OpenSSL's). Any thread.
  static void GuardExit();
  // Whether a budget was ever set: only then is a UV_ETIMEDOUT from an fs
  // request ours (a soft NFS mount can return ETIMEDOUT too; with the
  // feature off such errors stay upstream's).
  static bool ever_enabled() {
    return ever_enabled_.load(std::memory_order_relaxed);
  }

  // A done callback's status that means "abandoned past its budget".
  static inline bool IsTimeout(int64_t status) {
    return (status == UV_ETIMEDOUT && ever_enabled()) ||
           status == UV_EABANDONCAP || status == UV_EPOOLSTALLED;
  }
  // A uv error number that becomes a TimeoutError.
  static inline bool IsTimeoutErrno(int64_t errorno) {
    return IsTimeout(errorno) || errorno == UV_ESLOWRESOURCE;
  }

  // The TimeoutError for a uv error number of IsTimeoutErrno()
  // (ERR_THREADPOOL_TIMEOUT, ERR_THREADPOOL_STALLED or ERR_SLOW_RESOURCE:
  // src/node_cure_errors.h) with upstream's errno, syscall, path and dest
  // properties and err.outcome: UVException()'s hook
  // (src/api/exceptions.cc). Runs no JS.
  static v8::Local<v8::Value> UVException(v8::Isolate* isolate,
                                          int errorno,
                                          const char* syscall,
                                          const char* path,
                                          const char* dest);

  // Called on the loop thread once the abandoned task returned, with the
  // object kept and `data`. Not called if the Environment went first.
  using ReleaseCallback = void (*)(AsyncWrap* object, void* data);

  struct Event {
    const char* kind;     // "fs", "dns", "crypto", "zlib", "napi"
    const char* syscall;  // or the job's name; may be null
    const char* path;     // fs path or DNS host name; may be null
    int status;
  };

  // From a done callback that received a timeout status: keeps `object`
  // (may be null) alive until libuv reclaims the task, then calls
  // release(object, data). Publishes 'cure:threadpool-timeout' in the
  // object's async context if anybody subscribed. Returns false, keeping
  // nothing, if libuv does not know the task as timed out (e.g. a kernel's
  // ETIMEDOUT): the caller then cleans up as usual.
  static bool KeepUntilReclaimed(Environment* env,
                                 AsyncWrap* object,
                                 ReleaseCallback release,
                                 void* data,
                                 const Event& event);

  // fs: the request wrap `wrap` (an FSReqBase or FileHandleReadWrap) whose
  // uv_fs_t `req` timed out. Defers uv_fs_req_cleanup(req), Detach()es and
  // drops the wrap at reclaim; `managed`, if not empty, is a buffer from
  // Environment::allocate_managed_buffer() that the read may still fill,
  // released then too (FileHandle reads: the stream listeners a FileHandle
  // gets in Node, EmitToJSStreamListener and StreamPipe, allocate so).
  // Also publishes 'cure:slow-resource' if this request put its resource on
  // the slow-resource list. False: not a pool timeout, clean up as usual.
  static bool KeepFsRequest(AsyncWrap* wrap,
                            uv_fs_t* req,
                            const char* syscall,
                            uv_buf_t managed = uv_buf_init(nullptr, 0));
  // The same for an FSReqBase (FSReqAfterScope), which also holds its realm's
  // fs BindingData: if the Environment goes first, that is kept too. The
  // backing stores of the Buffers it reads into or writes from
  // (FSReqBase::PinnedBuffers()) are pinned until reclaim.
  static bool KeepFsRequest(fs::FSReqBase* wrap,
                            uv_fs_t* req,
                            const char* syscall);

  // fs: uv_fs_*() refused `req` at once with UV_ESLOWRESOURCE (its resource
  // is on the slow-resource list). Calls after(req) from a native immediate
  // instead of synchronously (a callback API must not call back before it
  // returns).
  // libuv has already released its copies of the request's strings
  // (uv__slowres_check()): `path` (the call's path argument, or null) is
  // copied and put in req->path for the error.
  static void CompleteRefusedLater(AsyncWrap* wrap,
                                   uv_fs_t* req,
                                   uv_fs_cb after,
                                   const char* path);

  // DNS: a GetAddrInfoReqWrap / GetNameInfoReqWrap whose uv request timed
  // out: getaddrinfo() may still write the request's result fields and
  // getnameinfo() its host and service buffers (libuv frees its own copies
  // of the strings at reclaim). The JS callback gets the status as usual.
  static bool KeepDnsRequest(AsyncWrap* wrap, int status, const char* syscall);

  // crypto: CryptoJob::AfterThreadPoolWork() with a timeout status. Calls
  // ondone(TimeoutError), or reject(job, TimeoutError) in a callback scope
  // if given (Node 24's WebCrypto jobs, which settle a promise instead),
  // and deletes the job once its work returned.
  using RejectCallback = void (*)(AsyncWrap* job, v8::Local<v8::Value> error);
  static void AfterCryptoJobTimeout(AsyncWrap* job,
                                    int status,
                                    const char* name,
                                    RejectCallback reject = nullptr);

  // zlib: CompressionStream::AfterThreadPoolWork() with a timeout status.
  // Keeps the stream until its work returned, then calls release(stream);
  // calls the handle's onerror() with code ERR_THREADPOOL_TIMEOUT, which
  // lib/zlib.js turns into a TimeoutError.
  static void AfterZlibTimeout(AsyncWrap* stream,
                               int status,
                               ReleaseCallback release);

  // Node-API: async work past its budget got a replacement worker, but its
  // `complete` must still run with `execute`'s outcome and the addon's
  // memory stays the addon's: calls complete(work) once `execute` returned,
  // keeping the event loop alive and the Environment's teardown (its
  // instance-data finalizers, the napi_env, the addon's unloading) waiting
  // until then, as upstream's does for running work.
  static void AfterNapiWorkTimeout(Environment* env,
                                   int status,
                                   void* work,
                                   void (*complete)(void* work));

  // The same with a hostname (DNS: DNSException in lib/internal/errors.js,
  // through newThreadpoolError()) and the outcome given (undefined: none).
  static v8::MaybeLocal<v8::Object> NewThreadpoolError(
      Environment* env,
      int errorno,
      const char* syscall,
      const char* path,
      const char* dest,
      const char* hostname,
      v8::Local<v8::Value> outcome);

  // The TimeoutError for a ThreadPoolWork (crypto, zlib) of `kind` ("crypto",
  // "zlib"), named `name` if not null, with errno. Runs no JS.
  static v8::MaybeLocal<v8::Object> NewWorkError(Environment* env,
                                                 int status,
                                                 const char* kind,
                                                 const char* name);

  // internalBinding('cure')'s methods for this are in src/node_cure.cc.

 private:
  // What a task past its budget may still touch is kept until libuv
  // reclaims it (src/node_threadpool_timeout.cc): `object` (may be null),
  // and for fs the uv_fs_t (cleanup deferred), a managed read buffer, a
  // BaseObject the object holds strongly, and the Buffers' memory that
  // `pinning` pins. False, keeping nothing, outside the done callback of a
  // task that timed out.
  static bool Keep(Environment* env,
                   AsyncWrap* object,
                   ReleaseCallback release,
                   void* data,
                   uv_fs_t* fs_req,
                   uv_buf_t managed,
                   BaseObject* held,
                   fs::FSReqBase* pinning);
  // 'cure:threadpool-timeout' (and 'cure:slow-resource') for `event`, in
  // the async context of `wrap` if given. One JS call per timeout.
  static void Publish(Environment* env,
                      AsyncWrap* wrap,
                      const Event& event,
                      bool slow_resource);
  // Whether the timeout of `req` has just put its resource on the
  // slow-resource list (libuv says so right before its done callback).
  static bool TakeSlowResourceMark(const uv_fs_t* req);
  // The fs adapters' common part (src/node_threadpool_timeout_adapters.cc).
  static bool KeepFs(AsyncWrap* wrap,
                     uv_fs_t* req,
                     const char* syscall,
                     uv_buf_t managed,
                     BaseObject* held,
                     fs::FSReqBase* pinning);

  static inline std::atomic<bool> ever_enabled_{false};
};

}  // namespace node

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_THREADPOOL_TIMEOUT_H_
