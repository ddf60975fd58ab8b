// Flags: --event-loop-timeout=60000 --expose-internals --allow-natives-syntax --no-deprecation
'use strict';
// Every binding method that hands a request's string to ada runs ada on
// libuv's Priority Executor for inputs of more than 64 KiB
// (src/node_sync_hop.h,
// patches/node/src-ada-s-work-on-a-long-input-url-parsing-idna-runs-where-a-timeout-can.patch):
// besides new URL() and domainToASCII() (test-cure-event-loop-timeout-sync-url.js),
// URL.canParse() (also from optimized code, where short inputs take V8's
// fast call, which cannot throw), the URL setters (update()),
// url.format(), url.pathToFileURL(), getURLOrigin() (http2's origin set)
// and encoding_binding's IDNA toASCII()/toUnicode(). ada's IDNA of a host
// of 16 Mi ideographs took about 5 s on ./node-baseline. A stop throws the
// TimeoutError ("Synchronous <api> stopped", made only there). Within a
// budget, long and short inputs give the results of a run without the
// option.
require('../common');
const assert = require('assert');
const url = require('url');
const { runWithEventLoopTimeout } = require('node:cure');
const { internalBinding } = require('internal/test/binding');
const { getURLOrigin } = require('internal/url');
const { encode: punycodeEncode } = require('punycode');  // (deprecated)
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget).
const ideographs = (n) => Array.from(
  { length: n }, (_, i) => String.fromCodePoint(0x4e00 + i % 20902)).join('');
// 4 Mi ideographs: 0.8 s of IDNA (16 Mi took 3.5 s), and a UTF-8 copy
// (made in place, before the hop) of 12 MiB: with 48 MiB, that copy took
// getURLOrigin() past T + 1 s on a loaded machine.
const host = ideographs(2 ** 22);
// 16 Mi characters: the percent-encoding takes about 0.3 s.
const longPath = '/' + 'é'.repeat(2 ** 24);
// A URL whose href has a long punycode host: url.format(u, { unicode })
// parses it again and converts the host back.
const punycoded = new URL(`http://${ideographs(2 ** 21)}.com/`);
// A long punycode label, for toUnicode() (which only copies a label that
// is not one), made in linear time from one repeated code point.
const punyLabel = 'xn--' + punycodeEncode('é'.repeat(2 ** 22));

// Long and short inputs (over and under 64 KiB), with and without the
// option.
const results = `(() => {
  const url = require('url');
  const { createHash } = require('crypto');
  const { internalBinding } = require('internal/test/binding');
  const { getURLOrigin } = require('internal/url');
  const { toASCII, toUnicode } = internalBinding('encoding_binding');
  const digest = (s) => createHash('sha256').update(String(s)).digest('hex');
  const K = 64 * 1024;  // kHopInputBytes
  const ideographs = (n) => Array.from({ length: n },
    (_, i) => String.fromCodePoint(0x4e00 + i * 7 % 20902)).join('');
  const attempt = (fn) => {
    try { return fn(); } catch (e) { return e.code; }
  };
  const out = [];
  const urls = [
    'http://example.com/' + 'a/'.repeat(K),
    'http://' + ideographs(30000) + '.com/p#' + 'h'.repeat(K),
    'not a url ' + 'x'.repeat(K),
    'http://a.com/short',
  ];
  for (const u of urls) {
    out.push(URL.canParse(u), URL.canParse('../' + u, 'http://b.org/' + 'c/'.repeat(K)));
    out.push(digest(attempt(() => getURLOrigin(u))));
  }
  const u = new URL('http://user:pw@example.com:8080/p?q#h');
  const values = {
    hostname: ideographs(25000), pathname: 'é'.repeat(K), search: '?' + 's'.repeat(K),
    hash: '#' + 'ü'.repeat(K), username: 'n'.repeat(K), password: 'p'.repeat(K),
    href: 'https://' + ideographs(25000) + '/', protocol: 'ws', port: '81',
    host: 'bad host' + 'z'.repeat(K),
  };
  for (const [key, value] of Object.entries(values)) {
    attempt(() => { u[key] = value; });
    out.push(digest(u.href));
  }
  const f = new URL('http://' + ideographs(30000) + '.com/' + 'é'.repeat(K) + '?q#h');
  for (const unicode of [false, true]) {
    out.push(digest(url.format(f, { unicode, search: false, fragment: !unicode })));
  }
  for (const p of ['/' + 'é'.repeat(K), '/a b/%/' + 'c'.repeat(K), '/short']) {
    out.push(digest(url.pathToFileURL(p).href));
  }
  for (const h of [ideographs(40000), 'xn--' + 'a'.repeat(K), 'a.b', 'ü.example']) {
    out.push(digest(toASCII(h)), digest(toUnicode(toASCII(h))));
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results, ['--expose-internals']);

function canParseOptimized(input) {
  return URL.canParse(input);
}

const { toASCII, toUnicode } = internalBinding('encoding_binding');
const urlBinding = internalBinding('url');

runEachInACallback([
  () => assertSyncCallStopped('URL.canParse() of a host of 4 Mi ideographs',
                              'URL.canParse',
                              () => URL.canParse(`http://${host}.com/`), T),
  () => assertSyncCallStopped('URL.canParse() with a long base',
                              'URL.canParse',
                              () => URL.canParse('/x', `http://${host}/`), T),
  () => {
    // Optimized, where short inputs take the fast call.
    %PrepareFunctionForOptimization(canParseOptimized);
    for (let i = 0; i < 10; i++) canParseOptimized('http://a.com/');
    %OptimizeFunctionOnNextCall(canParseOptimized);
    assert.strictEqual(canParseOptimized('http://a.com/'), true);
    assertSyncCallStopped('URL.canParse() from optimized code',
                          'URL.canParse',
                          () => canParseOptimized(`http://${host}.com/`), T);
  },
  () => {
    const u = new URL('http://a.com/');
    assertSyncCallStopped('the hostname setter', 'url.update',
                          () => { u.hostname = host; }, T);
    // A stopped setter leaves the URL as it was.
    assert.strictEqual(u.href, 'http://a.com/');
  },
  () => assertSyncCallStopped('the pathname setter', 'url.update', () => {
    new URL('http://a.com/').pathname = longPath;
  }, T),
  () => assertSyncCallStopped('url.format() with unicode', 'url.format',
                              () => url.format(punycoded, { unicode: true }),
                              T),
  // url.pathToFileURL() resolves the path in JavaScript first, which V8
  // stops at this size; the binding's parse is called directly.
  () => assertSyncCallStopped('the binding of url.pathToFileURL()',
                              'url.pathToFileURL',
                              () => urlBinding.pathToFileURL(longPath, false),
                              T),
  () => assertSyncCallStopped('getURLOrigin()', 'url.getOrigin',
                              () => getURLOrigin(`http://${host}.com/`), T),
  () => assertSyncCallStopped('IDNA toASCII()', 'IDNA toASCII',
                              () => toASCII(host), T),
  () => assertSyncCallStopped('IDNA toUnicode()', 'IDNA toUnicode',
                              () => toUnicode(punyLabel), T),
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
