#!/usr/bin/env python3
"""nodecure's ./configure.

Fetches every upstream input by package name, version and sha256 (Debian's
archive through apt, npm through `npm pack`), keeps them in a download cache
outside the checkout, builds the C dependencies Debian's Node source leaves
out, unpacks Node into build/node as a git repository (first commit: pristine
upstream; later commits: our patches), overlays our new files, and runs
upstream's configure.py with our flags. `--baseline` prepares build/baseline,
the same tree and flags without our feature patches, for A/B measurements.

With `--node-tarball=PATH` the upstream tree is upstream's own release
tarball instead, checked by sha256; it bundles every dependency Debian's
tree leaves out, so configure then needs neither Debian's archive nor npm,
and Node builds those bundled dependencies itself.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def base_from_argv(argv):
  """--base=N (or --base N) sets NODECURE_BASE, which the modules below
  read when they are imported."""
  for i, arg in enumerate(argv):
    if arg.startswith('--base='):
      return arg.split('=', 1)[1]
    if arg == '--base' and i + 1 < len(argv):
      return argv[i + 1]
  return None


if base_from_argv(sys.argv[1:]):
  os.environ['NODECURE_BASE'] = base_from_argv(sys.argv[1:])
sys.path.insert(0, str(Path(__file__).resolve().parent))
import inputs  # noqa: E402
import common  # noqa: E402
from archive import compare_versions, upstream_version  # noqa: E402
from fetch import (debian_file, fetch_all, npm_file, npm_tgz,  # noqa: E402
                   sha256)
from common import ROOT, BUILD, die, log, run  # noqa: E402

DEPS = BUILD / 'deps'


# ---------------------------------------------------------------------------
# Host checks

def check_host():
  missing = set()
  for tool, pkg in inputs.HOST_PACKAGES.items():
    if shutil.which(tool) is None:
      missing.add(pkg)
  for header, pkg in inputs.HOST_HEADERS.items():
    if not Path('/usr/include', header).exists() and \
       not list(Path('/usr/include').glob('*/' + header)):
      missing.add(pkg)
  if missing:
    die('missing build dependencies. Install them with:\n'
        '  apt-get install -y ' + ' '.join(sorted(missing)) +
        '\n(or run tools/nodecure/setup-debian.sh, which does it for you)')


# ---------------------------------------------------------------------------
# The inputs this build uses

def header_version(path, macro):
  m = re.search(r'#define\s+%s\s+"([^"]+)"' % macro, path.read_text())
  return m.group(1) if m else 'unknown'


def record_inputs(tree, upstream):
  """Say which upstream inputs this build uses, and keep the list (file,
  sha256, package and version) in build/inputs.txt, and the versions of
  the C dependencies ./node reports in build/inputs.json."""
  used, lines = [], []
  if upstream['kind'] == 'official':
    name, digest = upstream['name'], upstream['digest']
    lines.append('%s  %s  upstream\'s release tarball' % (digest, name))
    versions = {
        'ares': header_version(tree / 'deps' / 'cares' / 'include' /
                               'ares_version.h', 'ARES_VERSION_STR'),
        'icu': header_version(tree / 'deps' / 'icu-small' / 'source' /
                              'common' / 'unicode' / 'uvernum.h',
                              'U_ICU_VERSION'),
    }
    used.append('%s (c-ares %s, ICU %s, and the rest as bundled)' %
                (name, versions['ares'], versions['icu']))
  else:
    for name, spec in inputs.DEBIAN.items():
      package = spec.get('package', name)
      used.append('%s %s' % (package, spec['version']))
      floor = spec.get('floor')
      if floor and compare_versions(upstream_version(spec['version']),
                                    floor) < 0:
        log('warning: %s %s is below its floor %s: run make update-inputs' %
            (package, spec['version'], floor))
      lines += ['%s  %s  Debian %s %s' % (d, f, package, spec['version'])
                for f, d in spec['files'].items()]
    for name, (version, digest) in inputs.NPM.items():
      lines.append('%s  %s  npm %s@%s' % (digest, npm_file(name, version),
                                          name, version))
    versions = {
        'ares': upstream_version(inputs.DEBIAN['c-ares']['version']),
        'icu': upstream_version(inputs.DEBIAN['icu']['version']),
    }
  BUILD.mkdir(exist_ok=True)
  (BUILD / 'inputs.txt').write_text(
      '# The upstream inputs of this build (tools/nodecure/inputs.py)\n' +
      '\n'.join(lines) + '\n')
  (BUILD / 'inputs.json').write_text(json.dumps(
      {'source': upstream['kind'], 'versions': versions}, indent=2) + '\n')
  log('inputs: %s (%s)' % (', '.join(used),
                           (BUILD / 'inputs.txt').relative_to(ROOT)))


# ---------------------------------------------------------------------------
# Where the upstream tree comes from

def debian_source():
  tarball = debian_file('nodejs', '.orig.tar')
  # The tree's first commit holds the bundled npm inputs too.
  h = hashlib.sha256(list(inputs.DEBIAN['nodejs']['files'].values())[0]
                     .encode())
  # and what it takes from Node 22's tree and simdutf's source.
  for name in ('nodejs-22', 'simdutf'):
    h.update(list(inputs.DEBIAN[name]['files'].values())[0].encode())
  h.update(repr((sorted(inputs.NPM.items()),
                 sorted(inputs.NPM_TOOLS.items()))).encode())
  return {'kind': 'debian', 'path': tarball, 'name': tarball.name,
          'id': 'debian-' + h.hexdigest()[:16],
          'label': 'Debian source',
          'commit': '(Debian source) and its bundled inputs'}


def official_source(path, shasums):
  """Upstream's release tarball, checked against the sha256 inputs.py pins
  and, when it is at hand, against upstream's SHASUMS256.txt."""
  if not inputs.NODE_TARBALL:
    die('--node-tarball: no release tarball of Node %s is pinned '
        '(%s NODE_TARBALL); build from Debian\'s source instead' %
        (inputs.NODE_VERSION, inputs.FILES['nodejs'].relative_to(ROOT)))
  (name, digest), = inputs.NODE_TARBALL.items()
  path = Path(path).resolve()
  if not path.is_file():
    die('--node-tarball: no such file: %s' % path)
  got = sha256(path)
  sums = Path(shasums).resolve() if shasums else path.parent / 'SHASUMS256.txt'
  if shasums and not sums.is_file():
    die('--node-shasums: no such file: %s' % sums)
  if sums.is_file():
    listed = dict((line.split()[1].lstrip('*'), line.split()[0].lower())
                  for line in sums.read_text().splitlines()
                  if len(line.split()) == 2)
    if name not in listed:
      die('%s does not list %s' % (sums, name))
    if listed[name] != got:
      die('%s has sha256 %s; %s lists %s for %s' %
          (path, got, sums, listed[name], name))
    log('tree: %s is the %s that %s lists' % (path.name, name, sums))
  if got != digest:
    die('%s has sha256 %s, not that of upstream\'s %s (%s, '
        'tools/nodecure/inputs.py NODE_TARBALL)%s' %
        (path, got, name, digest,
         '; it matches %s: check that file\'s signature' % sums
         if sums.is_file() else ''))
  return {'kind': 'official', 'path': path, 'name': name, 'digest': got,
          'id': 'official-' + got[:16],
          'label': 'upstream\'s release tarball',
          'commit': '(upstream\'s release tarball)'}


