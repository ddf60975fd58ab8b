#ifndef SRC_NODE_URL_PATTERN_HOP_H_
#define SRC_NODE_URL_PATTERN_HOP_H_

#if defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ada.h"
#include "env.h"
#include "node_event_loop_timeout.h"
#include "node_realm.h"
#include "node_sync_hop.h"
#include "util.h"
#include "v8.h"

namespace node::url_pattern {

// nodecure: the RegExps of a URLPattern under --event-loop-timeout.
//
// ada matches each component with the pattern's RegExp through
// URLPatternRegexProvider, which called v8::RegExp::Exec() from C++: the
// RegExp builtin then ran in an activation of its own with no script
// frame, where V8 does not throw a TimeoutError (nothing there could catch
// it in general, TimeoutInterrupts' InScriptCode()): a group that
// backtracks exponentially, `:id((?:a+)+b)` over 25 a's and a c, held the
// loop for 45 s before the TimeoutError came, after the call. With a
// budget (SyncCallsStoppable()), ExecStoppably() runs the RegExp from a
// small function of script code instead, compiled once per thread and
// named node:internal/url_pattern_exec, which calls the RegExp builtin
// that primordials hold (as v8::RegExp::Exec() does, not a patched
// RegExp.prototype.exec): V8 throws there, after Node's own code's 10 ms.
// The failed match makes ada end it as a miss, and the TimeoutError,
// pending, is what exec() or test() throws. Without a budget, or on a
// second Environment of a thread, Exec() as upstream. Loop thread only.
namespace exec_detail {

struct HelperCache {
  Environment* env = nullptr;
  v8::Global<v8::Function> fn;
};
inline thread_local HelperCache helper_cache;

inline void ResetHelper(void*) {
  helper_cache.fn.Reset();
  helper_cache.env = nullptr;
}

// The function (regexp, input) => RegExpPrototypeExec(regexp, input), made
// at the first call of this Environment.
inline v8::MaybeLocal<v8::Function> Helper(Environment* env) {
  v8::Isolate* isolate = env->isolate();
  if (helper_cache.env == env) return helper_cache.fn.Get(isolate);
  if (helper_cache.env != nullptr) return {};  // Another Environment's.
  v8::Local<v8::Context> context = env->context();
  v8::ScriptOrigin origin(
      FIXED_ONE_BYTE_STRING(isolate, "node:internal/url_pattern_exec"));
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> factory;
  v8::Local<v8::Value> exec;
  v8::Local<v8::Value> fn;
  if (!v8::Script::Compile(
           context,
           FIXED_ONE_BYTE_STRING(
               isolate,
               "(function(exec) { 'use strict'; "
               "return function urlPatternExec(regexp, input) { "
               "return exec(regexp, input); }; })"),
           &origin)
           .ToLocal(&script) ||
      !script->Run(context).ToLocal(&factory) ||
      !env->principal_realm()
           ->primordials()
           ->Get(context, FIXED_ONE_BYTE_STRING(isolate, "RegExpPrototypeExec"))
           .ToLocal(&exec) ||
      !factory.As<v8::Function>()
           ->Call(context, v8::Undefined(isolate), 1, &exec)
           .ToLocal(&fn)) {
    return {};
  }
  helper_cache.env = env;
  helper_cache.fn.Reset(isolate, fn.As<v8::Function>());
  env->AddCleanupHook(ResetHelper, nullptr);
  return fn.As<v8::Function>();
}

}  // namespace exec_detail

// regexp.exec(input) (null, or the match's array), where a timeout stops
// it; empty with the exception pending if it threw.
inline v8::MaybeLocal<v8::Value> ExecStoppably(Environment* env,
                                              v8::Local<v8::RegExp> regexp,
                                              v8::Local<v8::String> input) {
  v8::Local<v8::Context> context = env->context();
  if (!EventLoopTimeout::SyncCallsStoppable(env) ||
      (exec_detail::helper_cache.env != nullptr &&
       exec_detail::helper_cache.env != env)) {
    v8::Local<v8::Object> result;
    if (!regexp->Exec(context, input).ToLocal(&result)) return {};
    return result;
  }
  v8::Local<v8::Function> helper;
  if (!exec_detail::Helper(env).ToLocal(&helper)) return {};
  v8::Local<v8::Value> argv[] = {regexp, input};
  return helper->Call(context, v8::Undefined(env->isolate()), 2, argv);
}

// nodecure: URLPattern's exec() and test() of a long string input.
//
// ada's url_pattern::exec() and test() parse a string input as a URL (with
// its base, if one is given) and then match each component with the
// pattern's RegExps, which V8 runs (URLPatternRegexProvider) and whose
// backtracking checks for interrupts. The parse is ada's, in one call that
// nothing stops: as for new URL(), 17 ms for 16 MiB with an ASCII path,
// 166 ms with a non-ASCII one, seconds for a long host that needs IDNA. It
// cannot hop with the match, which calls V8 on the loop thread; so, for an
// input (with its base) of more than kHopInputBytes, in a callback with a
// budget, the parse alone runs on the Priority Executor (RunAbandonable(),
// node_sync_hop.h, which owns copies of both strings and is left there at
// the stop), and the match runs here on its result:
//
//   loop thread                              executor thread
//   ExecLongInput(): SyncCallsStoppable()
//   RunAbandonable("URLPattern.prototype.exec")
//     waits ...                              ada::parse(base), ada::parse(in)
//     the budget passes: kStopped, the       ... returns; the job is deleted
//     TimeoutError is thrown
//   or it returns first: kDone, the components matched below as ada's
//   url_pattern::match() / test() match them after their own parse
//
// MatchParsed() and TestParsed() repeat what ada 3.4's match() and test()
// do after the parse, through the pattern's public members (its components'
// fast_match() and create_component_match_result(), test_components()): a
// newer ada that changes them must be followed here; the test
// (test-cure-event-loop-timeout-url-pattern-parse.js) compares the results
// of both paths. A URLPatternInit is processed as ada's match() processes
// it (url_pattern_init::process(), which canonicalizes each component by
// a parse: a hostname of 16 Mi ideographs takes seconds of IDNA): with
// strings of more than kHopInputBytes in all, the same way, on copies
// (ProcessLongInit()), then matched by MatchProcessed() and TestProcessed()
// (test-cure-event-loop-timeout-url-pattern-init.js). kInPlace, for
// everything else (a short input, no budget, an init with a base, which
// ada refuses at once), leaves the call to ada as upstream's code makes it.
// Loop thread only.
enum class LongMatch { kInPlace, kStopped, kDone };

namespace hop_detail {

// The input parsed, or std::nullopt where ada's match() returns null (the
// base or the input is no URL). Runs on either thread: ada only.
inline std::optional<ada::url_aggregator> ParseWithBase(
    std::string_view input, bool has_base, std::string_view base) {
  ada::result<ada::url_aggregator> base_url;
  if (has_base) {
    base_url = ada::parse<ada::url_aggregator>(base, nullptr);
    if (!base_url) return std::nullopt;
  }
  auto url = ada::parse<ada::url_aggregator>(
      input, base_url.has_value() ? &*base_url : nullptr);
  if (!url) return std::nullopt;
  return std::move(*url);
}

// kInPlace, or the parse's outcome (`*url` set when kDone).
inline LongMatch ParseLongInput(Environment* env,
                                const char* api,
                                const ada::url_pattern_input& input,
                                const std::optional<std::string_view>& base,
                                std::optional<ada::url_aggregator>* url) {
  if (!std::holds_alternative<std::string_view>(input)) {
    return LongMatch::kInPlace;
  }
  const std::string_view in = std::get<std::string_view>(input);
  const std::string_view base_view = base.value_or(std::string_view());
  if (in.size() + base_view.size() <= kHopInputBytes ||
      !EventLoopTimeout::SyncCallsStoppable(env)) {
    return LongMatch::kInPlace;
  }
  const bool has_base = base.has_value();
  auto parsed = RunAbandonable(
      env,
      api,
      [has_base](std::string_view text, std::string_view base_text) {
        return ParseWithBase(text, has_base, base_text);
      },
      in,
      base_view);
  if (!parsed) return LongMatch::kStopped;  // The TimeoutError is thrown.
  *url = std::move(*parsed);
  return LongMatch::kDone;
}

// A URLPatternInit, processed for a match as ada's match() and test()
// process it (url_pattern_init::process(), which canonicalizes each
// component by parsing it as a URL: linear, as a parse), or std::nullopt
// where it throws. Runs on either thread: ada only.
inline std::optional<ada::url_pattern_init> ProcessInit(
    const ada::url_pattern_init& init) {
  // As ada's match() passes them: empty strings, not std::nullopt.
  std::string protocol{}, username{}, password{}, hostname{};
  std::string port{}, pathname{}, search{}, hash{};
  auto processed = ada::url_pattern_init::process(
      init, ada::url_pattern_init::process_type::url, protocol, username,
      password, hostname, port, pathname, search, hash);
  if (!processed) return std::nullopt;
  return std::move(*processed);
}

// kInPlace, or the process's outcome (`*processed` set when kDone), for a
// URLPatternInit whose strings total more than kHopInputBytes: processed
// on the Priority Executor from copies of them.
inline LongMatch ProcessLongInit(
    Environment* env,
    const char* api,
    const ada::url_pattern_input& input,
    const std::optional<std::string_view>& base,
    std::optional<ada::url_pattern_init>* processed) {
  // With a base, ada fails at once (a TypeError): in place.
  if (!std::holds_alternative<ada::url_pattern_init>(input) ||
      base.has_value()) {
    return LongMatch::kInPlace;
  }
  const ada::url_pattern_init& init = std::get<ada::url_pattern_init>(input);
  const std::optional<std::string>* fields[] = {
      &init.protocol, &init.username, &init.password,
      &init.hostname, &init.port,     &init.pathname,
      &init.search,   &init.hash,     &init.base_url};
  size_t total = 0;
  unsigned present = 0;
  for (size_t i = 0; i < arraysize(fields); i++) {
    if (!fields[i]->has_value()) continue;
    total += (*fields[i])->size();
    present |= 1u << i;
  }
  if (total <= kHopInputBytes || !EventLoopTimeout::SyncCallsStoppable(env)) {
    return LongMatch::kInPlace;
  }
  auto view = [&fields](size_t i) {
    return fields[i]->has_value() ? std::string_view(**fields[i])
                                  : std::string_view();
  };
  auto result = RunAbandonable(
      env,
      api,
      [present](std::string_view protocol,
                std::string_view username,
                std::string_view password,
                std::string_view hostname,
                std::string_view port,
                std::string_view pathname,
                std::string_view search,
                std::string_view hash,
                std::string_view base_url) {
        ada::url_pattern_init copy;
        const std::pair<std::optional<std::string>*, std::string_view>
            out[] = {{&copy.protocol, protocol}, {&copy.username, username},
                     {&copy.password, password}, {&copy.hostname, hostname},
                     {&copy.port, port},         {&copy.pathname, pathname},
                     {&copy.search, search},     {&copy.hash, hash},
                     {&copy.base_url, base_url}};
        for (size_t i = 0; i < arraysize(out); i++) {
          if (present & (1u << i)) out[i].first->emplace(out[i].second);
        }
        return ProcessInit(copy);
      },
      view(0),
      view(1),
      view(2),
      view(3),
      view(4),
      view(5),
      view(6),
      view(7),
      view(8));
  if (!result) return LongMatch::kStopped;  // The TimeoutError is thrown.
  *processed = std::move(*result);
  return LongMatch::kDone;
}

}  // namespace hop_detail

// The end of ada's url_pattern::match(), common to both inputs: each
// component matched with the pattern's RegExps, and the result.
template <typename Pattern>
std::optional<ada::url_pattern_result> MatchComponents(
    Pattern& pattern,
    std::vector<ada::url_pattern_input> inputs,
    std::string protocol,
    std::string username,
    std::string password,
    std::string hostname,
    std::string port,
    std::string pathname,
    std::string search,
    std::string hash) {
  // In ada's order, each ending the match at the first miss.
  auto protocol_exec = pattern.protocol_component.fast_match(protocol);
  if (!protocol_exec) return std::nullopt;
  auto username_exec = pattern.username_component.fast_match(username);
  if (!username_exec) return std::nullopt;
  auto password_exec = pattern.password_component.fast_match(password);
  if (!password_exec) return std::nullopt;
  auto hostname_exec = pattern.hostname_component.fast_match(hostname);
  if (!hostname_exec) return std::nullopt;
  auto port_exec = pattern.port_component.fast_match(port);
  if (!port_exec) return std::nullopt;
  auto pathname_exec = pattern.pathname_component.fast_match(pathname);
  if (!pathname_exec) return std::nullopt;
  auto search_exec = pattern.search_component.fast_match(search);
  if (!search_exec) return std::nullopt;
  auto hash_exec = pattern.hash_component.fast_match(hash);
  if (!hash_exec) return std::nullopt;

  ada::url_pattern_result result{};
  result.inputs = std::move(inputs);
  result.protocol = pattern.protocol_component.create_component_match_result(
      std::move(protocol), std::move(*protocol_exec));
  result.username = pattern.username_component.create_component_match_result(
      std::move(username), std::move(*username_exec));
  result.password = pattern.password_component.create_component_match_result(
      std::move(password), std::move(*password_exec));
  result.hostname = pattern.hostname_component.create_component_match_result(
      std::move(hostname), std::move(*hostname_exec));
  result.port = pattern.port_component.create_component_match_result(
      std::move(port), std::move(*port_exec));
  result.pathname = pattern.pathname_component.create_component_match_result(
      std::move(pathname), std::move(*pathname_exec));
  result.search = pattern.search_component.create_component_match_result(
      std::move(search), std::move(*search_exec));
  result.hash = pattern.hash_component.create_component_match_result(
      std::move(hash), std::move(*hash_exec));
  return result;
}

// ada's url_pattern::match() of a string input, after its parse.
template <typename Pattern>
std::optional<ada::url_pattern_result> MatchParsed(
    Pattern& pattern,
    const ada::url_aggregator& url,
    std::string_view input,
    const std::optional<std::string_view>& base) {
  std::vector<ada::url_pattern_input> inputs{input};
  if (base.has_value()) inputs.emplace_back(*base);

  std::string protocol(
      url.get_protocol().substr(0, url.get_protocol().size() - 1));
  std::string username(url.get_username());
  std::string password(url.get_password());
  std::string hostname(url.get_hostname());
  std::string port(url.get_port());
  std::string pathname(url.get_pathname());
  std::string search;
  if (url.has_search()) {
    std::string_view view = url.get_search();
    search = view.starts_with("?") ? view.substr(1) : view;
  }
  std::string hash;
  if (url.has_hash()) {
    std::string_view view = url.get_hash();
    hash = view.starts_with("#") ? view.substr(1) : view;
  }

  return MatchComponents(pattern,
                         std::move(inputs),
                         std::move(protocol),
                         std::move(username),
                         std::move(password),
                         std::move(hostname),
                         std::move(port),
                         std::move(pathname),
                         std::move(search),
                         std::move(hash));
}

// ada's url_pattern::test() of a string input, after its parse.
template <typename Pattern>
bool TestParsed(const Pattern& pattern, const ada::url_aggregator& url) {
  std::string_view protocol = url.get_protocol();
  if (protocol.ends_with(":")) protocol.remove_suffix(1);
  std::string_view search = url.get_search();
  if (search.starts_with("?")) search.remove_prefix(1);
  std::string_view hash = url.get_hash();
  if (hash.starts_with("#")) hash.remove_prefix(1);
  return pattern.test_components(protocol,
                                 url.get_username(),
                                 url.get_password(),
                                 url.get_hostname(),
                                 url.get_port(),
                                 url.get_pathname(),
                                 search,
                                 hash);
}

// ada's url_pattern::match() of a URLPatternInit, after its process.
template <typename Pattern>
std::optional<ada::url_pattern_result> MatchProcessed(
    Pattern& pattern,
    ada::url_pattern_init processed,
    const ada::url_pattern_input& input) {
  std::string search = std::move(*processed.search);
  if (search.starts_with("?")) search.erase(0, 1);
  return MatchComponents(pattern,
                         std::vector<ada::url_pattern_input>{input},
                         std::move(*processed.protocol),
                         std::move(*processed.username),
                         std::move(*processed.password),
                         std::move(*processed.hostname),
                         std::move(*processed.port),
                         std::move(*processed.pathname),
                         std::move(search),
                         std::move(*processed.hash));
}

// ada's url_pattern::test() of a URLPatternInit, after its process.
template <typename Pattern>
bool TestProcessed(const Pattern& pattern,
                   const ada::url_pattern_init& processed) {
  std::string_view search = *processed.search;
  if (search.starts_with("?")) search.remove_prefix(1);
  return pattern.test_components(*processed.protocol,
                                 *processed.username,
                                 *processed.password,
                                 *processed.hostname,
                                 *processed.port,
                                 *processed.pathname,
                                 search,
                                 *processed.hash);
}

// exec(): kDone with *out the match (std::nullopt: null), kStopped with the
// TimeoutError thrown, or kInPlace (see above).
template <typename Pattern>
LongMatch ExecLongInput(Environment* env,
                        Pattern& pattern,
                        const ada::url_pattern_input& input,
                        const std::optional<std::string_view>& base,
                        std::optional<ada::url_pattern_result>* out) {
  if (std::holds_alternative<ada::url_pattern_init>(input)) {
    std::optional<ada::url_pattern_init> processed;
    const LongMatch r = hop_detail::ProcessLongInit(
        env, "URLPattern.prototype.exec", input, base, &processed);
    if (r != LongMatch::kDone) return r;
    *out = processed ? MatchProcessed(pattern, std::move(*processed), input)
                     : std::nullopt;
    return LongMatch::kDone;
  }
  std::optional<ada::url_aggregator> url;
  const LongMatch r = hop_detail::ParseLongInput(
      env, "URLPattern.prototype.exec", input, base, &url);
  if (r != LongMatch::kDone) return r;
  *out = url ? MatchParsed(pattern, *url, std::get<std::string_view>(input),
                           base)
             : std::nullopt;
  return LongMatch::kDone;
}

// test(): as ExecLongInput(), *out whether it matched.
template <typename Pattern>
LongMatch TestLongInput(Environment* env,
                        const Pattern& pattern,
                        const ada::url_pattern_input& input,
                        const std::optional<std::string_view>& base,
                        bool* out) {
  if (std::holds_alternative<ada::url_pattern_init>(input)) {
    std::optional<ada::url_pattern_init> processed;
    const LongMatch r = hop_detail::ProcessLongInit(
        env, "URLPattern.prototype.test", input, base, &processed);
    if (r != LongMatch::kDone) return r;
    *out = processed && TestProcessed(pattern, *processed);
    return LongMatch::kDone;
  }
  std::optional<ada::url_aggregator> url;
  const LongMatch r = hop_detail::ParseLongInput(
      env, "URLPattern.prototype.test", input, base, &url);
  if (r != LongMatch::kDone) return r;
  *out = url && TestParsed(pattern, *url);
  return LongMatch::kDone;
}

}  // namespace node::url_pattern

#endif  // defined(NODE_WANT_INTERNALS) && NODE_WANT_INTERNALS

#endif  // SRC_NODE_URL_PATTERN_HOP_H_
