// Flags: --expose-internals
'use strict';
// doc/contributing/timeout-audit.md (issue 31) says, for every function of
// Node's internal bindings, how a call of it on the event-loop thread is
// bounded under --event-loop-timeout. This keeps that inventory complete:
//
// - the bindings are those of the tree's binding lists (src/node_binding.cc
//   and src/node_binding.h, NODE_BUILTIN_*_BINDINGS); each one this build
//   can load is loaded, and its functions are listed: its own function
//   properties, the prototype methods of the constructors among them and of
//   the native classes they inherit from (AsyncWrap, HandleWrap, ...), and
//   those of a few classes no binding exports, reached through an instance;
// - every one of them must be named in the inventory, and every row of the
//   inventory for this base must name something that exists;
// - every method name that the tree's src/ registers (SetMethod(),
//   SetProtoMethod(), ... with a literal name) must be named by some row,
//   so a class that this test cannot reach still needs its rows.
//
// The inventory is the checkout's: $NODECURE_REPO/doc/contributing/, else
// the first directory above this file that holds it, preferring a nodecure
// checkout (one with tools/nodecure/) to the build tree's copy.

require('../common');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { internalBinding } = require('internal/test/binding');

const DOC = path.join('doc', 'contributing', 'timeout-audit.md');
const KINDS = new Set(['constant', 'async', 'section', 'hop', 'polls', 'js',
                       'chunked', 'limit', 'sized', 'operator', 'unbounded',
                       'unverified']);
const BASE = process.versions.node.split('.')[0];
// The bases the inventory has a column for (22's is kept as it was at the
// tag v22.22.2-cure.0.1.0).
const BASES = new Set(['22', '24']);
// Marks of rows that the run-time checks skip (the source scan still counts
// them).
const OTHER_MARKS = new Set(['Windows', 'OpenSSL 3.2+', 'removed at startup',
                             'not reached']);

// The Node tree this test runs in: the directory above test/, or the tree
// that built the running binary (out/Release/node).
function findTree() {
  const candidates = [
    path.resolve(__dirname, '..', '..'),
    path.resolve(path.dirname(process.execPath), '..', '..'),
  ];
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'src', 'node_binding.cc'))) return dir;
  }
  assert.fail(`no Node tree (src/node_binding.cc) in ${candidates}`);
}

function findDoc() {
  if (process.env.NODECURE_REPO) {
    return path.join(process.env.NODECURE_REPO, DOC);
  }
  let nearest;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, DOC))) {
      if (fs.existsSync(path.join(dir, 'tools', 'nodecure'))) {
        return path.join(dir, DOC);
      }
      nearest ??= path.join(dir, DOC);
    }
    if (path.dirname(dir) === dir) break;
  }
  assert.ok(nearest, `${DOC} not found above ${__dirname}; ` +
                     'set NODECURE_REPO to the nodecure checkout');
  return nearest;
}

// The names of the binding lists' V(name) entries.
function bindingNames(tree) {
  const names = new Set();
  const list = /^#define NODE_BUILTIN_\w*BINDINGS\(V\)((?:.*\\\n)*.*)$/gm;
  for (const file of ['node_binding.cc', 'node_binding.h']) {
    const text = fs.readFileSync(path.join(tree, 'src', file), 'utf8');
    for (const [, body] of text.matchAll(list)) {
      for (const [, name] of body.matchAll(/\bV\((\w+)\)/g)) names.add(name);
    }
  }
  return names;
}

const isNative = (fn) => typeof fn === 'function' &&
  /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(fn));

// Own data properties of `object` whose values are native functions (not the
// JS functions that lib/ puts on some prototypes, like MessagePort's close).
function methodsOf(object) {
  const methods = [];
  for (const key of Object.getOwnPropertyNames(object)) {
    if (key === 'constructor') continue;
    const { value } = Object.getOwnPropertyDescriptor(object, key);
    if (isNative(value)) methods.push([key, value]);
  }
  return methods;
}

// The prototypes of the native classes that `proto` inherits from, with
// their class names, up to the first that is JS's (a builtin like Error or
// Iterator, or a JS class like the NodeEventTarget of MessagePort).
function* nativeBases(proto) {
  let p = Object.getPrototypeOf(proto);
  while (p !== null && p !== Object.prototype) {
    const ctor = Object.getOwnPropertyDescriptor(p, 'constructor')?.value;
    if (!isNative(ctor) || globalThis[ctor.name]?.prototype === p) return;
    yield [ctor.name, p];
    p = Object.getPrototypeOf(p);
  }
}

// The native object behind a public one (its own symbol-keyed handle).
function handleOf(object) {
  for (const key of Object.getOwnPropertySymbols(object)) {
    const value = object[key];
    if (value === null || typeof value !== 'object') continue;
    const ctor = value.constructor;
    if (isNative(ctor) && globalThis[ctor.name] !== ctor) return value;
  }
  assert.fail(`no native handle on ${object}`);
}

