'use strict';
// Loads one of the addons built from this directory (binding.gyp) for the
// tests test/cure/test-cure-threadpool-timeout-addon-*.js.
//
// tools/nodecure/test.py builds them with node-gyp before it runs the `js`
// part, and passes their directory (node-gyp's build/Release) in the
// environment variable NODECURE_TEST_ADDONS. Without it the tests fail: they
// are regression tests of nodecure's threadpool timeout, and a silent skip
// would hide a regression.

const fs = require('fs');
const path = require('path');

// The file of addon `name`; throws if it is not there.
function addonPath(name) {
  const dir = process.env.NODECURE_TEST_ADDONS;
  if (!dir) {
    throw new Error(
      'NODECURE_TEST_ADDONS is not set: this test needs the native addons ' +
      'of test/cure-addons/. Run it with `tools/nodecure/test.py js` (which ' +
      'builds them with node-gyp and sets the variable), or build them ' +
      'yourself and set NODECURE_TEST_ADDONS to their build/Release ' +
      'directory.');
  }
  const file = path.resolve(dir, `${name}.node`);
  if (!fs.existsSync(file)) {
    throw new Error(`NODECURE_TEST_ADDONS=${dir} has no ${name}.node: ` +
                    'build test/cure-addons/ with node-gyp ' +
                    '(`tools/nodecure/test.py js` does)');
  }
  return file;
}

function load(name) {
  return require(addonPath(name));
}

module.exports = { addonPath, load };
