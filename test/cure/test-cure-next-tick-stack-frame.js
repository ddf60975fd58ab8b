// Flags: --event-loop-timeout=60000
'use strict';
// With --event-loop-timeout a tick's callback runs in runTimedTick(), called
// from processTicksAndRejections()'s loop; its frame reads as the loop's
// (process.processTicksAndRejections), as the frame right below a tick's
// callback does without the option: upstream's test-util-callbackify
// matches it, and so may users' stack parsers. The names of the two frames
// from a tick's callback down are those of a run without the option.
const common = require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');

const namesBelowATick = `((done) => {
  process.nextTick(function tick() {
    const frames = new Error().stack.split('\\n').slice(1, 3);
    done(frames.map((line) => line.trim().replace(/ \\(.*\\)$/, '')));
  });
})`;

const withoutOption = spawnSync(process.execPath, [
  '-e', `${namesBelowATick}((names) => console.log(JSON.stringify(names)))`,
], { encoding: 'utf8' });
assert.strictEqual(withoutOption.status, 0, withoutOption.stderr);
const expected = JSON.parse(withoutOption.stdout);
assert.deepStrictEqual(expected,
                       ['at tick', 'at process.processTicksAndRejections']);

// From a callback with a budget: the queue runs timed.
setImmediate(common.mustCall(() => {
  eval(namesBelowATick)(common.mustCall((names) => {
    assert.deepStrictEqual(names, expected);
  }));
}));
