// Flags: --event-loop-timeout=5000
'use strict';
// ada's IDNA processing took quadratic time in one call, where no timeout
// reaches: its punycode encoder scanned the whole label once per distinct
// code point (a host of 50,000 distinct ideographs took 1.5 s in new URL(),
// 200,000 about 25 s), and its canonical ordering of combining marks was an
// insertion sort (100,000 marks: a second). patches/ada makes both
// O(n log n) with the same results: here the large hosts parse inside one
// callback's budget (5 s, a hundredth of which suffices), and random labels
// convert as the punycode module and ICU's NFC say they should.
require('../common');
const assert = require('assert');
const { domainToASCII, domainToUnicode } = require('url');
const punycode = require('punycode');  // eslint-disable-line node-core/no-deprecated-modules
const { lcg, runEachInACallback } = require('../common/cure');

// 200,000 ideographs, nearly all distinct, in one label.
let ideographs = '';
for (let i = 0; i < 200_000; i++)
  ideographs += String.fromCharCode(0x4e00 + (i * 7919) % 20_000);
const marks = 'a' + '\u0301\u0316'.repeat(50_000);

// What UTS 46 makes of a lowercase label of letters, ideographs, syllables
// and marks that needs no mapping but NFC: 'xn--' + punycode(NFC(label)).
function expectedASCII(label) {
  const nfc = label.normalize('NFC');
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(nfc) ? nfc : `xn--${punycode.encode(nfc)}`;
}

const next = lcg(7);
const pieces = [
  () => String.fromCharCode(0x61 + next() % 26),
  () => String.fromCharCode(0x30 + next() % 10),
  () => String.fromCharCode(0xe0 + next() % 23),   // à..ö
  () => String.fromCharCode(0x4e00 + next() % 20_000),
  () => String.fromCharCode(0xac00 + next() % 11_172),
  () => String.fromCharCode(0x300 + next() % 0x40),  // U+0300..U+033F
];
function randomLabel(length) {
  let s = pieces[next() % 5]();  // A label does not start with a mark.
  while (s.length < length) s += pieces[next() % pieces.length]();
  return s;
}

runEachInACallback([
  // The punycode module's encoder is quadratic too: these are checked by
  // decoding (ada's decoder is not changed).
  () => {
    const host = new URL(`http://${ideographs}.com/`).host;
    assert.match(host, /^xn--[a-z0-9-]+\.com$/);
    assert.strictEqual(domainToUnicode(host), `${ideographs}.com`);
  },
  () => {
    // NFC reorders the marks by class (220 before 230) and composes the
    // first U+0301 with the 'a'. (ICU's normalize() of the whole would be
    // quadratic: it is checked on a short one.)
    const nfc = (n) => '\u00e1' + '\u0316'.repeat(n) + '\u0301'.repeat(n - 1);
    assert.strictEqual(('a' + '\u0301\u0316'.repeat(7)).normalize('NFC'),
                       nfc(7));
    const host = new URL(`http://${marks}.com/`).host;
    assert.strictEqual(domainToUnicode(host), `${nfc(50_000)}.com`);
  },
  () => {
    for (let i = 0; i < 3000; i++) {
      const label = randomLabel(1 + next() % (i < 100 ? 400 : 40));
      const ascii = domainToASCII(`${label}.example`);
      assert.strictEqual(ascii, `${expectedASCII(label)}.example`,
                         JSON.stringify(label));
    }
  },
]);