# ---------------------------------------------------------------------------
# C dependencies the Debian source leaves out: static PIC libraries

def unpack(archive, dest, strip=1, touch=False):
  """touch: the files get the time of unpacking, not the archive's, so
  that objects an existing out/ built from an older version are older than
  every file of this one (make rebuilds them all)."""
  dest.mkdir(parents=True, exist_ok=True)
  run(['tar', '-xf', str(archive), '-C', str(dest),
       '--strip-components=%d' % strip] + (['--touch'] if touch else []))


def stamp_ok(d, key):
  s = d / '.nodecure-stamp'
  return s.exists() and s.read_text() == key


def write_stamp(d, key):
  (d / '.nodecure-stamp').write_text(key)


def flags_env(env, flags):
  """ENV with FLAGS ((compile flags, link flags), as sysroot.flags() gives
  them; None for none) in CFLAGS, CXXFLAGS and LDFLAGS."""
  if flags:
    cflags, ldflags = flags
    env = dict(env)
    for var, words in (('CFLAGS', cflags), ('CXXFLAGS', cflags),
                       ('LDFLAGS', ldflags)):
      env[var] = ' '.join([env.get(var, '')] + list(words)).strip()
  return env


def flags_key(flags):
  """What a stamp adds for FLAGS: nothing for none, as before they
  existed."""
  if not flags:
    return ''
  return ':' + hashlib.sha256(repr(flags).encode()).hexdigest()[:16]


