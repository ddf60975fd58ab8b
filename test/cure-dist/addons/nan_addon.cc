#include <nan.h>

// hello(name): a string built in C++ through NAN; versions(): what the
// addon was compiled against, for test.js to compare with the running node.
NAN_METHOD(Hello) {
  Nan::Utf8String name(info[0]);
  std::string out = std::string("hello ") + (*name ? *name : "");
  info.GetReturnValue().Set(Nan::New(out).ToLocalChecked());
}

NAN_METHOD(Versions) {
  v8::Local<v8::Object> o = Nan::New<v8::Object>();
  Nan::Set(o, Nan::New("modules").ToLocalChecked(),
           Nan::New(NODE_MODULE_VERSION));
  Nan::Set(o, Nan::New("node").ToLocalChecked(),
           Nan::New(NODE_VERSION_STRING).ToLocalChecked());
  info.GetReturnValue().Set(o);
}

NAN_MODULE_INIT(Init) {
  Nan::SetMethod(target, "hello", Hello);
  Nan::SetMethod(target, "versions", Versions);
}

NODE_MODULE(nan_addon, Init)
