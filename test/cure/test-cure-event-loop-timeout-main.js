// Flags: --event-loop-timeout=50
'use strict';
// The main module's first evaluation is initialisation, not a callback: it
// is not bounded. Everything it schedules is.
const common = require('../common');
const assert = require('assert');

const start = performance.now();
while (performance.now() - start < 200);

process.nextTick(common.mustCall(() => {
  assert.throws(() => { for (;;); }, TimeoutError);
}));
