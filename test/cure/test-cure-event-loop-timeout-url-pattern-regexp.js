// Flags: --event-loop-timeout=100
'use strict';
// A URLPattern's regexp groups run through V8's RegExp API from C++ (ada
// calls URLPatternRegexProvider, src/node_url_pattern.cc): a group that
// backtracks exponentially ((?:a+)+b) over a request's path held the loop
// for as long as the path's author chose: V8 threw no TimeoutError in a
// RegExp called from C++ (45 s for 25 a's; here 40, for ever). With a
// budget the RegExps run from script code (ExecStoppably(),
// src/node_url_pattern_hop.h,
// patches/node/src-urlpattern-s-regexps-run-where-a-timeout-can-stop-them.patch),
// where they stop as they backtrack; the TimeoutError must come out of
// test() and exec() as
// what they throw, not turn into "no match" (a request routed as if the
// pattern had not matched) or into exec()'s "Failed to exec URLPattern".
// Within a budget the results, matches and misses, are those of a run
// without the option.
const common = require('../common');
const assert = require('assert');
const {
  assertInterrupted, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

const make = `() => new URLPattern({ pathname: '/items/:id((?:a+)+b)' })`;
const results = `(() => {
  const pattern = (${make})();
  const out = [];
  for (const path of ['/items/aab', '/items/ab', '/items/aaac',
                      '/items/' + 'a'.repeat(12) + 'c', '/other/ab']) {
    const url = 'https://example.com' + path;
    const m = pattern.exec(url);
    out.push(pattern.test(url), m === null ? null : m.pathname.groups.id);
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results);
// The evil path: 2^40 ways for the group to split the a's before it fails.
const evil = 'https://example.com/items/' + 'a'.repeat(40) + 'c';
const pattern = eval(make)();

runEachInACallback([
  () => assertInterrupted('URLPattern.prototype.test() backtracking',
                          () => pattern.test(evil), T),
  () => assertInterrupted('URLPattern.prototype.exec() backtracking',
                          () => pattern.exec(evil), T),
  () => assertInterrupted('URLPattern.prototype.test() with a base URL',
                          () => pattern.test('/items/' + 'a'.repeat(40) + 'c',
                                             'https://example.com'), T),
  common.mustCall(() => {
    // The pattern is as usable as before its stops.
    assert.strictEqual(eval(results), withoutOption);
    assert.strictEqual(JSON.parse(withoutOption).length, 10);
  }),
]);
