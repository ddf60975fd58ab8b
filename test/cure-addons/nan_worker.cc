// nan_worker: the most common way a C++ addon uses the threadpool,
// Nan::AsyncWorker (NAN's Nan::AsyncQueueWorker() is a plain
// uv_queue_work()).
//
//   run(ms, cb): Execute() keeps a worker busy for `ms` milliseconds, then
//   sets value_ to 42; HandleOKCallback() calls cb(null, value_).
//
// NAN's after-work callback ignores libuv's status: whenever it runs it
// calls HandleOKCallback() (or HandleErrorCallback() if Execute() set an
// error message) and then deletes the worker. If it ran before Execute()
// returned, cb would get value_ before Execute() wrote it (-1: a wrong
// success), and Execute() would then write into the deleted worker.

#include <nan.h>

#include "spin.h"

namespace {

class SpinWorker : public Nan::AsyncWorker {
 public:
  SpinWorker(Nan::Callback* callback, uint32_t ms)
      : Nan::AsyncWorker(callback, "nodecure:nan_worker"), ms_(ms) {}

  // On a threadpool thread.
  void Execute() override {
    spin_ms(ms_);
    value_ = 42;
  }

 protected:
  // On the loop's thread, once Execute() returned (NAN's contract).
  void HandleOKCallback() override {
    Nan::HandleScope scope;
    v8::Local<v8::Value> argv[] = {Nan::Null(), Nan::New<v8::Int32>(value_)};
    callback->Call(2, argv, async_resource);
  }

 private:
  uint32_t ms_;
  int32_t value_ = -1;  // -1 until Execute() wrote the result
};

NAN_METHOD(Run) {
  if (info.Length() < 2 || !info[0]->IsUint32() || !info[1]->IsFunction()) {
    return Nan::ThrowTypeError("run(ms, cb) expects a number and a function");
  }
  uint32_t ms = Nan::To<uint32_t>(info[0]).FromJust();
  auto* callback = new Nan::Callback(info[1].As<v8::Function>());
  Nan::AsyncQueueWorker(new SpinWorker(callback, ms));
}

NAN_MODULE_INIT(Init) {
  Nan::SetMethod(target, "run", Run);
}

}  // namespace

// Context-aware (loadable in a worker_thread too), without the function
// cast of NODE_MODULE().
NAN_MODULE_WORKER_ENABLED(nan_worker, Init)
