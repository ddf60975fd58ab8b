// Flags: --event-loop-timeout=60000
'use strict';
// URLPattern.prototype.exec() and test() parse a string input (with its
// base) in ada before they match it, in one call that nothing stops: the
// host of 16 Mi ideographs below takes seconds of IDNA. For an input of
// more than 64 KiB, in a callback with a budget, the parse runs on libuv's
// Priority Executor while the loop waits and is left there at the stop
// (src/node_url_pattern_hop.h,
// patches/node/src-urlpattern-s-parse-of-a-long-input-runs-where-a-timeout-can-leave-it.patch):
// the TimeoutError "Synchronous URLPattern.prototype.exec stopped" (made
// only there). The components are then matched by nodecure's copy of what
// ada's match() and test() do after their parse: long inputs matched
// within a budget (that path) give the results of a run without the option
// (ada's own), matches, misses, bases and failures alike.
const common = require('../common');
const assert = require('assert');
const {
  assertResultsAsWithoutOption, assertSyncCallStopped, ideographs,
  printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget): a host of 16 Mi distinct
// ideographs, as in test-cure-event-loop-timeout-sync-url.js.
const host = ideographs(2 ** 24);

// Patterns and inputs over 64 KiB (and one under), each through exec() and
// test(), with and without a base.
const results = `(() => {
  const K = 64 * 1024;  // kHopInputBytes
  const ideographs = (n) => Array.from({ length: n },
    (_, i) => String.fromCodePoint(0x4e00 + i * 7 % 20902)).join('');
  const patterns = [
    new URLPattern({ pathname: '/items/:id' }),
    new URLPattern({ pathname: '/items/:id', search: 'q=:q', hash: ':h' }),
    new URLPattern('https://*.example.com/*?*#*'),
    new URLPattern({ protocol: 'http{s}?', hostname: ':host', port: '8080' }),
    new URLPattern({ username: ':user', password: ':pw', pathname: '/*' }),
    new URLPattern({ pathname: '/ITEMS/:id' }, { ignoreCase: true }),
    new URLPattern({ pathname: '/items/:id(\\\\d+)' }),
    new URLPattern({ hostname: '{*.}?' + 'example.com' }),
    // Matches every URL: a parse that fails and one that succeeds differ.
    new URLPattern({}),
  ];
  const inputs = [
    ['https://example.com/items/' + 'a'.repeat(K) + '?q=1#top', undefined],
    ['/items/' + 'é'.repeat(K) + '?q=' + '%zz'.repeat(100) + '#x',
     'https://example.com/base/'],
    ['https://www.example.com/' + 'b/'.repeat(K) + '?' + 'c'.repeat(K) +
     '#' + 'd'.repeat(K), undefined],
    ['http://user:pw@' + ideographs(30000) + '.com:8080/p', undefined],
    ['https://u:p@example.com/items/' + '1'.repeat(K), undefined],
    ['http://example.com:8080/ITEMS/' + 'x'.repeat(K), undefined],
    ['../items/' + 'y'.repeat(K + 1), 'https://example.com/a/b/'],
    ['/items/z', 'https://example.com/' + 'c/'.repeat(K)],
    ['not a url ' + 'x'.repeat(K), undefined],
    ['/items/' + 'w'.repeat(K), 'not a base'],
    ['/items/' + 'v'.repeat(K), ''],
    // Relative without a base: ada parses it against a default base.
    ['/items/' + 'r'.repeat(K), undefined],
    ['https://example.com/items/short', undefined],
  ];
  // Groups that did not participate are undefined: kept apart from absent.
  const keep = (k, v) => (v === undefined ? '(undefined)' : v);
  const out = [];
  for (const pattern of patterns) {
    for (const [input, base] of inputs) {
      const args = base === undefined ? [input] : [input, base];
      out.push(JSON.stringify(pattern.exec(...args), keep),
               pattern.test(...args));
    }
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);
const pattern = new URLPattern({ hostname: ':host', pathname: '/*' });

runEachInACallback([
  () => assertSyncCallStopped('exec() of a host of 16 Mi ideographs',
                              'URLPattern.prototype.exec',
                              () => pattern.exec(`http://${host}.com/`), T),
  () => assertSyncCallStopped('test() of a host of 16 Mi ideographs',
                              'URLPattern.prototype.test',
                              () => pattern.test(`http://${host}.com/`), T),
  () => assertSyncCallStopped('exec() with a long base',
                              'URLPattern.prototype.exec',
                              () => pattern.exec('/x', `http://${host}.com/`),
                              T),
  common.mustCall(() => {
    // Within a budget (the hops run to their end) and without one (ada's
    // own exec() and test()), as without the option.
    const expected = assertResultsAsWithoutOption(
      results, withoutOption,
      (i) => `call ${i} (pattern ${(i >> 1) / 13 | 0}, input ${(i >> 1) % 13})`);
    assert.strictEqual(expected.length, 9 * 13 * 2);
    // Both matches and misses were compared.
    assert.ok(expected.includes(true) && expected.includes(false));
  }),
]);
