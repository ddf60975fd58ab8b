// Flags: --event-loop-timeout=100
'use strict';
// String.prototype.normalize() of a long string polls for the timeout
// between chunks of 64 Ki code units, so a callback inside it gets its
// TimeoutError there. The chunks are appended with ICU's
// normalizeSecondAndAppend(), which merges each one at its seam: the result
// is upstream's for every form, also when a combining sequence, a Hangul
// syllable or a surrogate pair straddles a seam.
require('../common');
const assert = require('assert');
const { assertInterrupted, deriveWithoutOptions, runEachInACallback } =
  require('../common/cure');
const { runWithEventLoopTimeout } = require('node:cure');

const T = 100;
const K = 2 ** 16;

// [form, prefix length, piece, times]: 'x' * prefix + piece * times, so that
// pieces fall across the seams at multiples of K.
const cases = [];
for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD']) {
  for (const prefix of [K - 1, K, K + 1]) {
    for (const piece of ['e\u0301', '\u1100\u1161\u11a8', '\ud83d\ude00',
                         '\ufb03', 'a\u0323\u0302', '\u00e9\u0327',
                         '\u0301\u0301\u0301']) {
      cases.push([form, prefix, piece, 3 * K / piece.length]);
    }
  }
}

// The SHA-256 and length of each normalized input (self-contained: it is
// also run without nodecure's options, on upstream's path).
function derive(cases) {
  const { createHash } = require('crypto');
  return cases.map(([form, prefix, piece, times]) => {
    const s = ('x'.repeat(prefix) + piece.repeat(times)).normalize(form);
    return [s.length, createHash('sha256').update(s).digest('hex')];
  });
}

const expected = deriveWithoutOptions(derive, cases);

// Each takes about 6 budgets on upstream's path here (0.6 s). Flattened in the
// main module: flattening is not interrupted (doc/api/cure.md).
const ligatures = '\ufb03'.repeat(2 ** 24);
const decomposed = 'e\u0301'.repeat(2 ** 23);
ligatures.indexOf('x');
decomposed.indexOf('x');

runEachInACallback([
  // Longer than a budget in all: run without one, on the polling path.
  () => assert.deepStrictEqual(
    runWithEventLoopTimeout(0, () => derive(cases)), expected),
  () => assertInterrupted('NFKC of 2^24 ligatures',
                           () => ligatures.normalize('NFKC'), T),
  () => assertInterrupted('NFC of 2^23 decomposed letters',
                          () => decomposed.normalize('NFC'), T),
]);
