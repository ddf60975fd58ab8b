// Flags: --event-loop-timeout=60000
'use strict';
// new URL() and url.domainToASCII() / domainToUnicode() of an input of
// more than 64 KiB run ada on libuv's Priority Executor while the loop
// waits (src/node_sync_hop.h,
// patches/node/src-ada-s-work-on-a-long-input-url-parsing-idna-runs-where-a-timeout-can.patch):
// ada parses and converts IDNA in one call with nothing to poll, and the
// host of 8 million ideographs below took about 2 s on ./node-baseline,
// past the bound of assertStopped(). A stop throws the TimeoutError
// ("Synchronous new URL stopped", made only there) and leaves the parse to
// finish on the executor, which owns copies of its inputs. Long and short
// URLs parsed within a budget give the results of a run without the option.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one (see test-cure-event-loop-timeout-structured-clone.js).
const common = require('../common');
const assert = require('assert');
const url = require('url');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, ideographs, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget): a host of 16 Mi distinct
// ideographs (IDNA of each label: O(n log n) with patches/ada).
const host = ideographs(2 ** 24);


// Long and short URLs, hosts and bases (over and under 64 KiB), with and
// without the option.
const results = `(() => {
  const url = require('url');
  const { createHash } = require('crypto');
  const digest = (s) => createHash('sha256').update(s).digest('hex');
  const K = 64 * 1024;  // kHopInputBytes
  const ideographs = (n) => Array.from({ length: n },
    (_, i) => String.fromCodePoint(0x4e00 + i * 7 % 20902)).join('');
  const inputs = [
    ['http://example.com/' + 'a/'.repeat(K), undefined],
    ['/' + 'é'.repeat(K) + '?q=' + '%zz'.repeat(100), 'https://x.org/base/'],
    ['http://' + ideographs(30000) + '.com/p#' + 'h'.repeat(K), undefined],
    ['../' + 'b'.repeat(K + 1), 'http://user:pw@host.com:8080/' + 'c/'.repeat(K)],
    ['http://[::1' + ':1'.repeat(K) + ']/', undefined],
    ['not a url ' + 'x'.repeat(K), undefined],
    ['http://a.com/short', undefined],
  ];
  const out = [];
  for (const [input, base] of inputs) {
    let r;
    try {
      const u = new URL(input, base);
      r = [u.href, u.host, u.pathname.length, u.search, u.hash.length];
    } catch (e) {
      r = [e.code];
    }
    out.push(digest(JSON.stringify(r)));
  }
  for (const h of [ideographs(40000), 'xn--' + 'a'.repeat(K), 'a'.repeat(K),
                   'bad host ' + 'z'.repeat(K), 'ünicode.example']) {
    out.push(digest(url.domainToASCII(h)));
    out.push(digest(url.domainToUnicode(url.domainToASCII(h) || h)));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertSyncCallStopped('new URL() of a host of 16 Mi ideographs',
                              'new URL', () => new URL(`http://${host}.com/`),
                              T),
  () => assertSyncCallStopped('new URL() with a long base', 'new URL',
                              () => new URL('/x', `http://${host}.com/`), T),
  () => assertSyncCallStopped('url.domainToASCII()', 'url.domainToASCII',
                              () => url.domainToASCII(host), T),
  () => {
    // A stopped parse leaves nothing behind: the next ones parse (on a new
    // executor thread, the stopped one still busy).
    assert.strictEqual(new URL('http://ü.example/a').href,
                       'http://xn--tda.example/a');
    const long = 'http://example.com/' + 'p'.repeat(100000);
    assert.strictEqual(new URL(long).href, long);
  },
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
  () => setImmediate(common.mustCall()),
]);
