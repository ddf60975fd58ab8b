// Flags: --event-loop-timeout=40
'use strict';
// A callback that goes on after its TimeoutError gets the next one a budget
// after the first was thrown, not a budget after the watchdog's last report.
// A step that cannot be interrupted (flattening a string built by
// concatenation) delays the first error past several reports; before, the
// next came at the next report, anywhere from 0 to one budget after the
// first: into the code handling it, often outside any catch (the EHP
// suite's Express app died so, in its router, under 20 ms budgets).
//
// The flattening must outlast the budget by far on any machine: when it
// ended near the first report, the search after it could finish before the
// interrupt was checked, and the TimeoutError was then due in node:assert
// (held back there) instead of in indexOf() (a CI run on a quiet machine:
// 'not interrupted' in a 210 ms test). A two-byte rope of 2^28 characters
// (512 MiB flat) takes twice as long as the one-byte one did, and the
// budget is 40 ms instead of 100.
const common = require('../common');
const assert = require('assert');
const { runEachInACallback } = require('../common/cure');

const T = 40;

function round() {
  // 2^28 two-byte characters as a tree of concatenations: indexOf()
  // flattens it first, for several budgets, then searches and polls.
  const rope = 'a\u0100'.repeat(2 ** 27);
  let caught;
  try {
    rope.indexOf('z');
    assert.fail('not interrupted');
  } catch (err) {
    assert.ok(err instanceof TimeoutError, `${err}`);
    caught = performance.now();
  }
  try {
    for (;;);
  } catch (err) {
    assert.ok(err instanceof TimeoutError, `${err}`);
    const next = performance.now() - caught;
    console.log(`next TimeoutError ${next.toFixed(1)} ms after the first`);
    assert.ok(next >= 0.8 * T, `${next} ms after the first`);
  }
}

runEachInACallback([round, round, round, round, round].map((f) => f));
