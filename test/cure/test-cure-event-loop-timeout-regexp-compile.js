// Flags: --event-loop-timeout=100
'use strict';
// The RegExp parser looks each property escape (\p{...}) up in ICU, which
// builds its set of code points: a pattern of many of them costs microseconds
// a byte before any match (20,000 escapes take half a second), and the
// parser, which runs with interrupts postponed, never checked. It now polls
// and a due timeout is thrown from the constructor, or from the first match,
// which parses the pattern again to compile it. Ordinary patterns match as
// before.
require('../common');
const assert = require('assert');
const { runWithEventLoopTimeout } = require('node:cure');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 100;

// 100,000 property escapes: seconds to parse on a stock Node 22 build.
const escapes = '\\p{Script=Greek}\\p{L}\\p{Lu}\\p{N}'.repeat(25_000);
let counter = 0;
// A pattern not in the compilation cache yet.
const fresh = () => `${escapes}|x${counter++}`;

function construct(source) { return new RegExp(source, 'u'); }

runEachInACallback([
  () => assertInterrupted('new RegExp() of 100,000 property escapes',
                          () => construct(fresh()), T),
  () => assertInterrupted('new RegExp() with /v',
                          () => new RegExp(`[${escapes}]`, 'v'), T),
  () => {
    // Constructed without a budget, then matched in a callback: the
    // compilation for the first match parses it again.
    const re = runWithEventLoopTimeout(0, construct, fresh());
    assertInterrupted('first exec() of 100,000 property escapes',
                      () => re.exec('x'), T);
  },
  () => {
    // Ordinary patterns, and a long one without a budget, match as before.
    const words = /^\p{Lu}\p{Ll}+(?:\s\p{L}+)*\p{P}?$/u;
    assert.ok(words.test('Ωmega ünd ε!'));
    assert.ok(!words.test('omega'));
    assert.deepStrictEqual('a1β2Γ'.match(/\p{N}/gu), ['1', '2']);
    assert.deepStrictEqual('x-Ab-Y'.match(/[\p{Lu}--[A-M]]/gv), ['Y']);
    const long = runWithEventLoopTimeout(
      0, construct, '\\p{Script=Greek}\\p{N}'.repeat(2000));
    assert.strictEqual(runWithEventLoopTimeout(0, () => long.exec(
      'ω1'.repeat(2000))?.index), 0);
    assert.throws(() => new RegExp('\\p{NoSuchProperty}', 'u'), SyntaxError);
  },
  () => {
    // Warmed up (without a budget: each new pattern costs tens of µs).
    runWithEventLoopTimeout(0, () => {
      for (let i = 0; i < 2e4; i++) construct(`\\p{L}${i}`);
    });
    assertInterrupted('warm new RegExp()', () => construct(fresh()), T);
  },
]);
