'use strict';
// Shared by benchmark/cure/: applies a nodecure budget through node:cure, so
// that one benchmark file runs on ./node and on the unpatched ./node-baseline
// (make baseline), which has no node:cure and no such options
// (benchmark/compare.js passes both binaries the same flags).

function setBudget(setter, ms) {
  if (ms === 0) return;
  let cure;
  try {
    cure = require('node:cure');
  } catch {
    return;  // Upstream Node.js: nothing to set.
  }
  cure[setter](ms);
}

// Times n calls of run() inside one setImmediate callback, as a server's
// work runs, after a first call outside the timed part (warm-up; strings
// flattened). The results are summed so that the calls are not optimized
// away.
function timeInACallback(bench, n, run) {
  run();
  setImmediate(() => {
    let sink = 0;
    bench.start();
    for (let i = 0; i < n; i++) sink += run();
    bench.end(n);
    if (sink === Infinity) console.log(sink);
  });
}

module.exports = {
  timeInACallback,
  // --event-loop-timeout
  setEventLoopBudget: (ms) => setBudget('setEventLoopTimeout', ms),
  // --threadpool-timeout
  setThreadpoolBudget: (ms) => setBudget('setThreadpoolTimeout', ms),
};
