'use strict';
// Loads the addons that node-gyp just built and checks that they work.
const assert = require('assert');

const napi = require('./build/Release/napi_addon.node');
assert.strictEqual(napi.add(2, 40), 42);
assert.throws(() => napi.add('x'), TypeError);

const v8addon = require('./build/Release/v8_addon.node');
const d = v8addon.describe();
assert.strictEqual(d.moduleVersion, Number(process.versions.modules));
assert.strictEqual(d.uv, process.versions.uv);
assert.strictEqual(d.loopAlive, true);

console.log('addons ok');
