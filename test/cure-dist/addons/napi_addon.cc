#include <napi.h>

// sum(numbers): adds an array of numbers through node-addon-api's C++ API.
static Napi::Value Sum(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) {
    Napi::TypeError::New(env, "sum(numbers) expects an array")
        .ThrowAsJavaScriptException();
    return env.Null();
  }
  Napi::Array numbers = info[0].As<Napi::Array>();
  double total = 0;
  for (uint32_t i = 0; i < numbers.Length(); i++) {
    total += numbers.Get(i).As<Napi::Number>().DoubleValue();
  }
  return Napi::Number::New(env, total);
}

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("sum", Napi::Function::New(env, Sum));
  return exports;
}

NODE_API_MODULE(napi_addon, Init)