// Classes that no binding exports, by binding: a label for the rows
// (<binding>.<label>.prototype.<method>, <binding>.<label>.instance.<method>
// for a method of the instance itself) and how to make one (undefined: not
// in this base).
const instances = {
  performance: {
    Histogram: () => handleOf(require('perf_hooks').createHistogram()),
    ELDHistogram: (perf) => perf.createELDHistogram(10),
    // Node 24's monitorEventLoopDelay({ samplePerIteration: true }).
    IterationHistogram: (perf) => {
      const histogram = perf.createELDHistogram(10, true);
      const eld = Object.getPrototypeOf(perf.createELDHistogram(10));
      return Object.getPrototypeOf(histogram) === eld ? undefined : histogram;
    },
  },
  blob: {
    Blob: () => handleOf(new Blob(['x'])),
    BlobReader: () => handleOf(new Blob(['x'])).getReader(),
  },
  crypto: {
    X509Certificate: () => {
      const fixtures = require('../common/fixtures');
      const { X509Certificate } = require('crypto');
      return handleOf(new X509Certificate(
        fixtures.readKey('agent1-cert.pem')));
    },
  },
  sqlite: {
    StatementSyncIterator: (sqlite) => {
      const db = new sqlite.DatabaseSync(':memory:');
      return db.prepare('SELECT 1').iterate();
    },
    Session: (sqlite) => new sqlite.DatabaseSync(':memory:').createSession(),
    SQLTagStore: (sqlite) =>
      new sqlite.DatabaseSync(':memory:').createTagStore?.(),
  },
  wasi: {
    WASI: (wasi) => new wasi.WASI([], [], [], [0, 1, 2]),
  },
  heap_utils: {
    // Takes a heap snapshot, never read.
    HeapSnapshotStream: (heapUtils) =>
      heapUtils.createHeapSnapshotStream(new Uint8Array(2)),
  },
};

// Files of src/ that belong to a binding: when it cannot be loaded here, the
// names they register are not looked for.
const bindingFiles = {
  quic: ['quic/'],
  debug: ['node_debug.cc'],
  crypto: ['crypto/'],
  sqlite: ['node_sqlite.cc'],
  webstorage: ['node_webstorage.cc'],
  inspector: ['inspector_js_api.cc', 'inspector/'],
  profiler: ['inspector_profiler.cc'],
};

// The inventory: its rows under "## Binding methods", as
// { name, marks, kind, line }, `name` qualified with its binding
// (`fs.open`), except under "### Base classes" (`HandleWrap.prototype.ref`).
function readInventory(file) {
  const rows = [];
  const problems = [];
  let inSection = false;
  let prefix = null;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('## ')) {
      inSection = line === '## Binding methods';
      prefix = null;
      continue;
    }
    if (!inSection) continue;
    if (line.startsWith('### ')) {
      const binding = /^### `(\w+)`$/.exec(line);
      if (binding) {
        prefix = `${binding[1]}.`;
      } else if (line === '### Base classes') {
        prefix = '';
      } else {
        problems.push(`line ${i + 1}: unknown heading ${line}`);
        prefix = null;
      }
      continue;
    }
    if (!line.startsWith('|') || prefix === null) continue;
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    if (cells[0] === 'Method' || /^:?-+:?$/.test(cells[0])) continue;
    if (cells.length !== 3) {
      problems.push(`line ${i + 1}: ${cells.length} cells, not 3`);
      continue;
    }
    if (!KINDS.has(cells[1])) {
      problems.push(`line ${i + 1}: unknown kind ${cells[1]}`);
    }
    const names = /`([\w$]+(?:\.[\w$]+)*)`(?: \(([^)]+)\))?/g;
    let named = 0;
    for (const [, name, marks] of cells[0].matchAll(names)) {
      rows.push({
        name: prefix + name,
        marks: marks ? marks.split(/,\s*/) : [],
        kind: cells[1],
        line: i + 1,
      });
      named++;
    }
    if (named === 0) problems.push(`line ${i + 1}: names nothing`);
  }
  return { rows, problems };
}

// Method names that src/ registers with a literal name.
function registeredNames(tree, skippedFiles) {
  const names = new Map();  // name -> first file
  const call = new RegExp(
    '\\b(?:Set(?:Proto|Fast|Instance|Template)?Method(?:NoSideEffect)?|' +
    'SetConstructorFunction)\\s*\\(([^;"]*?)"(\\w+)"(?!\\s*#)', 'g');
  function walk(dir) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      const rel = path.relative(path.join(tree, 'src'), file) +
                  (entry.isDirectory() ? '/' : '');
      if (skippedFiles.some((skipped) => rel.startsWith(skipped))) continue;
      if (entry.isDirectory()) {
        walk(file);
      } else if (/\.(cc|h)$/.test(entry.name)) {
        const text = fs.readFileSync(file, 'utf8');
        for (const [, , name] of text.matchAll(call)) {
          if (!names.has(name)) names.set(name, `src/${rel}`);
        }
      }
    }
  }
  walk(path.join(tree, 'src'));
  return names;
}

const tree = findTree();
const docFile = findDoc();
console.log(`# inventory: ${docFile}`);
console.log(`# tree: ${tree} (Node ${process.versions.node})`);

