'use strict';
// nodecure is a drop-in Node.js 22.22.2: the same version, module ABI and
// process.versions keys as the official binary, plus its own `cure` key.
require('../common');
const assert = require('assert');

assert.strictEqual(process.version, 'v22.22.2');
assert.strictEqual(process.release.name, 'node');
assert.strictEqual(process.versions.modules, '127');
assert.match(process.versions.cure, /^\d+\.\d+\.\d+$/);

// Every key of the official 22.22.2 binary's process.versions.
const official = [
  'node', 'acorn', 'ada', 'amaro', 'ares', 'brotli', 'cjs_module_lexer',
  'cldr', 'icu', 'llhttp', 'modules', 'napi', 'nbytes', 'ncrypto', 'nghttp2',
  'openssl', 'simdjson', 'simdutf', 'sqlite', 'tz', 'undici', 'unicode', 'uv',
  'uvwasi', 'v8', 'zlib', 'zstd',
];
for (const key of official) {
  assert.ok(Object.hasOwn(process.versions, key), `process.versions.${key}`);
}

// The bundled JS dependencies are exactly the versions upstream bundles.
assert.strictEqual(process.versions.undici, '6.24.1');
assert.strictEqual(process.versions.acorn, '8.15.0');
assert.strictEqual(process.versions.cjs_module_lexer, '2.2.0');
assert.strictEqual(process.versions.amaro, '1.1.5');
assert.strictEqual(process.versions.v8, '12.4.254.21-node.39');
assert.strictEqual(process.versions.uv, '1.51.0');
assert.strictEqual(process.versions.napi, '10');
