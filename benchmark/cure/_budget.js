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

module.exports = {
  // --event-loop-timeout
  setEventLoopBudget: (ms) => setBudget('setEventLoopTimeout', ms),
  // --threadpool-timeout
  setThreadpoolBudget: (ms) => setBudget('setThreadpoolTimeout', ms),
};
