'use strict';
// Shared by benchmark/cure/: applies an --event-loop-timeout budget through
// node:cure, so that one benchmark file runs on ./node and on the unpatched
// ./node-baseline (make baseline), which has no node:cure and no such option
// (benchmark/compare.js passes both binaries the same flags).

function setEventLoopBudget(ms) {
  if (ms === 0) return;
  let cure;
  try {
    cure = require('node:cure');
  } catch {
    return;  // Upstream Node.js: nothing to set.
  }
  cure.setEventLoopTimeout(ms);
}

module.exports = { setEventLoopBudget };
