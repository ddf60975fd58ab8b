// Flags: --event-loop-timeout=60000
'use strict';
// URLPattern.prototype.exec() and test() of a URLPatternInit process it in
// ada before they match it: each component is canonicalized by a parse as
// a URL, in one call that nothing stops (a hostname of 16 Mi ideographs
// takes seconds of IDNA). For an init whose strings total more than
// 64 KiB, in a callback with a budget, the process runs on libuv's
// Priority Executor from copies of them and is left there at the stop
// (ProcessLongInit(), src/node_url_pattern_hop.h): the TimeoutError
// "Synchronous URLPattern.prototype.exec stopped" (made only there). The
// components are then matched by nodecure's copy of what ada's match() and
// test() do after the process: long inits matched within a budget (that
// path) give the results of a run without the option (ada's own).
const common = require('../common');
const assert = require('assert');
const {
  assertResultsAsWithoutOption, assertSyncCallStopped, ideographs,
  printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget).
const host = ideographs(2 ** 24);

const results = `(() => {
  const K = 64 * 1024;  // kHopInputBytes
  const patterns = [
    new URLPattern({ pathname: '/items/:id' }),
    new URLPattern({ pathname: '/items/:id', search: 'q=:q', hash: ':h' }),
    new URLPattern({ protocol: 'http{s}?', hostname: ':host', port: '8080' }),
    new URLPattern({ username: ':user', password: ':pw', pathname: '/*' }),
    new URLPattern({ pathname: '/ITEMS/:id' }, { ignoreCase: true }),
    new URLPattern({ hostname: '{*.}?example.com' }),
    new URLPattern({}),
  ];
  const inits = [
    { pathname: '/items/' + 'a'.repeat(K) },
    { pathname: '/items/' + 'é'.repeat(K), search: '?q=1', hash: '#top' },
    { pathname: '/items/x', search: 'q=' + '%zz'.repeat(K), hash: 'h' },
    { protocol: 'https', hostname: 'h' + 'o'.repeat(K) + '.com',
      port: '8080' },
    { username: 'u'.repeat(K), password: 'p', pathname: '/z' },
    { pathname: '/ITEMS/' + 'x'.repeat(K) },
    { pathname: 'rel/' + 'y'.repeat(K),
      baseURL: 'https://www.example.com/a/b/' },
    { pathname: '/items/z', baseURL: 'https://example.com/' + 'c/'.repeat(K) },
    { baseURL: 'not a base ' + 'x'.repeat(K) },
    { port: '99999' + '9'.repeat(K) },
    { protocol: 'bad protocol' + 'p'.repeat(K) },
    { hostname: 'www.example.com', pathname: '/' + 'q'.repeat(K) },
    { pathname: '/items/short' },
  ];
  // Groups that did not participate are undefined: kept apart from absent.
  const keep = (k, v) => (v === undefined ? '(undefined)' : v);
  const out = [];
  for (const pattern of patterns) {
    for (const init of inits) {
      out.push(JSON.stringify(pattern.exec(init), keep), pattern.test(init));
    }
  }
  // With a base, as upstream: a TypeError.
  for (const fn of ['exec', 'test']) {
    try {
      patterns[0][fn]({ pathname: '/items/' + 'b'.repeat(K) }, 'https://x/');
      out.push('no error');
    } catch (err) {
      out.push(err.name + ' ' + err.code + ' ' + err.message);
    }
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);
const pattern = new URLPattern({ hostname: ':host', pathname: '/*' });

runEachInACallback([
  () => assertSyncCallStopped('exec() of a hostname of 16 Mi ideographs',
                              'URLPattern.prototype.exec',
                              () => pattern.exec({ hostname: host }), T),
  () => assertSyncCallStopped('test() of a hostname of 16 Mi ideographs',
                              'URLPattern.prototype.test',
                              () => pattern.test({ hostname: host }), T),
  common.mustCall(() => {
    const expected = assertResultsAsWithoutOption(results, withoutOption);
    assert.strictEqual(expected.length, 7 * 13 * 2 + 2);
    // Matches, misses and failures were compared.
    assert.ok(expected.includes(true) && expected.includes(false));
    assert.ok(expected.includes('null'));
    assert.notStrictEqual(expected.at(-1), 'no error');
  }),
]);