// The bindings.
const names = bindingNames(tree);
assert.ok(names.has('fs') && names.has('crypto'),
          `no binding list found in ${tree}/src: ${[...names]}`);
for (const entry of process.moduleLoadList) {
  const loaded = /^Internal Binding (\w+)$/.exec(entry);
  if (loaded) {
    assert.ok(names.has(loaded[1]),
              `loaded binding ${loaded[1]} is not in the binding lists`);
  }
}
const bindings = new Map();
const skipped = [];
for (const name of [...names].sort()) {
  if (name.startsWith('internal_only')) {
    skipped.push(`${name} (not exposed to tests)`);
    continue;
  }
  try {
    bindings.set(name, internalBinding(name));
  } catch (err) {
    skipped.push(`${name} (${err.message})`);
  }
}
if (skipped.length > 0) {
  console.log(`# bindings not loaded here: ${skipped.join(', ')}`);
}

// Their functions.
const found = new Set();
const roots = [];  // [qualified class name, prototype]
for (const [name, binding] of bindings) {
  for (const [key, fn] of methodsOf(binding)) {
    found.add(`${name}.${key}`);
    if (fn.prototype !== null && typeof fn.prototype === 'object') {
      roots.push([`${name}.${key}`, fn.prototype]);
    }
  }
  for (const [label, make] of Object.entries(instances[name] ?? {})) {
    const instance = make(binding);
    if (instance === undefined) continue;
    roots.push([`${name}.${label}`, Object.getPrototypeOf(instance)]);
    for (const [key] of methodsOf(instance)) {
      found.add(`${name}.${label}.instance.${key}`);
    }
  }
}
// Inherited methods are named after the class they belong to, once; one
// that lib/ copied onto a prototype (MessagePort's ref) is still the base's.
const inherited = new Map();  // function -> HandleWrap.prototype.ref
for (const [, proto] of roots) {
  for (const [className, base] of nativeBases(proto)) {
    for (const [key, fn] of methodsOf(base)) {
      inherited.set(fn, `${className}.prototype.${key}`);
    }
  }
}
for (const [qualified, proto] of roots) {
  for (const [key, fn] of methodsOf(proto)) {
    if (!inherited.has(fn)) found.add(`${qualified}.prototype.${key}`);
  }
}
for (const name of inherited.values()) found.add(name);

// The inventory.
const { rows, problems } = readInventory(docFile);
const named = new Map();
for (const row of rows) {
  if (named.has(row.name)) {
    problems.push(`line ${row.line}: ${row.name} is also on line ` +
                  named.get(row.name).line);
  }
  named.set(row.name, row);
  for (const mark of row.marks) {
    if (!BASES.has(mark) && !OTHER_MARKS.has(mark)) {
      problems.push(`line ${row.line}: unknown mark (${mark})`);
    }
  }
}

const missing = [...found].filter((name) => !named.has(name)).sort();
const stale = [];
const misplaced = [];
for (const row of rows) {
  const bases = row.marks.filter((mark) => BASES.has(mark));
  // Only on Windows, removed at startup, ...: not looked for here.
  if (row.marks.length > bases.length) continue;
  const binding = row.name.split('.')[0];
  if (!bindings.has(binding) && !/^[A-Z]/.test(binding)) continue;
  const here = bases.length === 0 || bases.includes(BASE);
  if (here && !found.has(row.name)) stale.push(row.name);
  if (!here && found.has(row.name)) {
    misplaced.push(`${row.name} (${bases.join(', ')})`);
  }
}

const lastNames = new Set(rows.map((row) => row.name.split('.').pop()));
const skippedFiles = Object.entries(bindingFiles)
  .filter(([name]) => !bindings.has(name)).flatMap(([, files]) => files);
const unnamed = [];
for (const [name, file] of registeredNames(tree, skippedFiles)) {
  if (!lastNames.has(name)) unnamed.push(`${name} (${file})`);
}

console.log(`# ${found.size} functions of ${bindings.size} bindings, ` +
            `${rows.length} names in the inventory`);
const report = [];
if (problems.length > 0) {
  report.push(`The inventory has problems:\n  ${problems.join('\n  ')}`);
}
if (missing.length > 0) {
  report.push(`${missing.length} functions are not in the inventory ` +
              `(add a row for each):\n  ${missing.join('\n  ')}`);
}
if (stale.length > 0) {
  report.push(`${stale.length} rows name nothing that Node ${BASE} has ` +
              `(remove them, or mark the base):\n  ${stale.join('\n  ')}`);
}
if (misplaced.length > 0) {
  report.push(`${misplaced.length} rows are marked for the other base but ` +
              `Node ${BASE} has them:\n  ${misplaced.join('\n  ')}`);
}
if (unnamed.length > 0) {
  report.push(`${unnamed.length} method names registered in src/ are in no ` +
              `row (a class this test does not reach?):\n  ` +
              unnamed.join('\n  '));
}
if (report.length > 0) assert.fail(`${docFile}:\n${report.join('\n')}`);
