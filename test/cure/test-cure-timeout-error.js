'use strict';
// TimeoutError is a global constructor, a subclass of Error, also exported
// by node:cure, which is only reachable with the node: scheme.
require('../common');
const assert = require('assert');

assert.strictEqual(typeof TimeoutError, 'function');
const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'TimeoutError');
assert.strictEqual(descriptor.enumerable, false);
assert.strictEqual(descriptor.writable, true);
assert.strictEqual(require('node:cure').TimeoutError, TimeoutError);

const err = new TimeoutError('too slow', { code: 'ERR_X', cause: 1 });
assert.ok(err instanceof TimeoutError);
assert.ok(err instanceof Error);
assert.strictEqual(err.name, 'TimeoutError');
assert.strictEqual(err.message, 'too slow');
assert.strictEqual(err.code, 'ERR_X');
assert.strictEqual(err.cause, 1);
assert.match(err.stack, /^TimeoutError: too slow\n/);
assert.strictEqual(Object.prototype.toString.call(err), '[object Error]');
assert.strictEqual(new TimeoutError().message, 'The operation timed out');

assert.throws(() => require('cure'), { code: 'MODULE_NOT_FOUND' });