def cmake_static(src, prefix, options, flags=None):
  bld = src / '_build'
  env = flags_env(dict(os.environ, CC=common.CC, CXX=common.CXX), flags)
  run(['cmake', '-S', str(src), '-B', str(bld), '-DCMAKE_BUILD_TYPE=Release',
       '-DCMAKE_INSTALL_PREFIX=%s' % prefix, '-DCMAKE_INSTALL_LIBDIR=lib',
       '-DBUILD_SHARED_LIBS=OFF', '-DCMAKE_POSITION_INDEPENDENT_CODE=ON'] +
      options, env=env, quiet=True)
  run(['cmake', '--build', str(bld), '-j%d' % common.jobs()], env=env,
      quiet=True)
  run(['cmake', '--install', str(bld)], env=env, quiet=True)


def apply_debian_series(src, debian_tar):
  """Apply a Debian source package's quilt series (its security fixes
  among them), as dpkg-source would."""
  with tempfile.TemporaryDirectory() as tmp:
    run(['tar', '-xf', str(debian_tar), '-C', tmp])
    series = Path(tmp, 'debian', 'patches', 'series')
    if not series.exists():
      return
    for line in series.read_text().splitlines():
      words = line.split('#', 1)[0].split()
      if words:
        level = ([w for w in words[1:] if w.startswith('-p')] or ['-p1'])[0]
        run(['patch', '-s', level, '-d', str(src), '-i',
             str(Path(tmp, 'debian', 'patches', words[0]))])


def cmake_dep(name, debian, options, series=False, deps=DEPS, flags=None):
  """A C dependency of DEPS/NAME (build/deps by default): Debian source
  DEBIAN's orig tarball (with the revision's patch series if SERIES), a
  static PIC library by CMake, compiled with FLAGS (see flags_env())."""
  d = deps / name
  key = inputs.DEBIAN[debian]['version'] + flags_key(flags)
  if stamp_ok(d, key):
    return
  log('deps: %s %s' % (name, key))
  shutil.rmtree(d, ignore_errors=True)
  src = d / 'src'
  unpack(debian_file(debian, '.orig.tar'), src)
  if series:
    apply_debian_series(src, debian_file(debian, '.debian.tar'))
  cmake_static(src, d, options, flags)
  shutil.rmtree(src)
  write_stamp(d, key)


# The four below take DEPS and FLAGS too: make release builds them again
# into build/release-deps, against the sysroot (release.py).

def build_cares(deps=DEPS, flags=None):
  cmake_dep('cares', 'c-ares', ['-DCARES_STATIC=ON', '-DCARES_SHARED=OFF',
                                '-DCARES_STATIC_PIC=ON',
                                '-DCARES_BUILD_TOOLS=OFF',
                                '-DCARES_BUILD_TESTS=OFF'], series=True,
            deps=deps, flags=flags)


def build_brotli():
  """brotli 1.1 or later (Node 24's shared dictionaries), static."""
  cmake_dep('brotli', 'brotli', ['-DBROTLI_DISABLE_TESTS=ON',
                                 '-DBROTLI_BUILD_TOOLS=OFF'], series=True)


def build_ada(deps=DEPS, flags=None):
  d = deps / 'ada'
  # Debian's ada-url 3.4.4.
  name, kind = 'ada-url', '.orig.tar'
  version = upstream_version(inputs.DEBIAN[name]['version'])
  # The tarball, not the revision that lists it: revisions come and go.
  key = list(inputs.DEBIAN[name]['files'].values())[0] + ':' + \
      common.patches_digest([common.PATCHES / 'ada']) + flags_key(flags)
  if stamp_ok(d, key):
    return
  log('deps: ada %s' % version)
  shutil.rmtree(d, ignore_errors=True)
  src = d / 'src'
  unpack(debian_file(name, kind), src)
  for p in common.series(common.PATCHES / 'ada'):
    run(['patch', '-s', '-p1', '-d', str(src), '-i', str(p)])
  cmake_static(src, d, ['-DADA_TESTING=OFF', '-DADA_TOOLS=OFF',
                        '-DADA_BENCHMARKS=OFF'], flags)
  shutil.rmtree(src)
  write_stamp(d, key)


