'use strict';
// Upstream's benchmark/run.js and compare.js take every entry of a category
// folder for a benchmark, a folder through its index.js (as benchmark/napi's
// folders): with this file, `compare.js ... cure` runs this folder as the
// benchmark cure/macro, the empty-callback chain of callbacks.js, instead of
// failing on it. The rest of the folder runs with tools/nodecure/
// bench_overhead.py (make bench-overhead), which installs its npm
// dependencies.
require('./callbacks.js');
