// Flags: --event-loop-timeout=100
'use strict';
// runWithEventLoopTimeout() gives its budget to the async work that the
// function starts: each promise reaction, await continuation, timer,
// immediate, nextTick and I/O callback in that async context. Work outside
// the context keeps the default budget, also in the same microtask
// checkpoint as a reaction with a budget of its own.
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const { AsyncResource } = require('async_hooks');
const { setImmediate: immediate } = require('timers/promises');
const { getTimeoutCounts, runWithEventLoopTimeout } = require('node:cure');

function spin(ms) {
  const start = performance.now();
  while (performance.now() - start < ms);
}

// Runs until interrupted; returns after how long, in ms, and the budget that
// the TimeoutError reports.
function spinUntilInterrupted() {
  const start = performance.now();
  let budget;
  assert.throws(() => {
    for (;;);
  }, (err) => {
    assert.ok(err instanceof TimeoutError, String(err));
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    budget = Number(/budget of (\d+) ms/.exec(err.message)[1]);
    return true;
  });
  return { elapsed: performance.now() - start, budget };
}

// The callback was interrupted by a budget of `budget` ms, not before it.
// `elapsed` is counted from the first line of the callback's code, which a
// loaded machine may reach a few milliseconds after the callback began.
function assertBudget({ elapsed, budget }, expected) {
  assert.strictEqual(budget, expected);
  assert.ok(elapsed >= expected - 10, `interrupted after ${elapsed} ms`);
}

const cases = [
  // No budget (0): the continuations of an async function, and the
  // callbacks it schedules, each run longer than the default budget.
  async function optOut() {
    const before = getTimeoutCounts().eventLoop;
    await runWithEventLoopTimeout(0, async () => {
      spin(150);  // the synchronous part
      await null;
      spin(150);  // a promise reaction
      await immediate();
      spin(150);
      await new Promise((resolve) => setTimeout(() => {
        spin(150);
        process.nextTick(() => {
          spin(150);
          resolve();
        });
      }, 1));
      await fs.promises.stat(__filename);
      spin(150);
      await new Promise((resolve) => fs.stat(__filename, () => {
        spin(150);
        resolve();
      }));
      await new Promise((resolve) => queueMicrotask(() => {
        spin(150);
        resolve();
      }));
    });
    assert.strictEqual(getTimeoutCounts().eventLoop, before);
  },

  // A budget above the default: a continuation is not stopped at the
  // default's 100 ms, only at its own 400 ms.
  async function largerBudget() {
    assertBudget(await runWithEventLoopTimeout(400, async () => {
      await null;
      return spinUntilInterrupted();
    }), 400);
  },

  // A budget below the default, in a timer the function scheduled.
  async function smallerBudget() {
    assertBudget(await new Promise((resolve) => {
      runWithEventLoopTimeout(30, () => {
        setTimeout(() => resolve(spinUntilInterrupted()), 1);
      });
    }), 30);
  },

  // Two reactions of one microtask checkpoint: the first has no budget, the
  // second, outside the context, gets the default back.
  async function sameCheckpoint() {
    let interrupted;
    const outside = new Promise((resolve) => setImmediate(resolve));
    await outside;
    const inside = runWithEventLoopTimeout(0, () => outside.then(() => {
      spin(150);
    }));
    const after = outside.then(() => {
      interrupted = spinUntilInterrupted();
    });
    await Promise.all([inside, after]);
    assertBudget(interrupted, 100);
  },

  // An inner budget replaces the outer one, for its own async work only.
  async function nested() {
    await runWithEventLoopTimeout(0, async () => {
      await null;
      assertBudget(await runWithEventLoopTimeout(50, async () => {
        await null;
        return spinUntilInterrupted();
      }), 50);
      await null;
      spin(150);  // the outer context again: no budget
    });
  },

  // A callback that begins inside the function, in an async context made
  // elsewhere, does not end the function's own budget.
  async function foreignResourceInside() {
    const foreign = new AsyncResource('Foreign');
    await new Promise((resolve) => setImmediate(() => {
      runWithEventLoopTimeout(0, () => {
        foreign.runInAsyncScope(() => {});
        spin(150);
      });
      resolve();
    }));
  },

  // Outside any such context, the default applies as before.
  async function outsideContext() {
    assertBudget(await new Promise((resolve) => {
      setTimeout(() => resolve(spinUntilInterrupted()), 1);
    }), 100);
  },
];

(async () => {
  for (const test of cases) {
    // Each case from a callback of its own.
    await immediate();
    await test();
    console.log(`${test.name}: ok`);
  }
})().then(common.mustCall());
