'use strict';
// The nextTick queue, a timer list and the immediate queue each run many
// callbacks in one call from the loop. Until --event-loop-timeout is in use
// on the thread they do not mark where each callback begins (a flag of the
// module each reads, set when the feature is first used). A callback that
// first uses it, here with cure.setEventLoopTimeout(), makes the callbacks
// after it in the same run callbacks of their own at once: four of 200 ms
// each, 800 ms together, never reach a budget of 500 ms. Counted as one
// callback they would (the run without the flag being set shows it: one
// TimeoutError).
const common = require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');
const cure = require('node:cure');

const kBudget = 500;
const kEach = 200;
const kCount = 4;

function spin(ms) {
  const start = performance.now();
  while (performance.now() - start < ms);
}

// Queues `kCount` spinning callbacks with `queue` behind one that turns the
// feature on; resolves with the timeouts counted once all have run.
function run(queue) {
  return new Promise((resolve) => {
    let left = kCount;
    const each = () => {
      spin(kEach);
      if (--left === 0) setTimeout(() => resolve(cure.getTimeoutCounts().eventLoop), 1);
    };
    queue(() => {
      cure.setEventLoopTimeout(kBudget);
      for (let i = 0; i < kCount; i++) queue(each);
    });
  });
}

const queues = {
  nextTick: (fn) => process.nextTick(fn),
  setImmediate: (fn) => setImmediate(fn),
  // Timers of the same duration share a list, run by one listOnTimeout().
  setTimeout: (fn) => setTimeout(fn, 1),
};

if (process.argv[2] === 'child') {
  // One queue per process: the flag is set once per thread.
  const queue = queues[process.argv[3]];
  run(queue).then((timeouts) => {
    console.log(JSON.stringify({ timeouts }));
  });
  return;
}

for (const name of Object.keys(queues)) {
  const child = spawnSync(process.execPath,
                          [__filename, 'child', name], { encoding: 'utf8' });
  assert.strictEqual(child.status, 0, `${name}: ${child.stderr}`);
  assert.deepStrictEqual(JSON.parse(child.stdout), { timeouts: 0 }, name);
}

// The control: the same callbacks in one run of the queue, timed as one
// callback (they run inside one runWithEventLoopTimeout()), add up past the
// budget and the fourth one's spin is interrupted.
cure.setEventLoopTimeout(kBudget);
setTimeout(common.mustCall(() => {
  assert.throws(() => {
    cure.runWithEventLoopTimeout(kBudget, () => {
      for (let i = 0; i < kCount; i++) spin(kEach);
    });
  }, { name: 'TimeoutError', code: 'ERR_EVENT_LOOP_TIMEOUT' });
  assert.strictEqual(cure.getTimeoutCounts().eventLoop, 1);
}), 1);
