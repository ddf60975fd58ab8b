// Flags: --event-loop-timeout=60000 --expose-internals
'use strict';
// The icu binding's getStringWidth() (console.table(), readline) polls
// for a due timeout every 4096 code points
// (patches/node/src-a-timeout-stops-getstringwidth-of-a-long-string-between-code-points.patch):
// on ./node-baseline 16 Mi characters took 125 ms with nothing to stop
// them. A stop throws the TimeoutError ("Synchronous getStringWidth
// stopped", made only there). Within a budget, the widths of long and
// short strings are those of a run without the option.
require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const { internalBinding } = require('internal/test/binding');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;
const icu = internalBinding('icu');

// Made while the main module runs (no budget): 64 Mi code points of
// several widths.
const text = 'é漢\u0301😀'.repeat(2 ** 24);

const results = `(() => {
  const { getStringWidth } = require('internal/util/inspect');
  const K = 4096;  // the poll's period
  const strings = [
    'é漢\\u0301😀\\u200d👍'.repeat(K + 7), '\\x1b[31mred\\x1b[0m' + 'ü'.repeat(3 * K),
    'ascii only', '', '\\u00ad\\u2028' + '가'.repeat(K),
  ];
  const out = [];
  for (const s of strings) {
    out.push(getStringWidth(s), getStringWidth(s, false));
  }
  return JSON.stringify(out);
})()`;

const withoutOption = printWithoutOptions(results, ['--expose-internals']);

runEachInACallback([
  () => assertSyncCallStopped('getStringWidth() of 64 Mi code points',
                              'getStringWidth',
                              () => icu.getStringWidth(text), T),
  () => {
    // Within a budget (a generous one) the results are those of a run
    // without the option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
  },
]);
