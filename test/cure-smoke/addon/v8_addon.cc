#include <node.h>
#include <uv.h>

// Uses V8 handles, the libuv loop of the Environment and uv_version():
// the parts of the C++ ABI that a patched runtime could break.
namespace {

void Describe(const v8::FunctionCallbackInfo<v8::Value>& args) {
  v8::Isolate* isolate = args.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  v8::Local<v8::Object> result = v8::Object::New(isolate);
  uv_loop_t* loop = node::GetCurrentEventLoop(isolate);
  result->Set(context,
              v8::String::NewFromUtf8Literal(isolate, "moduleVersion"),
              v8::Integer::New(isolate, NODE_MODULE_VERSION)).Check();
  result->Set(context, v8::String::NewFromUtf8Literal(isolate, "uv"),
              v8::String::NewFromUtf8(isolate, uv_version_string())
                  .ToLocalChecked()).Check();
  result->Set(context, v8::String::NewFromUtf8Literal(isolate, "loopAlive"),
              v8::Boolean::New(isolate, loop != nullptr &&
                                            uv_loop_alive(loop) >= 0))
      .Check();
  args.GetReturnValue().Set(result);
}

void Init(v8::Local<v8::Object> exports) {
  NODE_SET_METHOD(exports, "describe", Describe);
}

}  // namespace

NODE_MODULE(NODE_GYP_MODULE_NAME, Init)
