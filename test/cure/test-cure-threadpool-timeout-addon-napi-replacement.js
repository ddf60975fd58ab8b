// Flags: --threadpool-timeout=50
'use strict';
// Node-API async work whose execute runs past --threadpool-timeout gives
// its worker up to a replacement at the deadline: with every worker of the
// pool (4) busy in a long execute, an fs request submitted after them is
// still served long before they end.
//
// napi_work (test/cure-addons/napi_work.c): execute runs 2000 ms; complete
// calls cb(status, value) once execute returned.
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const { load } = require('../cure-addons/load');

const addon = load('napi_work');
const events = [];

for (let i = 0; i < 4; i++) {
  addon.run(2000, common.mustCall((status, value) => {
    assert.strictEqual(status, 0);  // napi_ok
    assert.strictEqual(value, 42);
    events.push('napi');
  }));
}

fs.stat(__filename, common.mustCall((err) => {
  assert.ifError(err);
  events.push('stat');
}));

process.on('exit', () => {
  assert.deepStrictEqual(events, ['stat', 'napi', 'napi', 'napi', 'napi']);
});