def compile_static(name, sources, includes, lib, std, flags=None):
  objs = []
  for s in sources:
    o = s.with_suffix('.o')
    cc = common.CXX if s.suffix == '.cpp' else common.CC
    run(cc.split() + ['-O3', '-fPIC', '-std=' + std] +
        (list(flags[0]) if flags else []) +
        ['-I%s' % i for i in includes] + ['-c', str(s), '-o', str(o)])
    objs.append(str(o))
  lib.parent.mkdir(parents=True, exist_ok=True)
  run(['ar', 'rcs', str(lib)] + objs)


def build_simdjson(deps=DEPS, flags=None):
  d = deps / 'simdjson'
  key = inputs.NPM['@nozbe/simdjson'][0] + ':' + \
      common.patches_digest([common.PATCHES / 'simdjson']) + flags_key(flags)
  if stamp_ok(d, key):
    return
  log('deps: simdjson %s' % key)
  shutil.rmtree(d, ignore_errors=True)
  src = d / 'src'
  unpack(npm_tgz('@nozbe/simdjson'), src)
  for p in common.series(common.PATCHES / 'simdjson'):
    run(['patch', '-s', '-p1', '-d', str(src), '-i', str(p)])
  (d / 'include').mkdir()
  shutil.copy(src / 'src' / 'simdjson.h', d / 'include' / 'simdjson.h')
  compile_static('simdjson', [src / 'src' / 'simdjson.cpp'], [src / 'src'],
                 d / 'lib' / 'libsimdjson.a', 'c++17', flags)
  shutil.rmtree(src)
  write_stamp(d, key)


def build_llhttp(deps=DEPS, flags=None):
  """llhttp's C parser is generated from its TypeScript source by llparse,
  with the exact dev dependencies of its package-lock.json."""
  d = deps / 'llhttp'
  key = inputs.DEBIAN['llhttp']['version'] + flags_key(flags)
  if stamp_ok(d, key):
    return
  log('deps: llhttp %s (generating the C parser with llparse)' % key)
  shutil.rmtree(d, ignore_errors=True)
  src = d / 'src'
  unpack(debian_file('llhttp', '.orig.tar'), src)
  run(['npm', 'ci', '--ignore-scripts', '--no-audit', '--no-fund',
       '--loglevel=error'], cwd=src, quiet=True)
  run(['node', '--import', 'tsx', 'bin/generate.ts'], cwd=src, quiet=True)
  (d / 'include').mkdir()
  shutil.copy(src / 'build' / 'llhttp.h', d / 'include' / 'llhttp.h')
  compile_static('llhttp', [src / 'build' / 'c' / 'llhttp.c',
                            src / 'src' / 'native' / 'api.c',
                            src / 'src' / 'native' / 'http.c'],
                 [src / 'build'], d / 'lib' / 'libllhttp.a', 'c99', flags)
  shutil.rmtree(src)
  write_stamp(d, key)


def build_icu():
  d = DEPS / 'icu'
  key = inputs.DEBIAN['icu']['version'] + ':' + \
      common.patches_digest([common.PATCHES / 'icu'])
  if stamp_ok(d, key):
    return
  log('deps: icu %s source' % key)
  shutil.rmtree(d, ignore_errors=True)
  # ICU compiles inside Node's gyp build, whose out/ outlives a version
  # change: with the archive's times (78.3's are from March 2026) the
  # objects of the previous version looked newer than the new sources, were
  # kept, and the link failed on icu_76 symbols.
  unpack(debian_file('icu', '.orig.tar'), d, strip=0, touch=True)
  # Debian's series: 78.3-2's touches only ICU's autoconf build and its
  # tests, which Node's gyp build does not use; a security update adds its
  # fixes here.
  apply_debian_series(d / 'icu', debian_file('icu', '.debian.tar'))
  # Ours (patches/icu), used by both builds: without the callbacks that
  # nodecure's V8 sets, ICU behaves as upstream.
  for p in common.series(common.PATCHES / 'icu'):
    run(['patch', '-s', '-p1', '-d', str(d / 'icu'), '-i', str(p)])
  write_stamp(d, key)


def build_deps():
  DEPS.mkdir(parents=True, exist_ok=True)
  build_cares()
  # simdutf is compiled as V8's third_party/simdutf (add_from_22()).
  build_brotli()
  build_ada()
  build_simdjson()
  build_llhttp()
  build_icu()


# ---------------------------------------------------------------------------
# The Node tree: upstream + bundled inputs, then our patches

