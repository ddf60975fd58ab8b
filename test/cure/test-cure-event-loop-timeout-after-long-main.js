'use strict';
// The main module is not a callback: it may run as long as it likes, and
// the watchdog goes to sleep after a second of it. The ticks it queued begin
// in JS once it returns, with stores that the watchdog samples but that do
// not wake it: JS must wake it when it begins a callback, or these would run
// unbounded (they did, before the fix). Both a CommonJS main module and an
// ES module entry point (evaluated in promise reactions) are checked.
const common = require('../common');
const assert = require('assert');
const { spawn } = require('child_process');

const poisonedTick = `
  process.nextTick(() => {
    try {
      for (;;);
    } catch (err) {
      console.log(err.code);
    }
  });`;
const longMain = `
  const start = Date.now();
  while (Date.now() - start < 1500);  // A main module of 1.5 s.
`;

const cases = {
  'CommonJS': [longMain + poisonedTick],
  'CommonJS, a tick queued by a promise reaction': [
    longMain + `Promise.resolve().then(() => {${poisonedTick}});`],
  'ES module': ['--input-type=module', longMain + poisonedTick],
};

for (const [name, args] of Object.entries(cases)) {
  const source = args.pop();
  const child = spawn(process.execPath,
                      ['--event-loop-timeout=100', ...args, '-e', source]);
  let stdout = '';
  child.stdout.on('data', (chunk) => stdout += chunk);
  // Unbounded, the loop would never end: end it well after the budget.
  const killer = setTimeout(() => child.kill(), 30000);
  child.on('exit', common.mustCall((code, signal) => {
    clearTimeout(killer);
    assert.strictEqual(signal, null, `${name}: not interrupted`);
    assert.strictEqual(code, 0, name);
    assert.strictEqual(stdout.trim(), 'ERR_EVENT_LOOP_TIMEOUT', name);
  }));
}
