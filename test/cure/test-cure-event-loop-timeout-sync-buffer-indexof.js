// Flags: --event-loop-timeout=100
'use strict';
// buf.indexOf(), buf.lastIndexOf() and buf.includes() of a string or a
// buffer search in windows of 256 KiB (src/node_buffer_search.h) and are
// stopped between them: a search of 'ab' in 512 MiB of 'a' took 3.0 s in
// one call (13 s for 2 GiB), with nothing asking for the budget. Searches
// that are not stopped give the results of a run without the option, with
// matches before, across and after window boundaries, forward and backward,
// in every encoding the search takes, and with needles longer than a
// window.
require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');
const { runWithEventLoopTimeout } = require('node:cure');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 100;

// Made while the main module runs (no budget).
const big = Buffer.alloc(512 * 2 ** 20, 0x61);

// Results of searches over five windows, with and without the option.
const results = `(() => {
  const W = 2 ** 18;
  const hay = Buffer.alloc(5 * W + 7, 0x61);
  // Matches of 'xyz' at: 10; across the first and second windows; at the
  // last position; and 'ab' in UTF-16 across the third window.
  for (const at of [10, W - 1, 3 * W + 5, hay.length - 3]) hay.write('xyz', at);
  hay.write('ab', 2 * W - 2, 'utf16le');
  const long = Buffer.alloc(W + 3, 0x61);
  long.write('xyz', W);
  const out = [];
  for (const needle of ['xyz', Buffer.from('xyz'), 'zz', Buffer.from('aax'),
                        long, long.subarray(1)]) {
    for (const from of [undefined, 0, 11, W, -W, 3 * W + 6, -1, hay.length]) {
      out.push(hay.indexOf(needle, from), hay.lastIndexOf(needle, from),
               hay.includes(needle, from));
    }
  }
  for (const enc of ['latin1', 'ascii', 'utf8', 'ucs2', 'hex', 'base64']) {
    out.push(hay.indexOf('ab', 0, enc), hay.lastIndexOf('ab', undefined, enc),
             hay.indexOf('xyz', 1, enc), hay.lastIndexOf('xyz', -4, enc));
  }
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = spawnSync(process.execPath, ['-p', results], {
  encoding: 'utf8',
});
assert.strictEqual(withoutOption.status, 0, withoutOption.stderr);

runEachInACallback([
  () => assertInterrupted('indexOf', () => big.indexOf('ab'), T),
  () => assertInterrupted('lastIndexOf', () => big.lastIndexOf('ba'), T),
  () => assertInterrupted('includes of a Buffer',
                          () => big.includes(Buffer.from('aab')), T),
  () => assertInterrupted('indexOf, UTF-16',
                          () => big.indexOf('ab', 0, 'utf16le'), T),
  () => {
    // A search that is stopped has no state to spoil: the next one works.
    assert.strictEqual(big.indexOf('a', 5), 5);
    assert.strictEqual(big.lastIndexOf('aa'), big.length - 2);
  },
  () => {
    // Within a budget (a generous one: the data is made in JavaScript) the
    // searches run in windows and give the results of a run without the
    // option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption.stdout.trim());
  },
]);