def npm_unpack(name, dest):
  with tempfile.TemporaryDirectory() as tmp:
    run(['tar', '-xf', str(npm_tgz(name)), '-C', tmp])
    dest.mkdir(parents=True, exist_ok=True)
    for item in Path(tmp, 'package').iterdir():
      shutil.move(str(item), dest / item.name)


def bundle(name, tools, args, tree, output, extra_deps=()):
  """Reproduce upstream's dep_updaters bundling of an npm package."""
  with tempfile.TemporaryDirectory() as tmp:
    pkg = Path(tmp, 'pkg')
    npm_unpack(name, pkg)
    for dep in extra_deps:
      npm_unpack(dep, pkg / 'node_modules' / dep)
    tooldir = Path(tmp, 'tools')
    tooldir.mkdir()
    run(['npm', 'install', '--no-save', '--no-audit', '--no-fund',
         '--loglevel=error', '--prefix', str(tooldir)] + tools, quiet=True)
    run([str(tooldir / 'node_modules' / '.bin' / 'esbuild')] + args,
        cwd=pkg, quiet=True)
    if name == 'undici':
      run(['node', 'scripts/strip-comments.js'], cwd=pkg, quiet=True)
    output.parent.mkdir(parents=True, exist_ok=True)
    outfile = [a for a in args if a.startswith('--outfile=')][0]
    shutil.copy(pkg / outfile.split('=', 1)[1], output)


# What Node 24 takes from Node 22.22.2's tree (inputs.DEBIAN['nodejs-22']).
FROM_22 = ['deps/uv', 'deps/googletest', 'deps/histogram',
           'tools/inspector_protocol/jinja2',
           'tools/inspector_protocol/markupsafe',
           'deps/v8/third_party/jinja2', 'deps/v8/third_party/markupsafe']


def add_from_22(tree):
  """Node 24: what Debian's 24 tree leaves out but its 22 tree carries, and
  simdutf amalgamated into V8's third_party/simdutf, as upstream lays it
  out (V8's simdutf target builds it; Node 24 has no other copy)."""
  with tempfile.TemporaryDirectory() as tmp:
    top = 'node-v22.22.2'
    run(['tar', '-xf', str(debian_file('nodejs-22', '.orig.tar')), '-C', tmp] +
        ['%s/%s' % (top, p) for p in FROM_22])
    for p in FROM_22:
      shutil.rmtree(tree / p, ignore_errors=True)
      shutil.copytree(Path(tmp, top, p), tree / p, symlinks=True)
  with tempfile.TemporaryDirectory() as tmp:
    src = Path(tmp, 'simdutf')
    unpack(debian_file('simdutf', '.orig.tar'), src)
    out = tree / 'deps' / 'v8' / 'third_party' / 'simdutf'
    out.mkdir(parents=True, exist_ok=True)
    run([sys.executable, str(src / 'singleheader' / 'amalgamate.py'),
         '--no-zip', '--no-readme', '--output-dir', str(out)], quiet=True)
    version = upstream_version(inputs.DEBIAN['simdutf']['version'])
    for name in ('simdutf.h', 'simdutf.cpp'):
      # The generator stamps the time of day: every configure would change
      # a header most of V8 includes, and miss ccache.
      f = out / name
      f.write_text(re.sub(r'/\* auto-generated on .*? \*/',
                          '/* auto-generated from simdutf %s. Do not edit! */'
                          % version, f.read_text()))
    shutil.copy(src / 'LICENSE-MIT', out / 'LICENSE-MIT')


def add_bundled_inputs(tree):
  """What Debian's +dfsg tarball leaves out and Node's build needs."""
  npm_unpack('acorn', tree / 'deps' / 'acorn' / 'acorn')
  npm_unpack('acorn-walk', tree / 'deps' / 'acorn' / 'acorn-walk')
  add_from_22(tree)
  npm_unpack('amaro', tree / 'deps' / 'amaro')
  bundle('undici', inputs.NPM_TOOLS['undici'],
         ['index-fetch.js', '--bundle', '--platform=node',
          '--outfile=undici-fetch.js', '--define:esbuildDetection=1', '--keep-names'],
         tree, tree / 'deps' / 'undici' / 'undici.js')
  bundle('minimatch', inputs.NPM_TOOLS['minimatch'],
         ['./dist/commonjs/index.js', '--bundle', '--platform=node',
          '--outfile=index.js'],
         tree, tree / 'deps' / 'minimatch' / 'index.js',
         extra_deps=['brace-expansion', 'balanced-match'])
  with tempfile.TemporaryDirectory() as tmp:
    run(['tar', '-xf', str(npm_tgz('node-gyp')), '-C', tmp])
    shutil.copytree(Path(tmp, 'package', 'gyp'), tree / 'tools' / 'gyp')
  # Only copied into the build with a shared OpenSSL, never read.
  cnf = tree / 'deps' / 'openssl' / 'nodejs-openssl.cnf'
  cnf.parent.mkdir(parents=True, exist_ok=True)
  cnf.write_text('')


