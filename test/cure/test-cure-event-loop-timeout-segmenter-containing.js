// Flags: --event-loop-timeout=60000
'use strict';
// A segments object's containing(n) in the middle of a long run of Chinese,
// Japanese or Thai walks back over the run and segments it with ICU's
// dictionary in one call (4 Mi ideographs: about a second), and nothing
// stopped it. Its calls of the break iterator (isBoundary() or preceding(),
// then following()) now stop for a due timeout, and a stopped containing()
// leaves the iterator, its caches included, as it was before the call
// (icu::InterruptCallback::Checkpoint, patches/icu/icu-let-the-embedder-stop-a-long-step-of-a-break-iterator.patch;
// patches/v8/v8-a-due-timeout-stops-a-long-step-of-a-segmenter.patch). A
// call that ran to its end would assign its result before the TimeoutError
// came (in the loop after it): a stop inside it leaves the variable unset.
// ICU's segments of a dictionary run depend on where the cached range
// began, so a stop that left the iterator elsewhere would change what
// later calls give (a second reading found 'ที่ก' for 'ที่', 'ก'): its
// three cases, and calls at random places in texts of many runs, each
// tried first under a budget of 1 to 3 ms and made again when stopped,
// give what the same calls give in a run without the option.
const common = require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout, TimeoutError } = require('node:cure');
const {
  assertStopped, assertStoppedInside, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 5;

// Made while the main module runs (no budget).
const N = 2 ** 20;
const chinese = 'x ' + '一'.repeat(N) + ' y';
const thai = 'x ' + '\u0e01'.repeat(N) + ' y';
// containing() in it takes 1.1 s; a stop there made the rules crawl back
// over the spaces, 30 at a time, for up to 2.6 s more (a second reading's).
const spaces = 'a'.repeat(100) + ' '.repeat(8 * N) + 'x';
// A rule loop per pair of regional indicators, each too short for its own
// countdown to ask: 8 Mi of them ran 64 to 256 ms past budgets of 10 to
// 40 ms (ICU's countdowns now go on from one loop to the next).
const flags = '\u{1F1E6}'.repeat(8 * N);
for (const s of [chinese, thai, spaces, flags]) s.indexOf('z');
// ICU loads its dictionaries at their first character.
for (const [l, t] of [['ja', 'カナ一'], ['th', 'ไทย'], ['zh', '中文']]) {
  Array.from(new Intl.Segmenter(l, { granularity: 'word' }).segment(t));
}

const words = (locale) => new Intl.Segmenter(locale, { granularity: 'word' });

// The middle of each long run, through each locale's dictionary.
const stops = [
  ['a Chinese run', () => words('zh').segment(chinese), N >> 1],
  ['a Japanese run', () => words('ja').segment(chinese), N >> 1],
  ['a Thai run', () => words('th').segment(thai), N >> 1],
];

// Texts of many runs of dictionary words (the same in the child: an LCG),
// and the places of the calls in them.
const program = `(() => {
  let x = 12345;
  const next = () => (x = (x * 1103515245 + 12345) & 0x3fffffff);
  const vocabulary = {
    th: ['ที่', 'ก', 'การ', 'ประเทศ', 'ไทย', 'ภาษา', 'เป็น', 'มี', 'คน',
         'ใน', 'ของ', 'และ', 'ได้', 'ไป', 'มา', 'กา', 'รก', 'ที่ก'],
    ja: ['東京', 'カタカナ', 'ひらがな', 'の', 'は', '日本語', 'ー', 'です',
         '大学', '学生', '一', '二', '三', 'カ'],
    zh: ['中华', '人民', '共和国', '的', '是', '在', '我们', '北京', '大学',
         '生活', '一', '中'],
  };
  const run = (w, n) => {
    let s = '';
    while (s.length < n) s += w[next() % w.length];
    return s;
  };
  return Object.entries(vocabulary).map(([locale, w]) => {
    const runs = [];
    for (let i = 0; i < 8; i++) runs.push(run(w, 20000 + next() % 20000));
    const all = runs.join(locale === 'th' ? ' x ' : '。');
    const places = [];
    for (let i = 0; i < 40; i++) places.push(next() % all.length);
    return [locale, all, places];
  });
})()`;

// [index, length, isWordLike] of each containing(), in order, without the
// option.
const withoutOption = JSON.parse(printWithoutOptions(`JSON.stringify(
  ${program}.map(([locale, text, places]) => {
    const segments = new Intl.Segmenter(locale, { granularity: 'word' })
      .segment(text);
    return places.map((p) => {
      const s = segments.containing(p);
      return [s.index, s.segment.length, s.isWordLike];
    });
  }))`));

// The cases of a second reading (reduced): a containing() in a long run,
// stopped, left the calls before and after it in a short run at the start
// other segments than a run without the option gives ('ที่ก' for 'ที่',
// 'ก'). [locale, head, fill, the far place after the head, before, after]
const farAway = `[
  ['th', 'x เป็นฯๆ่ประเทศ ไทย ', 'ก', 1, [7], [8]],
  ['th', 'x ฃโรงเรียนที่ก ', 'ก', 20, [7], [12, 14]],
  ['ja', 'x カタカナカタカナカタカナー ', '一', 20, [6], [10, 14]],
]`;
const farAwayWithoutOption = JSON.parse(printWithoutOptions(`JSON.stringify(
  ${farAway}.map(([locale, head, fill, far, before, after]) => {
    const segments = new Intl.Segmenter(locale, { granularity: 'word' })
      .segment(head + fill.repeat(2 ** 18) + ' y');
    return [...before, ...after].map((p) => {
      const s = segments.containing(p);
      return [s.index, s.segment, s.isWordLike];
    });
  }))`));

const cases = [];
for (const [label, make, n] of stops) {
  cases.push(() => {
    const segments = make();
    assertStoppedInside(`containing() in the middle of ${label}`,
                        () => segments.containing(n), T);
  });
}
cases.push(
  () => {
    for (const granularity of ['word', 'grapheme']) {
      const segments = new Intl.Segmenter('en', { granularity })
        .segment(flags);
      const label = `containing() in regional indicators (${granularity})`;
      assertStoppedInside(label, () => segments.containing(8 * N), 20, 3);
    }
  },
  () => {
    const segments = words('en').segment(spaces);
    assertStoppedInside('containing() in a run of spaces',
                        () => segments.containing(100000), 20);
    const s = segments.containing(100000);
    assert.deepStrictEqual([s.index, s.segment.length], [100, 8 * N]);
  },
  () => {
    const farCases = eval(farAway);
    const got = farCases.map(([locale, head, fill, far, before, after]) => {
      const segments = words(locale).segment(head + fill.repeat(2 ** 18) +
                                             ' y');
      const show = (p) => {
        const s = segments.containing(p);
        return [s.index, s.segment, s.isWordLike];
      };
      const out = before.map(show);
      assertStopped(`containing() far away (${locale})`,
                    () => segments.containing(head.length + far), 2);
      return [...out, ...after.map(show)];
    });
    assert.deepStrictEqual(got, farAwayWithoutOption);
  },
  () => {
    // Calls tried under 1 to 3 ms, and made again when stopped, give the
    // segments of a run without the option.
    let stopped = 0;
    const got = eval(program).map(([locale, text, places], t) => {
      const segments = words(locale).segment(text);
      return places.map((p, i) => {
        let s;
        try {
          s = runWithEventLoopTimeout(1 + (i + t) % 3,
                                      () => segments.containing(p));
        } catch (err) {
          assert.ok(err instanceof TimeoutError, err);
          stopped++;
          s = segments.containing(p);
        }
        return [s.index, s.segment.length, s.isWordLike];
      });
    });
    console.log(`containing(): ${stopped} of 120 calls stopped, then made ` +
                'again');
    assert.ok(stopped > 0, 'no call was stopped');
    for (let t = 0; t < got.length; t++) {
      for (let i = 0; i < got[t].length; i++) {
        assert.deepStrictEqual(got[t][i], withoutOption[t][i],
                               `text ${t}, call ${i}`);
      }
    }
  },
  () => setImmediate(common.mustCall()),
);
runEachInACallback(cases);
