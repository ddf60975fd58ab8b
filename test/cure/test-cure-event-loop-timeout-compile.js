// Flags: --event-loop-timeout=60000
'use strict';
// V8's parser and bytecode generator poll for a due timeout, every 4096
// tokens and every 4096 statements and expressions, on the main thread
// (patches/v8/v8-the-parser-and-the-bytecode-generator-poll-for-a-due-timeout.patch):
// eval(), new Function(), vm.Script, vm.compileFunction() and the first
// call of a lazily compiled function compiled a source of any size without
// asking for the budget. On ./node-baseline each of the sources below
// takes two seconds or more to compile, far past the bound of
// assertStopped(). A due timeout fails the compilation as a stack overflow
// does, and the TimeoutError is thrown instead of the RangeError; a real
// stack overflow, a syntax error and ordinary sources compile as in a run
// without the option.
// Each stop runs with a budget of its own (runWithEventLoopTimeout()), in
// a callback of a long one (see test-cure-event-loop-timeout-structured-clone.js).
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const tmpdir = require('../common/tmpdir');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

const T = 100;

// 36 MB of statements: parsed and compiled to bytecode when run at the top
// level or in an eagerly compiled function.
const body = 'a=a+1;'.repeat(6e6);
// One expression of 4 million elements.
const literal = '[' + 'a,'.repeat(4e6) + ']';

// Made while the main module runs (no budget): compiled lazily, preparsed
// only; its first call parses and compiles its body.
const lazy = vm.runInThisContext(`(function() {
  return function lazy() { var a = 0; ${body} return a; };
})()`);

tmpdir.refresh();
const moduleFile = path.join(tmpdir.path, 'big-module.js');
fs.writeFileSync(moduleFile, `var a = 0; ${body} module.exports = a;`);

// Sources of many kinds, compiled and run, with and without the option.
const results = `(() => {
  const vm = require('vm');
  const out = [];
  out.push(eval('var a = 0;' + 'a = a + 1;'.repeat(50000) + 'a'));
  out.push(new Function('x', 'let s = 0;' +
    'for (let i = 0; i < x; i++) { s += i % 7; }'.repeat(3000) +
    'return s;')(100));
  out.push(new vm.Script('[' + Array.from({ length: 30000 },
    (_, i) => '{k:' + i + ',v:"' + i.toString(36) + '"}').join() +
    '].map((o) => o.k).reduce((x, y) => x + y)').runInThisContext());
  out.push(vm.compileFunction('return (' + 'p+'.repeat(20000) + '1);',
                              ['p'])(2));
  out.push(Function('return ' + JSON.stringify(
    Array.from({ length: 20000 }, (_, i) => ({ i, s: 'v' + i }))))().length);
  let syntax;
  try { eval('var x = 1;'.repeat(10000) + 'x +* 1'); } catch (e) {
    syntax = e.constructor.name + ': ' + e.message;
  }
  out.push(syntax);
  let deep;
  try { eval('('.repeat(1e6) + ')'.repeat(1e6)); } catch (e) {
    deep = e.constructor.name + ': ' + e.message;
  }
  out.push(deep);
  return JSON.stringify(out);
})()`;

// The main module's first evaluation has no budget.
const withoutOption = printWithoutOptions(results);

runEachInACallback([
  () => assertStopped('eval', () => eval(`var a = 0; ${body}`), T),
  () => assertStopped('new Function', () => new Function(body), T),
  () => assertStopped('new vm.Script',
                      () => new vm.Script(`var a = 0; ${body}`), T),
  () => assertStopped('vm.compileFunction',
                      () => vm.compileFunction(`(() => { ${body} })()`), T),
  () => assertStopped('an array literal', () => new vm.Script(literal), T),
  () => assertStopped('the first call of a lazy function', () => lazy(), T),
  () => {
    // The CommonJS loader is Node's own code: the timeout is deferred to
    // the embedder's limit, then thrown there too.
    assertStopped('require()', () => require(moduleFile), T);
    assert.strictEqual(require.cache[moduleFile], undefined);
  },
  () => {
    // A stopped compilation leaves nothing behind: the lazy function
    // compiles and runs on its next call (with a budget long enough for
    // it), and short sources compile.
    assert.strictEqual(runWithEventLoopTimeout(0, lazy), 6e6);
    assert.strictEqual(eval('1 + 1'), 2);
    assert.strictEqual(new Function('a', 'return a * 3')(7), 21);
  },
  () => {
    // Within a budget (a generous one) sources compile, fail and run as in
    // a run without the option: a syntax error is a SyntaxError, a real
    // stack overflow a RangeError.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(results)),
                       withoutOption);
    const parsed = JSON.parse(withoutOption);
    assert.match(parsed[5], /^SyntaxError: /);
    assert.match(parsed[6], /^RangeError: Maximum call stack size exceeded/);
  },
  () => setImmediate(common.mustCall()),
]);