def git(tree, *args, **kw):
  return run(['git', '-C', str(tree)] + list(args), **kw)


GIT_ENV = {
    'GIT_AUTHOR_NAME': 'nodecure', 'GIT_AUTHOR_EMAIL': 'nodecure@localhost',
    'GIT_COMMITTER_NAME': 'nodecure',
    'GIT_COMMITTER_EMAIL': 'nodecure@localhost',
    'GIT_AUTHOR_DATE': '2000-01-01T00:00:00Z',
    'GIT_COMMITTER_DATE': '2000-01-01T00:00:00Z',
}


# What Debian's tree lacks and upstream's release tarball bundles.
def patch_bundled_deps(tree):
  """Upstream's tarball bundles ICU and ada, which Debian's tree takes from
  build/deps: our patches to them (patches/icu, patches/ada, made against
  Debian's ICU 78.3 and ada-url 3.4.4) go onto the bundled copies, as part of
  the upstream commit, when they apply. One that does not leaves its
  dependency as bundled, and configure says what that costs: without
  ICU's InterruptCallback V8 builds its IcuInterruptScope as a no-op
  (ICU's quadratic loops are not interrupted); ada's IDNA steps stay
  quadratic."""
  targets = {
      'icu': ['-p1', '-d', str(tree / 'deps' / 'icu-small')],
      # The amalgamation holds src/ada_idna.cpp's code.
      'ada': [str(tree / 'deps' / 'ada' / 'ada.cpp')],
  }
  costs = {
      'icu': 'normalize(), localeCompare(), Intl.Collator#compare and '
             'language tags are not interrupted inside ICU',
      'ada': 'new URL() of a long internationalised host stays quadratic',
  }
  for layer, args in targets.items():
    for p in common.series(common.PATCHES / layer):
      dry = subprocess.run(['patch', '--dry-run', '-s', '-f'] + args +
                           ['-i', str(p)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
      if dry.returncode:
        log('warning: patches/%s/%s does not apply to the bundled copy '
            '(%s)' % (layer, p.name, costs[layer]))
        continue
      run(['patch', '-s', '-f'] + args + ['-i', str(p)])


BUNDLED = ['deps/acorn/acorn', 'deps/acorn/acorn-walk',
           'deps/amaro', 'deps/undici/undici.js',
           'deps/minimatch/index.js', 'tools/gyp/pylib/gyp',
           'deps/openssl/nodejs-openssl.cnf',
           'deps/cares/include/ares_version.h', 'deps/ada', 'deps/simdutf',
           'deps/llhttp', 'deps/simdjson',
           'deps/icu-small/README-FULL-ICU.txt']


def create_tree(tree, upstream):
  log('tree: unpacking Node.js %s (%s) into %s' %
      (inputs.NODE_VERSION, upstream['label'], tree))
  # build/baseline is a worktree of build/node's repository.
  if tree == BUILD / 'node':
    shutil.rmtree(BUILD / 'baseline', ignore_errors=True)
  shutil.rmtree(tree, ignore_errors=True)
  unpack(upstream['path'], tree)
  if upstream['kind'] == 'debian':
    add_bundled_inputs(tree)
  else:
    missing = [p for p in BUNDLED if not (tree / p).exists()]
    if missing:
      die('%s lacks what the build needs from it: %s' %
          (upstream['path'], ', '.join(missing)))
    patch_bundled_deps(tree)
  env = dict(os.environ, **GIT_ENV)
  git(tree, 'init', '-q', '-b', 'nodecure')
  (tree / '.git' / 'info').mkdir(parents=True, exist_ok=True)
  # Upstream's .gitignore hides files the tarball ships (deps/, out/ rules);
  # the first commit must hold the whole pristine tree.
  git(tree, 'add', '-f', '-A', '.', env=env)
  git(tree, 'commit', '-q', '--no-verify', '-m',
      'upstream: Node.js %s %s' % (inputs.NODE_VERSION, upstream['commit']),
      env=env)
  git(tree, 'tag', common.TAG_UPSTREAM)
  (tree / '.git' / 'nodecure-upstream').write_text(upstream['id'] + '\n')


def apply_layer(tree, layer):
  env = dict(os.environ, **GIT_ENV)
  for p in common.series(common.PATCHES / layer):
    r = git(tree, 'am', '-q', '--keep-cr', '--committer-date-is-author-date',
            str(p), env=env, check=False)
    if r.returncode:
      git(tree, 'am', '--abort', check=False)
      die('patch does not apply: patches/%s/%s' % (layer, p.name))


def recorded_upstream(tree, upstream):
  """The upstream source build/node was unpacked from. A tree from before
  this was recorded came from Debian's source."""
  f = tree / '.git' / 'nodecure-upstream'
  if not f.exists():
    f.write_text('%s\n' % (upstream['id'] if upstream['kind'] == 'debian'
                           else 'debian'))
  return f.read_text().strip()


def prepare_trees(baseline, upstream):
  tree = BUILD / 'node'
  key = common.tree_key()
  state = tree / '.git' / 'nodecure-applied'
  if (tree / '.git').exists() and state.exists():
    recorded_key, recorded_head = state.read_text().split()
    head = git(tree, 'rev-parse', 'HEAD', capture=True).strip()
    if recorded_upstream(tree, upstream) != upstream['id']:
      if head != recorded_head:
        die('build/node has commits that are not in patches/ and its '
            'upstream source changed.\nExport them first '
            '(make export-patches) or drop them with ./configure '
            '--reset.')
      log('tree: the upstream source changed; unpacking it again')
      create_tree(tree, upstream)
    elif head != recorded_head:
      if recorded_key == key:
        log('tree: build/node has commits of its own; keeping them '
            '(export them with make export-patches)')
        return tree
      die('build/node has commits that are not in patches/ and the patch '
          'queue changed.\nExport them first (make export-patches)'
          ' or drop them with ./configure --reset.')
    elif recorded_key == key:
      # Up to date: the queue is applied already.
      if baseline:
        prepare_baseline(tree)
      return tree
    else:
      log('tree: patch queue changed; re-applying it')
      git(tree, 'reset', '-q', '--hard', common.TAG_UPSTREAM)
  else:
    create_tree(tree, upstream)
  for layer in common.LAYERS:
    apply_layer(tree, layer)
    if layer == common.BASELINE_LAYERS[-1]:
      git(tree, 'tag', '-f', common.TAG_BASE, quiet=True)
  head = git(tree, 'rev-parse', 'HEAD', capture=True).strip()
  state.write_text('%s %s\n' % (key, head))
  if baseline:
    prepare_baseline(tree)
  return tree


def prepare_baseline(tree):
  base = BUILD / 'baseline'
  if (base / '.git').exists():
    git(base, 'checkout', '-q', '--detach', common.TAG_BASE)
  else:
    shutil.rmtree(base, ignore_errors=True)
    git(tree, 'worktree', 'prune')
    git(tree, 'worktree', 'add', '-q', '--detach', str(base), common.TAG_BASE)


def overlay(tree):
  """Copy our new files (deps/ src/ lib/ test/ doc/ benchmark/) into the
  tree. They are ours, not upstream's: never an existing upstream file.
  Files of ours that are gone from the checkout are removed from the tree
  too (the exclude list remembers what the last overlay copied)."""
  exclude = []
  upstream = set(git(tree, 'ls-files', capture=True).splitlines())
  # A worktree's (build/release, release.py) is its repository's.
  exclude_file = tree / git(tree, 'rev-parse', '--git-path', 'info/exclude',
                            capture=True).strip()
  exclude_file.parent.mkdir(parents=True, exist_ok=True)
  copied_before = set()
  if exclude_file.exists():
    copied_before = {line[1:] for line in exclude_file.read_text().splitlines()
                     if line.startswith('/')}
  for top in common.OVERLAY_DIRS:
    for src in sorted((ROOT / top).rglob('*')):
      if not src.is_file():
        continue
      rel = src.relative_to(ROOT).as_posix()
      if rel in upstream:
        die('%s exists upstream: change it with a patch, not by overlay' % rel)
      dst = tree / rel
      exclude.append('/' + rel)
      if dst.exists() and dst.read_bytes() == src.read_bytes():
        continue
      dst.parent.mkdir(parents=True, exist_ok=True)
      # A fresh mtime (not copy2's): a changed file is always newer than the
      # objects built from its previous copy.
      shutil.copy(src, dst)
  for rel in sorted(copied_before - {e[1:] for e in exclude} - upstream):
    stale = tree / rel
    if stale.is_file():
      log('overlay: removing %s (no longer in the checkout)' % rel)
      stale.unlink()
  exclude_file.write_text('\n'.join(exclude) + '\n')


# ---------------------------------------------------------------------------
# Upstream's configure

def upstream_configure(tree, upstream, extra):
  flags = [
      '--without-npm', '--without-corepack',
      '--shared-openssl', '--shared-zlib', '--shared-brotli',
      '--shared-nghttp2', '--shared-sqlite', '--shared-zstd',
      '--with-intl=full-icu',
  ]
  if upstream['kind'] == 'debian':
    # The dependencies Debian's tree leaves out, built in build/deps/; the
    # release tarball's bundled ones (and its full ICU) are used as they are.
    flags += ['--with-icu-source=%s' % (DEPS / 'icu' / 'icu'),
              '--shared-http-parser-libname=llhttp']
    shared = [('cares', 'cares'), ('http-parser', 'llhttp'),
              ('ada', 'ada'), ('simdjson', 'simdjson'), ('brotli', 'brotli')]
    flags += ['--shared-brotli-libname=brotlidec,brotlienc,brotlicommon']
    for opt, d in shared:
      flags += ['--shared-' + opt,
                '--shared-%s-includes=%s' % (opt, DEPS / d / 'include'),
                '--shared-%s-libpath=%s' % (opt, DEPS / d / 'lib')]
  log('configure: %s' % tree.relative_to(ROOT))
  run([sys.executable, 'configure.py'] + flags + extra, cwd=tree,
      env=common.build_env(), quiet=True)


def main():
  ap = argparse.ArgumentParser(
      prog='./configure',
      description='Prepare the nodecure build (see README.md).')
  ap.add_argument('--base', choices=common.BASES, default=common.BASE,
                  help='the upstream line to build: %s (the default), or '
                       'a line ported beside it (one with a '
                       'tools/nodecure/inputs_N.py), which is built in '
                       'build-N/ from patches/N/ (then make NODE_BASE=N)' %
                       common.DEFAULT_BASE)
  ap.add_argument('--baseline', action='store_true',
                  help='also prepare build/baseline: the same Node tree and '
                       'flags without our feature patches (make baseline)')
  ap.add_argument('--reset', action='store_true',
                  help='discard build/node (and its unexported commits) and '
                       'prepare it again from the patch queue')
  ap.add_argument('--node-tarball', metavar='PATH',
                  default=os.environ.get('NODECURE_NODE_TARBALL'),
                  help='build from upstream\'s release tarball %s instead '
                       'of Debian\'s source package (checked by sha256; '
                       'default: $NODECURE_NODE_TARBALL)' %
                       (list(inputs.NODE_TARBALL) or ['(none for this base)'])[0])
  ap.add_argument('--node-shasums', metavar='PATH',
                  help='upstream\'s SHASUMS256.txt to check the tarball '
                       'against too (default: SHASUMS256.txt beside it, if '
                       'there)')
  ap.add_argument('--fetch-only', action='store_true',
                  help='only fill the download cache (with the inputs of '
                       'make test too)')
  ap.add_argument('--release', action='store_true',
                  help='with --fetch-only: also the sources of make '
                       'release\'s static libraries')
  ap.add_argument('extra', nargs='*',
                  help='extra options for upstream configure.py, after --')
  args = ap.parse_args()

  check_host()
  if args.node_tarball:
    upstream = official_source(args.node_tarball, args.node_shasums)
  else:
    fetch_all(tests=args.fetch_only, release=args.release)
    upstream = None
  if args.fetch_only:
    return
  if upstream is None:
    upstream = debian_source()
    build_deps()
  if args.reset:
    shutil.rmtree(BUILD / 'baseline', ignore_errors=True)
    shutil.rmtree(BUILD / 'node', ignore_errors=True)
  tree = prepare_trees(args.baseline, upstream)
  record_inputs(tree, upstream)
  overlay(tree)
  upstream_configure(tree, upstream, args.extra)
  if args.baseline:
    upstream_configure(BUILD / 'baseline', upstream, args.extra)
  log('ready: run make' + ('' if common.BASE == common.DEFAULT_BASE else
                          ' NODE_BASE=%s' % common.BASE))


if __name__ == '__main__':
  main()
