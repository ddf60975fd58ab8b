// Flags: --event-loop-timeout=100
'use strict';
// ICU's canonical reordering is an insertion sort: a run of combining marks
// out of order (here 100,000 code units of U+0301 and U+0316, whose
// combining classes are 230 and 220) costs quadratic time inside one ICU
// call, in String.prototype.normalize() and in the collation of
// localeCompare() and Intl.Collator#compare (seconds upstream). The
// reordering now polls (patches/icu) and a due timeout is thrown there.
// Results are upstream's: ICU's NormalizationTest.txt (where the build tree
// has it) and random text with runs of marks, compared with a run without
// the option.
require('../common');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { assertInterrupted, deriveWithoutOptions, runEachInACallback } =
  require('../common/cure');
const { runWithEventLoopTimeout } = require('node:cure');

const T = 100;

const marks = 'a' + '\u0301\u0316'.repeat(50_000);
const reversed = 'a' + '\u0316\u0301'.repeat(50_000);
const collator = new Intl.Collator('en');

// Random strings of letters, a few precomposed letters and runs of up to 40
// marks of several combining classes; cases are [seed, length].
const cases = [];
for (let seed = 1; seed <= 24; seed++) cases.push([seed, 200 * seed]);

// Self-contained: also run without nodecure's options.
function derive(cases) {
  const { createHash } = require('crypto');
  const alphabet = ['a', 'e', 'o', '\u00e9', '\u1e69', '\u0344', '\uac00'];
  const combining = ['\u0301', '\u0316', '\u0323', '\u0308', '\u031b',
                     '\u0345', '\u05b0', '\u0f72', '\u302a'];
  const h = (s) => createHash('sha256').update(s).digest('hex').slice(0, 16);
  return cases.map(([seed, length]) => {
    let x = seed;
    const next = (n) => {
      x = (x * 1103515245 + 12345) & 0x3fffffff;
      return x % n;
    };
    let s = '';
    while (s.length < length) {
      s += alphabet[next(alphabet.length)];
      for (let run = next(41); run > 0; run--)
        s += combining[next(combining.length)];
    }
    const t = s.split('').reverse().join('');
    return [h(s.normalize('NFC')), h(s.normalize('NFD')),
            h(s.normalize('NFKC')), h(s.normalize('NFKD')),
            s.localeCompare(t), new Intl.Collator('de').compare(t, s),
            s.localeCompare(s.normalize('NFD'))];
  });
}

const expected = deriveWithoutOptions(derive, cases);

// ICU's conformance data: c2 == NFC(c1) == NFC(c2) == NFC(c3), and so on.
function conformance(file) {
  let checked = 0;
  for (const line of fs.readFileSync(file, 'latin1').split('\n')) {
    if (line === '' || line[0] === '#' || line[0] === '@') continue;
    const c = line.split(';').slice(0, 5).map((field) => String.fromCodePoint(
      ...field.trim().split(' ').map((hex) => parseInt(hex, 16))));
    for (const i of [0, 1, 2]) {
      assert.strictEqual(c[i].normalize('NFC'), c[1], line);
      assert.strictEqual(c[i].normalize('NFD'), c[2], line);
    }
    for (const i of [0, 1, 2, 3, 4]) {
      assert.strictEqual(c[i].normalize('NFKC'), c[3], line);
      assert.strictEqual(c[i].normalize('NFKD'), c[4], line);
    }
    checked++;
  }
  assert.ok(checked > 10000, `${checked} lines`);
}
const data = path.join(__dirname, '..', '..', 'deps', 'icu', 'source',
                       'data', 'unidata', 'NormalizationTest.txt');

runEachInACallback([
  () => {
    // Without a budget (they take longer than one), on the polling paths.
    assert.deepStrictEqual(runWithEventLoopTimeout(0, derive, cases),
                           expected);
    if (fs.existsSync(data)) runWithEventLoopTimeout(0, conformance, data);
    else console.log(`no ${data}: conformance data not checked`);
  },
  () => assertInterrupted('NFD of 100,000 marks',
                          () => marks.normalize('NFD'), T),
  () => assertInterrupted('NFC of 100,000 marks',
                          () => reversed.normalize('NFC'), T),
  () => assertInterrupted('NFKD of 100,000 marks',
                          () => marks.normalize('NFKD'), T),
  () => assertInterrupted('localeCompare() of 100,000 marks',
                          () => marks.localeCompare(reversed), T),
  () => assertInterrupted('Intl.Collator#compare of 100,000 marks',
                          () => collator.compare(reversed, marks), T),
  () => assertInterrupted('sort() by Intl.Collator#compare',
                          () => [marks, reversed, 'b'].sort(collator.compare),
                          T),
  () => {
    // After the timeout, the same calls on ordinary strings are upstream's.
    assert.strictEqual('a\u0301\u0316'.normalize('NFD'), 'a\u0316\u0301');
    assert.strictEqual('e\u0316\u0301'.normalize('NFC'), '\u00e9\u0316');
    assert.strictEqual('a\u0301\u0316'.localeCompare('a\u0316\u0301'), 0);
    assert.strictEqual(collator.compare('\u00e9', 'e\u0301'), 0);
  },
]);
