'use strict';
// Loads the addons node-gyp just built (make test-dist) and checks them.
const assert = require('assert');

const nan = require('./build/Release/nan_addon.node');
assert.strictEqual(nan.hello('nodecure'), 'hello nodecure');
assert.deepStrictEqual(nan.versions(), {
  modules: Number(process.versions.modules),
  node: process.versions.node,
});

const napi = require('./build/Release/napi_addon.node');
assert.strictEqual(napi.sum([1, 2, 39]), 42);
assert.throws(() => napi.sum(1), TypeError);

assert.ok(process.versions.cure, 'not nodecure');
console.log('addons ok');
