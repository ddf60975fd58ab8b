// Flags: --event-loop-timeout=60000
'use strict';
// One step of Intl.Segmenter's segment iterator is one call into ICU's break
// iterator, which nothing stopped. The step into a run of Chinese or Japanese text with
// granularity 'word' segments the whole run with ICU's dictionary in that
// call, and gives its first word (4 Mi ideographs: 0.8 s here, 0.94 s
// before the TimeoutError at --event-loop-timeout=100); so does a run of
// Thai (0.48 s for 4 Mi). The rules' own loop can read far past the
// boundary it gives: the first sentence of 'a. ' and 8 Mi '(' is 'a. ',
// found in 0.17 s. ICU's rule loop and its dictionary engines now count
// their steps (patches/icu/icu-let-the-embedder-stop-a-long-step-of-a-break-iterator.patch),
// V8 makes the calls in an IcuInterruptScope
// (patches/v8/v8-a-due-timeout-stops-a-long-step-of-a-segmenter.patch), and
// a stopped call leaves the iterator on the boundary where it began. A step
// that ran to its end would assign its result before the TimeoutError came
// (in the loop after it): a stop inside it leaves the variable unset. An
// iterator stopped inside a step goes on, after the TimeoutError, with the
// segments of a run without the option, and so do segments within a budget.
// (A step that gives a long segment, a word of 16 Mi letters, is sized: it
// copies the segment out, which takes as long as finding it.)
const common = require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertResultsAsWithoutOption, assertStopped, assertStoppedInside,
  printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 5;

// Made while the main module runs (no budget).
const N = 2 ** 20;
const chinese = 'x ' + '一'.repeat(N) + ' y';
const thai = 'x ' + '\u0e01'.repeat(N) + ' y';
const parentheses = 'a. ' + '('.repeat(8 * N) + 'B c';
// A Thai letter and a run of word joiners (no dictionary's), then kana: a
// step stopped in the scan for dictionary characters made ICU an engine
// for the joiner, which then took the run of kana from the Japanese
// dictionary (a second reading's).
// (4 Mi of them: a step over 1 Mi took 17 to 25 ms, too close to a
// budget of 5 ms on a loaded machine.)
const joiners = 'x ก' + '\u2060'.repeat(4 * N) +
  ' ーカタカナーカタカナ 東京ーカタカナ y';
// Words of four scripts that alternate (3.8 Mi characters): each engine's
// loops are short, and 14 Mi characters of them ran 0.7 to 1.1 s without a
// poll (ICU's countdowns now go on from one loop to the next).
const alternating = 'x ' + 'ภาษาไทยສະບາຍດີမြန်မာភាសាខ្មែរ'.repeat(N >> 3) + ' y';
for (const s of [chinese, thai, parentheses, joiners, alternating]) {
  s.indexOf('z');
}
// ICU loads its Japanese dictionary at its first kana (as in the run
// without the option, below).
Array.from(new Intl.Segmenter('ja', { granularity: 'word' }).segment('カナ'));

const words = (locale) => new Intl.Segmenter(locale, { granularity: 'word' });
const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

// The iterator of `segmenter` over `text`, after its first `skip`
// segments: its next step is the long one.
function positioned(segmenter, text, skip) {
  const it = segmenter.segment(text)[Symbol.iterator]();
  for (let i = 0; i < skip; i++) it.next();
  return it;
}

// Each step into a long run, through each path: the next() of a segment
// iterator, into the dictionary engines for Chinese and Thai (after 'x' and
// ' '), and the rule loop for the first sentence, 'a. ', read over the
// parentheses. (A segments object's containing():
// test-cure-event-loop-timeout-segmenter-containing.js.)
const steps = [
  ['a Chinese run', () => positioned(words('zh'), chinese, 2)],
  ['a Japanese run', () => positioned(words('ja'), chinese, 2)],
  ['a Thai run', () => positioned(words('th'), thai, 2)],
  ['a sentence before parentheses', () => positioned(sentences, parentheses,
                                                     0)],
  ['a run of word joiners', () => positioned(words('ja'), joiners, 2)],
  ['words of alternating scripts',
   () => positioned(words('th'), alternating, 2)],
];

