// Flags: --event-loop-timeout=100
'use strict';
// A search in a string built by concatenation first flattens it, inside
// the StringIndexOf builtin, through a runtime call made without a context.
// The search then polled, but the stack guard it asked to throw the
// timeout found no context and the search ran on to its end (seconds):
// the TimeoutError now takes the context of the innermost JavaScript
// frame. Each case concatenates its subject afresh, so that the flattening
// happens inside its callback.
require('../common');
const assert = require('assert');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 100;

// 2^27 'a's in two flat halves; a pattern that nearly matches everywhere.
const half = 'a'.repeat(2 ** 26);
half.indexOf('b');  // Flattened here, outside the timed callbacks.
const pattern = 'a'.repeat(1000) + 'b';

function indexOf(s, p) { return s.indexOf(p); }
function includes(s, p) { return s.includes(p); }

runEachInACallback([
  () => assertInterrupted('indexOf() of a cons string',
                          () => (half + half).indexOf(pattern), T),
  () => assertInterrupted('includes() of a cons string',
                          () => (half + half).includes(pattern), T),
  () => {
    // Ordinary searches of cons strings still find what they find upstream.
    const s = 'x'.repeat(100) + 'needle' + 'y'.repeat(100);
    assert.strictEqual(indexOf(s + s, 'needle'), 100);
    assert.strictEqual((s + s).indexOf('needle', 101), 306);
    assert.strictEqual(includes(s + 'z', 'yz'), true);
    for (let i = 0; i < 2e4; i++) indexOf(s + i, 'needle');
    assertInterrupted('warm indexOf() of a cons string',
                      () => indexOf(half + half, pattern), T);
  },
]);
