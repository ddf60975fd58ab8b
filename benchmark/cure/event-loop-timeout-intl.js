'use strict';
// The cost of nodecure's polls in ICU, the RegExp parser, BigInt parsing,
// locale lists and ada's IDNA code on ordinary inputs, when no timeout
// fires. With budget>0 nodecure installs its V8 delegate: ICU calls that
// may reorder combining marks or parse a language tag run with ICU's
// InterruptCallback set (patches/icu), the RegExp parser polls, BigInt()
// of a string converts a copy of its parts, and locale lists poll; with
// budget=0 they take upstream's paths. The url-* cases run ada's IDNA code,
// which nodecure made linear (patches/ada) with or without a budget.
// Compare ./node against ./node-baseline (make baseline) with
// benchmark/compare.js; an operation is one call of a case's work, repeated
// (reps below) to about 5 ms.
const common = require('../common.js');
const { setEventLoopBudget, timeInACallback } = require('./_budget.js');

const bench = common.createBenchmark(main, {
  op: ['normalize-marks', 'localecompare', 'collator-sort', 'locale-list',
       'locale-tag', 'regexp-property', 'bigint-parse', 'url-idna'],
  budget: [0, 60000],
  n: [200],
});

// Words with accents and combining marks (some out of canonical order).
const words = [];
for (let i = 0; i < 1000; i++) {
  words.push(['Ä', 'é', 'o\u0316\u0301', 'ç', 'ñ', 'a\u0301\u0323', 'ø',
              'ü'][i % 8] + 'x'.repeat(i % 7) + (i * 7919 % 1000));
}

function setUp(op) {
  switch (op) {
    case 'normalize-marks':
      return () => {
        let length = 0;
        for (const w of words) length += w.normalize('NFD').length;
        return length;
      };
    case 'localecompare':
      return () => {
        let sum = 0;
        for (let i = 1; i < words.length; i++)
          sum += words[i].localeCompare(words[i - 1]);
        return sum;
      };
    case 'collator-sort': {
      const collator = new Intl.Collator('de');
      return () => words.slice().sort(collator.compare).length;
    }
    case 'locale-list': {
      const list = ['en-US', 'de-DE', 'fr', 'zh-Hant-TW', 'en-US'];
      return () => {
        let length = 0;
        for (let i = 0; i < 100; i++) length += Intl.getCanonicalLocales(list).length;
        return length;
      };
    }
    case 'locale-tag':
      return () => {
        let length = 0;
        for (let i = 0; i < 100; i++) {
          length += new Intl.Locale('sl-rozaj-biske-1994').baseName.length;
          length += Intl.getCanonicalLocales('de-1996-u-co-phonebk')[0].length;
        }
        return length;
      };
    case 'regexp-property': {
      let counter = 0;
      return () => {
        // A new source each time: the compilation cache does not help.
        const re = new RegExp(`^\\p{Lu}\\p{Ll}+\\s\\p{Script=Greek}+${counter++}$`,
                              'u');
        return re.test('Ωmega αβγ0') ? 1 : 0;
      };
    }
    case 'bigint-parse': {
      const short = '123456789012345678901234567890';
      const long = '9'.repeat(2000);
      return () => {
        let bits = 0;
        for (let i = 0; i < 200; i++) bits += BigInt(short) > 0n ? 1 : 0;
        for (let i = 0; i < 5; i++) bits += BigInt(long) > 0n ? 1 : 0;
        return bits;
      };
    }
    case 'url-idna':
      return () => {
        let length = 0;
        for (let i = 0; i < 20; i++)
          length += new URL(`http://bücher-ünd-straße${i}.example/ü`).host.length;
        return length;
      };
  }
}

// Repetitions of each case's work in one call, about 5 ms on a 2-core
// machine, so that one run of n=200 lasts about a second.
const reps = {
  'normalize-marks': 40, 'localecompare': 50, 'collator-sort': 5,
  'locale-list': 5, 'locale-tag': 3, 'regexp-property': 15,
  'bigint-parse': 60, 'url-idna': 55,
};

function main({ op, budget, n }) {
  setEventLoopBudget(budget);
  const once = setUp(op);
  timeInACallback(bench, n, () => {
    let sum = 0;
    for (let i = 0; i < reps[op]; i++) sum += once();
    return sum;
  });
}
