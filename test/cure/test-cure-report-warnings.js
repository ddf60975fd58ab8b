// Flags: --expose-internals
'use strict';
// The warnings of report-only mode (internal/cure/report): one per distinct
// place, at most ten a minute per thread; a warning that follows suppressed
// ones says how many were not shown.
const common = require('../common');
const assert = require('assert');
const { warnReport } = require('internal/cure/report');

const warnings = [];
process.on('warning', (warning) => warnings.push(warning));

warnReport('place 0', 'ERR_EVENT_LOOP_TIMEOUT', 'message 0', 'detail 0');
warnReport('place 0', 'ERR_EVENT_LOOP_TIMEOUT', 'message 0 again');
for (let i = 1; i < 15; i++)
  warnReport(`place ${i}`, 'ERR_THREADPOOL_TIMEOUT', `message ${i}`);

setImmediate(common.mustCall(() => {
  // Emitted on the next tick each; ten in this minute, the first place once.
  assert.strictEqual(warnings.length, 10);
  assert.strictEqual(warnings[0].name, 'TimeoutWarning');
  assert.strictEqual(warnings[0].code, 'ERR_EVENT_LOOP_TIMEOUT');
  assert.strictEqual(warnings[0].message, 'message 0');
  assert.strictEqual(warnings[0].detail, 'detail 0');
  assert.deepStrictEqual(warnings.map((w) => w.message),
                         Array.from({ length: 10 }, (_, i) => `message ${i}`));
  assert.strictEqual(warnings[9].code, 'ERR_THREADPOOL_TIMEOUT');
}));