// What a segment iterator gives after a stopped step: the rest of its
// segments, as [index, isWordLike] pairs (a million of them: their digest).
const rest = (it) => require('crypto').hash('sha256', JSON.stringify(
  Array.from(it, (s) => [s.index, s.isWordLike])));

const restWithoutOption = printWithoutOptions(`(() => {
  const words = (l) => new Intl.Segmenter(l, { granularity: 'word' });
  const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });
  const N = ${N};
  const texts = [
    [words('zh'), 'x ' + '一'.repeat(N) + ' y', 2],
    [words('ja'), 'x ' + '一'.repeat(N) + ' y', 2],
    [words('th'), 'x ' + '\\u0e01'.repeat(N) + ' y', 2],
    [sentences, 'a. ' + '('.repeat(8 * N) + 'B c', 0],
    [words('ja'), 'x ก' + '\\u2060'.repeat(4 * N) +
                  ' ーカタカナーカタカナ 東京ーカタカナ y', 2],
    [words('th'), 'x ' + 'ภาษาไทยສະບາຍດີမြန်မာភាសាខ្មែរ'.repeat(N >> 3) +
                  ' y', 2],
  ];
  Array.from(words('ja').segment('カナ'));
  return JSON.stringify(texts.map(([s, t, skip]) => {
    const it = s.segment(t)[Symbol.iterator]();
    for (let i = 0; i < skip; i++) it.next();
    return require('crypto').hash('sha256', JSON.stringify(
      Array.from(it, (s) => [s.index, s.isWordLike])));
  }));
})()`);

// Segments of texts that mix scripts, within a budget: those of a run
// without the option.
const results = `(() => {
  const texts = [
    'Hello, world! 你好世界。今日は良い天気ですね。',
    'ภาษาไทยเป็นภาษาที่ยาก ' + 'สวัสดีครับ'.repeat(500),
    '中华人民共和国'.repeat(3000) + ' and ' + 'ເມືອງລາວ'.repeat(1000),
    'ព្រះរាជាណាចក្រកម្ពុជា'.repeat(500) + 'မြန်မာနိုင်ငံ'.repeat(500),
    'e\\u0301'.repeat(5000) + ' 👍🏽👨‍👩‍👧 ' + 'ｶﾀｶﾅ'.repeat(2000),
    'a'.repeat(100000) + ' ' + '一二三'.repeat(20000),
    'Mr. Smith. ' + '('.repeat(70000) + 'b c. ' + ')'.repeat(70000) + ' D',
  ];
  const out = [];
  for (const [locale, granularity] of [['ja', 'word'], ['th', 'word'],
                                       ['en', 'grapheme'],
                                       ['en', 'sentence'], ['zh', 'word']]) {
    const s = new Intl.Segmenter(locale, { granularity });
    for (const t of texts) {
      out.push(JSON.stringify(Array.from(s.segment(t),
                                         (x) => [x.index, x.isWordLike])));
      const segments = s.segment(t);
      for (const i of [0, 1, 7, t.length >> 1, t.length - 1]) {
        const x = segments.containing(i);
        out.push(JSON.stringify([x.index, x.segment.length]));
      }
    }
  }
  return JSON.stringify(out);
})()`;

// Within a budget first: the main module has none.
const withoutOption = printWithoutOptions(results);

const cases = [];
for (const [label, make] of steps) {
  cases.push(() => {
    const it = make();
    assertStoppedInside(`the next() of ${label}`, () => it.next(), T);
  });
}
cases.push(
  () => {
    // An iterator stopped inside a step goes on as one that was not.
    const got = steps.map(([label, make]) => {
      const it = make();
      assertStopped(`the next() of ${label}, then the rest`,
                    () => it.next(), T);
      return rest(it);
    });
    const expected = JSON.parse(restWithoutOption);
    for (let i = 0; i < steps.length; i++) {
      assert.strictEqual(got[i], expected[i], steps[i][0]);
    }
  },
  () => assertResultsAsWithoutOption(results, withoutOption),
  () => setImmediate(common.mustCall()),
);
runEachInACallback(cases);
