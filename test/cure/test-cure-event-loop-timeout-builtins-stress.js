// Flags: --event-loop-timeout=60000
'use strict';
// Stress of the polls inside ICU (normalization, collation, language tags),
// the RegExp parser, BigInt parsing, locale lists and the string searches:
// calls with budgets of 1 to 8 ms (runWithEventLoopTimeout()) stop them at
// arbitrary points, on the main thread and in two workers at once. Each
// call must either return what it returns without a budget or throw the
// TimeoutError: no other error, no crash, and no state left behind by an
// interrupted call (ICU's per-thread callback, a half-parsed pattern) that
// would change a later result.
require('../common');
const { runStressOnThreads } = require('../common/cure');

const marks = (n, order) => 'a' + order.repeat(n / 2);
const tag = (n) => 'en-' + Array.from({ length: n },
                                      (_, i) => `v${(46656 + i).toString(36)}`)
  .join('-');
const collator = new Intl.Collator('de');
const half = 'a'.repeat(2 ** 20);

// [name, sizes, operation]: each result is a string.
const operations = [
  ['nfd', [200, 2000, 30000],
   (n) => marks(n, '\u0301\u0316').normalize('NFD').slice(-9)],
  ['nfc', [200, 2000, 30000],
   (n) => marks(n, '\u0316\u0301').normalize('NFC').slice(0, 9)],
  ['localeCompare', [200, 2000, 20000],
   (n) => String(marks(n, '\u0301\u0316').localeCompare(
     marks(n, '\u0316\u0301') + 'b'))],
  ['collator', [200, 2000, 20000],
   (n) => String(collator.compare(marks(n, '\u0316\u0301') + 'x',
                                  marks(n, '\u0301\u0316')))],
  ['tag', [3, 500, 8000], (n) => {
    try {
      return Intl.getCanonicalLocales(tag(n))[0];
    } catch (err) {
      if (err instanceof RangeError) return 'RangeError';
      throw err;
    }
  }],
  ['list', [10, 500, 30000], (n) => {
    const list = Array.from({ length: n }, (_, i) => `de-x-${i % 977}`);
    return Intl.getCanonicalLocales(list).slice(-3).join();
  }],
  ['regexp', [10, 400, 16000], (n) => {
    // One class of n property escapes: long to parse, small to match.
    const re = new RegExp(`^[${'\\p{Script=Greek}\\p{N}'.repeat(n / 2)}]+x${n}$`,
                          'u');
    return `${re.source.length}:${re.test(`α1x${n}`)}:${re.test('bx')}`;
  }],
  ['bigint', [100, 20000, 1000000],
   (n) => String(BigInt('7'.repeat(n)) % 1000003n)],
  ['indexOf', [1, 2, 64], (n) => {
    // A cons string, flattened inside the call.
    let s = half;
    for (let i = 1; i < n; i++) s = s + half;
    return String(s.indexOf('a'.repeat(500) + 'b'));
  }],
  ['url', [10, 500, 20000], (n) => {
    let host = '';
    for (let i = 0; i < n; i++) host += String.fromCharCode(0x4e00 + i % 20000);
    return new URL(`http://${host}.com/`).host.slice(-12);
  }],
];

runStressOnThreads(__filename, operations, 120);
