#!/usr/bin/env python3
"""make test-dist: nodecure installed the ways a user installs Node.

Takes what `make binary`, `make headers`, `make dist-mirror` and `make deb`
made in build/dist (making what is missing or older than the node it
packages) and checks, each step printing `ok`, `not ok` or `skip`:

  layout      the tarball: top directory named like the file, the official
              binary tarball's layout (bin/node, the npm, npx and corepack
              links exactly as upstream's, include/node, share/man,
              share/doc/node, lib/node_modules/{npm,corepack} at the pinned
              versions), the same files as `make install` into a prefix
  versions    with only the unpacked prefix's bin/ on PATH (plus a directory
              of the host's tools without any node, npm or corepack):
              node --version is v24.21.0, process.versions.cure is set,
              npm, npx and corepack print the pinned versions
  express     npm init -y && npm install express@5 from the registry
              (through npm's own configuration), an Express app answering
              on 127.0.0.1
  npx         npx --yes cowsay@1.6.0 from the registry
  corepack    corepack enable into a directory: its yarn and pnpm shims run
              the prefix's corepack
  addons      a NAN and a node-addon-api addon (test/cure-dist/addons) built
              by node-gyp (from npm, pinned by the fixture's lock) with
              --tarball=<headers tarball>, then with --nodedir=<prefix>,
              then with --dist-url=<the mirror on 127.0.0.1>, each loaded
  n           the `n` version manager (npm, pinned) installs from the dist
              mirror served on 127.0.0.1 into a temporary N_PREFIX: that node
              prints v24.21.0 with process.versions.cure, `n ls-remote lts`
              finds 24.21.0 in index.tab
  deb         dpkg -x of the .deb: its node runs; dpkg --root into a temporary
              root (maintainer scripts chrootless, DPKG_ROOT): postinst
              makes /usr/bin/node an alternative of that root, prerm removes
              it; lintian, when installed, reports no error
  dockerfile  tools/nodecure/docker/Dockerfile: Debian 12 slim, installs the
              tarball, packages without recommends, apt lists removed
  portable    the node of the tarball needs only glibc, libstdc++ and libgcc,
              binds no glibc symbol above GLIBC_2.28 and no GLIBCXX one
              (objdump -T); skipped, saying so, when it is not a release
              build
  minimal-root  a root holding only libc6, libstdc++6 and libgcc-s1 (dpkg -x
              of Debian 12's packages) and the tarball: chroot, node
              --version, crypto, zlib, sqlite; skipped when not a release
              build
  slim-root   the Dockerfile's path without docker: the same root plus the
              runtime packages that a build linking Debian's shared libraries
              needs (none for a release build), chroot, node --version
  debian-11-root  a Debian 11 minbase root (glibc 2.31; test-sysroot's,
              made with debootstrap when missing): chroot with /proc
              mounted, the tarball's node runs, its npm installs express@5
              from the registry and the app answers on 127.0.0.1, npx runs
              cowsay, the addons built by the addons steps load; skipped
              when not a release build
  debian-11-deb  Debian 11's own dpkg installs the .deb in a copy of that
              root (so its Depends are met there), /usr/bin/node and npm
              run, dpkg -r removes it; release builds only
  debian-11-docker  the Dockerfile built FROM debian:11-slim without docker:
              each stage a copy of the Debian 11 root, its ADD, COPY --from
              and RUN instructions carried out (RUN in a chroot), its own
              checks and CMD run; release builds only

The last line is 'N passed, N failed, N skipped'. --tree=build/release tests
the release build's packages.
"""

import argparse
import contextlib
import functools
import http.client
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dist  # noqa: E402
import inputs  # noqa: E402
from common import ROOT, BUILD  # noqa: E402
from fetch import fetch_test_input  # noqa: E402

WORK = BUILD / 'test-dist'
FIXTURE = ROOT / 'test' / 'cure-dist' / 'addons'
DOCKERFILE = ROOT / 'tools' / 'nodecure' / 'docker' / 'Dockerfile'
# Nothing of another Node may be on the tests' PATH.
NODE_TOOLS = {'node', 'nodejs', 'npm', 'npx', 'corepack', 'node-gyp', 'n',
              'yarn', 'yarnpkg', 'pnpm', 'pnpx', 'nvm', 'volta', 'fnm'}
# The links of the official tarball (node-v24.21.0-linux-x64/bin).
OFFICIAL_LINKS = {
    'npm': '../lib/node_modules/npm/bin/npm-cli.js',
    'npx': '../lib/node_modules/npm/bin/npx-cli.js',
    'corepack': '../lib/node_modules/corepack/dist/corepack.js',
}
MINIMAL_PACKAGES = ['libc6', 'libstdc++6', 'libgcc-s1']


class Skip(Exception):
  pass


def sh(cmd, cwd=None, env=None, timeout=600, input=None):
  """Run CMD; its stdout, or an AssertionError with what it printed."""
  r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env,
                     capture_output=True, text=True, timeout=timeout,
                     input=input)
  if r.returncode:
    raise AssertionError('%s exited %d:\n%s%s' % (
        ' '.join(map(str, cmd)), r.returncode, r.stdout[-3000:],
        r.stderr[-3000:]))
  return r.stdout


def http_get(port, path='/'):
  conn = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
  conn.request('GET', path)
  res = conn.getresponse()
  return res.status, res.read().decode()


class Env:
  """A user's shell with only PREFIX/bin and the host's tools on PATH."""

  def __init__(self, prefix):
    self.prefix = prefix
    self.env = dict(os.environ)
    self.env['PATH'] = '%s:%s' % (prefix / 'bin', host_tools())
    # An addon author's default toolchain and a make of their own, not the
    # Makefile's ccache clang and jobserver.
    for k in ('CC', 'CXX', 'CC_host', 'CXX_host', 'MAKEFLAGS', 'MFLAGS',
              'MAKELEVEL', 'NODE', 'NODE_PATH', 'NODE_OPTIONS'):
      self.env.pop(k, None)
    for k in list(self.env):
      # The host npm's own overrides (npm run sets these) stay out; the
      # user's and the machine's npmrc files are npm's configuration.
      if k.lower().startswith('npm_'):
        del self.env[k]
    self.env.update({'npm_config_update_notifier': 'false',
                     'npm_config_fund': 'false', 'npm_config_audit': 'false',
                     'COREPACK_ENABLE_DOWNLOAD_PROMPT': '0'})
    node = shutil.which('node', path=self.env['PATH'])
    assert node == str(prefix / 'bin' / 'node'), (
        'node on PATH is %s, not the prefix\'s' % node)

  def run(self, *cmd, **kw):
    return sh(cmd, env=self.env, **kw)


@functools.lru_cache(None)
def host_tools():
  """A directory of links to the host's programs, without any Node tool,
  so that the only node on the tests' PATH is the one under test."""
  d = WORK / 'host-bin'
  shutil.rmtree(d, ignore_errors=True)
  d.mkdir(parents=True)
  for src in ('/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'):
    if not os.path.isdir(src):
      continue
    for name in sorted(os.listdir(src)):
      path = os.path.join(src, name)
      if name in NODE_TOOLS or (d / name).exists() or \
         not os.access(path, os.X_OK) or os.path.isdir(path):
        continue
      (d / name).symlink_to(path)
  # python3 (node-gyp needs it) as this runner's own interpreter: a
  # version manager's shim would need its own PATH.
  for name in ('python3', 'python'):
    (d / name).unlink(missing_ok=True)
  (d / 'python3').symlink_to(os.path.realpath(sys.executable))
  return d


def unpack_tarball(tarball, dest):
  """As a user would: tar -xJf into a prefix, the top directory stripped.
  Returns the top directory's name."""
  with tarfile.open(tarball) as t:
    tops = {m.name.split('/')[0] for m in t.getmembers()}
  shutil.rmtree(dest, ignore_errors=True)
  dest.mkdir(parents=True)
  sh(['tar', '-xJf', tarball, '-C', dest, '--strip-components=1'])
  return tops


@contextlib.contextmanager
def serve(directory):
  """A static HTTP server on 127.0.0.1 (any free port); yields the port."""
  handler = functools.partial(Quiet, directory=str(directory))
  server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
  thread = threading.Thread(target=server.serve_forever, daemon=True)
  thread.start()
  try:
    yield server.server_address[1]
  finally:
    server.shutdown()
    server.server_close()


class Quiet(http.server.SimpleHTTPRequestHandler):
  requests = []

  def log_message(self, fmt, *args):
    Quiet.requests.append(fmt % args)


# ---------------------------------------------------------------------------
# The steps

class Dist:
  """build/dist's files for the node of TREE, made when missing or stale."""

  def __init__(self, tree):
    self.build = b = dist.Build(tree)
    dist.ensure(b, ['binary', 'headers', 'deb', 'mirror'])
    files = dist.paths(b)
    self.tarball = files['binary'][0]
    self.headers = files['headers'][0]
    self.deb = files['deb'][0]
    self.mirror = dist.DIST / 'mirror'
    self.prefix = WORK / 'prefix'


def step_layout(d, checks):
  tops = unpack_tarball(d.tarball, d.prefix)
  assert tops == {d.build.binary_name}, tops
  p = d.prefix
  for f in ('bin/node', 'include/node/node.h', 'include/node/node_api.h',
            'include/node/v8.h', 'include/node/uv.h',
            'include/node/common.gypi', 'include/node/config.gypi',
            'share/man/man1/node.1', 'share/doc/node/gdbinit',
            'share/doc/node/lldb_commands.py', 'README.md', 'LICENSE',
            'CHANGELOG.md'):
    assert (p / f).is_file(), 'missing %s' % f
  for name, target in OFFICIAL_LINKS.items():
    link = p / 'bin' / name
    assert link.is_symlink() and os.readlink(link) == target, (
        'bin/%s -> %s, not %s' % (name, os.readlink(link)
                                  if link.is_symlink() else None, target))
    assert os.access(link, os.X_OK), 'bin/%s is not executable' % name
  for name, (version, _) in inputs.NPM_DIST.items():
    pkg = json.loads((p / 'lib' / 'node_modules' / name /
                      'package.json').read_text())
    assert pkg['version'] == version, (name, pkg['version'])
  assert not list(p.joinpath('lib', 'node_modules', 'npm').rglob('test/')), \
      'upstream does not install npm\'s test directories'
  gypi = (p / 'include' / 'node' / 'config.gypi').read_text()
  assert str(ROOT) not in gypi, 'config.gypi names the build machine\'s paths'
  # make install into a prefix: the same files, without the top-level docs.
  installed = WORK / 'make-install'
  shutil.rmtree(installed, ignore_errors=True)
  dist.install(d.build, str(installed), '/usr/local')
  listing = lambda root: sorted(
      x.relative_to(root).as_posix() for x in root.rglob('*')
      if not x.is_dir() or x.is_symlink())
  ours = [f for f in listing(d.prefix)
          if f not in ('README.md', 'LICENSE', 'LICENSE.nodecure',
                       'CHANGELOG.md') and
          not f.startswith('share/doc/nodecure/')]
  theirs = listing(installed / 'usr' / 'local')
  assert ours == theirs, 'tarball and make install differ: %s' % (
      sorted(set(ours) ^ set(theirs))[:10])
  checks.append('%s: %d files and links in the official layout, as make '
                'install lays them out' % (d.tarball.name, len(ours)))


def step_versions(d, checks):
  e = Env(d.prefix)
  assert e.run('node', '--version').strip() == 'v' + inputs.NODE_VERSION
  cure = e.run('node', '-p', 'process.versions.cure').strip()
  assert cure == d.build.cure, cure
  for tool, name in (('npm', 'npm'), ('npx', 'npm'),
                     ('corepack', 'corepack')):
    got = e.run(tool, '--version').strip()
    assert got == inputs.NPM_DIST[name][0], (tool, got)
  checks.append('node v%s (cure %s), npm and npx %s, corepack %s, only the '
                'prefix on PATH' % (inputs.NODE_VERSION, cure,
                                    inputs.NPM_DIST['npm'][0],
                                    inputs.NPM_DIST['corepack'][0]))


EXPRESS_APP = r'''
const express = require('express');
const app = express();
app.get('/', (req, res) => res.send('hello from nodecure ' +
                                    process.versions.cure));
const server = app.listen(0, '127.0.0.1', () => {
  console.log('listening ' + server.address().port);
});
'''


def step_express(d, checks):
  e = Env(d.prefix)
  app = WORK / 'express-app'
  shutil.rmtree(app, ignore_errors=True)
  app.mkdir(parents=True)
  e.run('npm', 'init', '-y', cwd=app)
  e.run('npm', 'install', 'express@5', '--no-audit', '--no-fund',
        '--loglevel=error', cwd=app)
  version = json.loads((app / 'node_modules' / 'express' /
                        'package.json').read_text())['version']
  assert version.startswith('5.'), version
  (app / 'app.js').write_text(EXPRESS_APP)
  proc = subprocess.Popen(['node', 'app.js'], cwd=app, env=e.env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
  try:
    line = proc.stdout.readline()
    assert line.startswith('listening '), (line, proc.stderr.read())
    port = int(line.split()[1])
    status, body = http_get(port)
    assert status == 200 and body == 'hello from nodecure ' + d.build.cure, \
        (status, body)
  finally:
    proc.terminate()
    proc.wait(10)
  checks.append('npm install express@5 (%s); the app answered on '
                '127.0.0.1:%d' % (version, port))


def step_npx(d, checks):
  e = Env(d.prefix)
  work = WORK / 'npx'
  shutil.rmtree(work, ignore_errors=True)
  work.mkdir(parents=True)
  out = e.run('npx', '--yes', 'cowsay@1.6.0', 'hello from nodecure', cwd=work)
  assert '< hello from nodecure >' in out, out
  checks.append('npx --yes cowsay@1.6.0 ran')


def step_corepack(d, checks):
  e = Env(d.prefix)
  shims = WORK / 'corepack-shims'
  shutil.rmtree(shims, ignore_errors=True)
  shims.mkdir(parents=True)
  e.run('corepack', 'enable', '--install-directory', shims)
  for shim in ('yarn', 'pnpm'):
    target = os.path.realpath(shims / shim)
    assert target.startswith(str(d.prefix / 'lib' / 'node_modules' /
                                 'corepack')), (shim, target)
  checks.append('corepack enable: yarn and pnpm shims into the prefix\'s '
                'corepack')


def build_addons(e, label, args, checks):
  work = WORK / 'addons'
  if not (work / 'node_modules' / 'node-gyp').exists():
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(FIXTURE, work)
    e.run('npm', 'ci', '--ignore-scripts', '--no-audit', '--no-fund',
          '--loglevel=error', cwd=work)
  for f in FIXTURE.iterdir():
    if f.is_file():
      shutil.copy2(f, work / f.name)
  shutil.rmtree(work / 'build', ignore_errors=True)
  e.run('node', work / 'node_modules' / 'node-gyp' / 'bin' / 'node-gyp.js',
        'rebuild', '-j', str(os.cpu_count() or 2), *args, cwd=work)
  out = e.run('node', 'test.js', cwd=work).strip()
  assert out == 'addons ok', out
  checks.append('NAN and node-addon-api addons built with node-gyp %s, '
                'loaded' % label)


def step_addons_tarball(d, checks):
  e = Env(d.prefix)
  devdir = WORK / 'gyp-devdir-tarball'
  shutil.rmtree(devdir, ignore_errors=True)
  build_addons(e, '--tarball=%s' % d.headers.name,
               ['--tarball=%s' % d.headers, '--devdir=%s' % devdir], checks)


def step_addons_nodedir(d, checks):
  e = Env(d.prefix)
  build_addons(e, '--nodedir=<the unpacked prefix>',
               ['--nodedir=%s' % d.prefix], checks)


def step_addons_mirror(d, checks):
  e = Env(d.prefix)
  devdir = WORK / 'gyp-devdir-mirror'
  shutil.rmtree(devdir, ignore_errors=True)
  with serve(d.mirror) as port:
    build_addons(e, '--dist-url=<the mirror>',
                 ['--dist-url=http://127.0.0.1:%d' % port,
                  '--devdir=%s' % devdir], checks)
  # node-gyp fetched the headers and checked them against SHASUMS256.txt.
  assert list(devdir.rglob('include/node/node.h')), list(devdir.rglob('*'))[:5]


def step_n(d, checks):
  if not (shutil.which('curl') or shutil.which('wget')):
    raise Skip('n downloads with curl or wget; neither is installed')
  tgz = fetch_test_input('n')
  tool = WORK / 'n'
  shutil.rmtree(tool, ignore_errors=True)
  tool.mkdir(parents=True)
  sh(['tar', '-xzf', tgz, '-C', tool, '--strip-components=1'])
  nprefix = WORK / 'n-prefix'
  shutil.rmtree(nprefix, ignore_errors=True)
  env = dict(os.environ, PATH=str(host_tools()), N_PREFIX=str(nprefix))
  for k in ('N_NODE_DOWNLOAD_MIRROR', 'N_CACHE_PREFIX', 'N_USE_XZ'):
    env.pop(k, None)
  with serve(d.mirror) as port:
    env['N_NODE_MIRROR'] = 'http://127.0.0.1:%d' % port
    n = ['bash', tool / 'bin' / 'n']
    sh(n + ['install', inputs.NODE_VERSION], env=env)
    lts = sh(n + ['ls-remote', 'lts'], env=env).split()
    assert lts == [inputs.NODE_VERSION], lts
  fetched = [r for r in Quiet.requests if '.tar.' in r]
  node = nprefix / 'bin' / 'node'
  version = sh([node, '--version']).strip()
  assert version == 'v' + inputs.NODE_VERSION, version
  cure = sh([node, '-p', 'process.versions.cure']).strip()
  assert cure == d.build.cure, cure
  npm = sh([node, nprefix / 'bin' / 'npm', '--version']).strip()
  assert npm == inputs.NPM_DIST['npm'][0], npm
  assert any('node-v%s-linux-x64.tar.xz' % inputs.NODE_VERSION in r
             for r in fetched), fetched
  checks.append('n %s installed %s (cure %s, npm %s) from the mirror on '
                '127.0.0.1:%d; ls-remote lts: %s' %
                (inputs.NPM_TEST['n'][0], version, cure, npm, port,
                 ' '.join(lts)))


def deb_field(deb, field):
  return sh(['dpkg-deb', '-f', deb, field]).strip()


def step_deb(d, checks):
  assert deb_field(d.deb, 'Package') == 'nodecure'
  depends = deb_field(d.deb, 'Depends')
  root = WORK / 'deb-x'
  shutil.rmtree(root, ignore_errors=True)
  sh(['dpkg', '-x', d.deb, root])
  prefix = root / dist.DEB_PREFIX.lstrip('/')
  e = Env(prefix)
  assert e.run('node', '--version').strip() == 'v' + inputs.NODE_VERSION
  assert e.run('node', '-p', 'process.versions.cure').strip() == d.build.cure
  assert e.run('npm', '--version').strip() == inputs.NPM_DIST['npm'][0]
  checks.append('dpkg -x: %s/bin/node, npm run (Depends: %s)' %
                (dist.DEB_PREFIX, depends))

  # dpkg --root: a root of its own with an empty dpkg database; the
  # maintainer scripts run on the host with DPKG_ROOT set, which
  # update-alternatives honours.
  root = WORK / 'deb-root'
  shutil.rmtree(root, ignore_errors=True)
  admin = root / 'var' / 'lib' / 'dpkg'
  for sub in ('info', 'updates', 'triggers', 'alternatives'):
    (admin / sub).mkdir(parents=True)
  (admin / 'status').write_text('')
  (admin / 'available').write_text('')
  (root / 'etc' / 'alternatives').mkdir(parents=True)
  (root / 'usr' / 'bin').mkdir(parents=True)
  dpkg = ['dpkg', '--root=%s' % root, '--log=%s' % (root / 'dpkg.log'),
          '--force-not-root', '--force-script-chrootless',
          '--force-depends']
  env = dict(os.environ, DPKG_ROOT=str(root))
  sh(dpkg + ['-i', d.deb], env=env)
  link = root / 'usr' / 'bin' / 'node'
  assert os.readlink(link) == '/etc/alternatives/node', os.readlink(link)
  target = os.readlink(root / 'etc' / 'alternatives' / 'node')
  assert target == dist.DEB_PREFIX + '/bin/node', target
  for slave in ('npm', 'npx', 'corepack'):
    assert os.readlink(root / 'usr' / 'bin' / slave) == \
        '/etc/alternatives/' + slave, slave
  out = sh(['update-alternatives', '--root', root, '--query', 'node'])
  assert 'Value: %s/bin/node' % dist.DEB_PREFIX in out, out
  sh(dpkg + ['-r', 'nodecure'], env=env)
  assert not os.path.lexists(link), 'prerm left /usr/bin/node'
  assert not (root / dist.DEB_PREFIX.lstrip('/') / 'bin' / 'node').exists()
  checks.append('dpkg --root: postinst made /usr/bin/node, npm, npx, '
                'corepack alternatives of %s; dpkg -r removed them' %
                dist.DEB_PREFIX)

  # Beside Debian's nodejs and npm, which ship /usr/bin/node as a file and
  # /usr/bin/npm as a link of their own: both stay as they are.
  (root / 'usr' / 'bin' / 'node').write_text('#!/bin/sh\necho debian\n')
  (root / 'usr' / 'bin' / 'npm').symlink_to(
      '../share/nodejs/npm/bin/npm-cli.js')
  sh(dpkg + ['-i', d.deb], env=env)
  assert not os.path.islink(link) and \
      link.read_text() == '#!/bin/sh\necho debian\n', 'took over /usr/bin/node'
  assert os.readlink(root / 'usr' / 'bin' / 'npm') == \
      '../share/nodejs/npm/bin/npm-cli.js', 'took over /usr/bin/npm'
  out = sh(['update-alternatives', '--root', root, '--query', 'node'])
  assert 'Alternative: %s/bin/node' % dist.DEB_PREFIX in out, out
  assert os.readlink(root / 'usr' / 'bin' / 'npx') == '/etc/alternatives/npx'
  sh(dpkg + ['-r', 'nodecure'], env=env)
  assert link.read_text() == '#!/bin/sh\necho debian\n'
  checks.append('beside a nodejs that owns /usr/bin/node and an npm that '
                'owns /usr/bin/npm: both left alone, npx and the '
                'alternative registered, removed again')


def step_lintian(d, checks):
  if not shutil.which('lintian'):
    raise Skip('lintian is not installed (apt-get install lintian)')
  r = subprocess.run(['lintian', '--tag-display-limit', '0', '--info',
                      str(d.deb)], capture_output=True, text=True,
                     timeout=1800)
  tags = [l for l in r.stdout.splitlines() if re.match(r'^[EWIP]: ', l)]
  errors = [l for l in tags if l.startswith('E: ')]
  warnings = [l for l in tags if l.startswith('W: ')]
  (WORK / 'lintian.txt').write_text(r.stdout + r.stderr)
  # The default maintainer's address is a placeholder: a packager sets
  # DEBEMAIL (dist.maintainer()).
  placeholder = [l for l in errors if ' bogus-mail-host' in l and
                 dist.maintainer() == dist.DEFAULT_MAINTAINER]
  errors = [l for l in errors if l not in placeholder]
  assert not errors, '\n'.join(errors[:20])
  tag = lambda l: l.split(': ', 2)[2].split()[0]
  checks.append('lintian: no error%s, %d warning(s)%s (build/test-dist/'
                'lintian.txt)' % (
                    ' but the placeholder maintainer\'s (%s; set DEBEMAIL)' %
                    ', '.join(sorted({tag(l) for l in placeholder}))
                    if placeholder else '',
                    len(warnings), ': ' + ', '.join(
                        sorted({tag(w) for w in warnings}))
                    if warnings else ''))


def step_dockerfile(d, checks):
  """hadolint is not available here: the checks that matter for this one."""
  text = DOCKERFILE.read_text()
  lines = re.sub(r'\\\n', ' ', text).splitlines()
  instructions = [l.split(None, 1) for l in lines
                  if l.strip() and not l.lstrip().startswith('#')]
  known = {'FROM', 'ARG', 'ADD', 'COPY', 'RUN', 'ENV', 'CMD', 'ENTRYPOINT',
           'WORKDIR', 'USER', 'LABEL', 'EXPOSE', 'SHELL'}
  for ins in instructions:
    assert ins[0] in known, 'unknown instruction %s' % ins[0]
  froms = [i[1] for i in instructions if i[0] == 'FROM']
  args = dict(re.findall(r'^ARG (\w+)=(\S+)', text, re.M))
  bases = {re.sub(r'\$\{(\w+)\}', lambda m: args.get(m.group(1), ''),
                  f.split()[0]) for f in froms}
  assert bases == {'debian:12-slim'}, bases
  for run in [i[1] for i in instructions if i[0] == 'RUN']:
    if 'apt-get install' in run:
      assert '--no-install-recommends' in run, run
      assert 'rm -rf /var/lib/apt/lists' in run, run
  adds = [i[1] for i in instructions if i[0] == 'ADD']
  assert any('NODECURE_TARBALL' in a for a in adds), adds
  checks.append('Dockerfile: %d instructions, base debian:12-slim, installs '
                'the tarball (docker not run here)' % len(instructions))


def step_portable(d, checks):
  extra = dist.not_portable(d.build.node)
  if extra:
    raise Skip('not a release build: its node links %s (make release '
               'builds the portable one)' % ', '.join(extra))
  highest, above, cxx = dist.symbol_floor(d.build.node)
  assert not above, 'glibc symbols above %d.%d: %s' % (
      dist.GLIBC_MAX + (', '.join(above[:12]),))
  assert not cxx, 'libstdc++ symbols: %s' % ', '.join(cxx[:12])
  checks.append('node needs only %s; glibc symbols up to %s, no GLIBCXX' % (
      ', '.join(sorted(dist.needed(d.build.node))), highest))


def debs(packages):
  """Debian 12's packages (the host's apt), downloaded into the work dir."""
  dest = WORK / 'debs'
  dest.mkdir(parents=True, exist_ok=True)
  missing = [p for p in packages if not list(dest.glob('%s_*.deb' % p))]
  if missing:
    try:
      sh(['apt-get', 'download', '-q'] + missing, cwd=dest)
    except AssertionError:
      # A machine whose apt lists are empty or old.
      sh(['apt-get', 'update', '-qq'])
      sh(['apt-get', 'download', '-q'] + missing, cwd=dest)
  return [next(dest.glob('%s_*.deb' % p)) for p in packages]


def make_root(name, packages, tarball):
  root = WORK / name
  shutil.rmtree(root, ignore_errors=True)
  root.mkdir(parents=True)
  for deb in debs(packages):
    sh(['dpkg', '-x', deb, root])
  # usrmerge, as Debian 12 images have it: /lib64/ld-linux-x86-64.so.2.
  for d in ('lib', 'lib64', 'bin', 'sbin'):
    if (root / 'usr' / d).is_dir() and not (root / d).exists():
      (root / d).symlink_to('usr/' + d)
  opt = root / 'opt' / 'nodecure'
  opt.parent.mkdir(parents=True)
  unpack_tarball(tarball, opt)
  (root / 'tmp').mkdir(mode=0o1777)
  return root


SMOKE = ('const c = require("crypto"), z = require("zlib");'
         'const h = c.createHash("sha256").update("x").digest("hex");'
         'const g = z.gunzipSync(z.gzipSync("x")).toString();'
         'const db = new (require("node:sqlite").DatabaseSync)(":memory:");'
         'const r = db.prepare("select 41 + 1 as v").get().v;'
         'console.log([process.version, process.versions.cure,'
         ' process.versions.openssl, h.length, g, r].join(" "))')


def chroot_node(root, checks, label):
  env = {'PATH': '/opt/nodecure/bin', 'HOME': '/tmp'}
  out = sh([shutil.which('chroot') or '/usr/sbin/chroot', root,
            '/opt/nodecure/bin/node',
            '--no-warnings',
            '-e', SMOKE], env=env).split()
  assert out[0] == 'v' + inputs.NODE_VERSION and out[1], out
  assert out[3:] == ['64', 'x', '42'], out
  checks.append('%s: chroot ran node %s (cure %s, OpenSSL %s): crypto, zlib, '
                'sqlite' % (label, out[0], out[1], out[2]))


def step_minimal_root(d, checks):
  extra = dist.not_portable(d.build.node)
  if extra:
    raise Skip('not a release build (its node needs %s): a root with only '
               'libc6 and libstdc++6 cannot run it; slim-root checks it with '
               'its runtime packages' % ', '.join(extra))
  if os.geteuid() != 0:
    raise Skip('chroot needs root')
  root = make_root('minimal-root', MINIMAL_PACKAGES, d.tarball)
  chroot_node(root, checks, 'libc6, libstdc++6, libgcc-s1 only')


def step_slim_root(d, checks):
  if os.geteuid() != 0:
    raise Skip('chroot needs root')
  extra = dist.runtime_packages(d.build.node)
  root = make_root('slim-root', MINIMAL_PACKAGES + extra, d.tarball)
  chroot_node(root, checks, 'libc6, libstdc++6, libgcc-s1%s' % (
      ' + ' + ', '.join(extra) if extra else ''))


# Where debian-11-root puts the tarball, an app and the addons.
IN_ROOT = 'opt/nodecure-test-dist'


@contextlib.contextmanager
def proc_mounted(root):
  """ROOT/proc mounted for the length of the block (unless it was)."""
  proc = root / 'proc'
  mounted = False
  if not os.path.ismount(proc):
    sh(['mount', '-t', 'proc', 'proc', proc])
    mounted = True
  try:
    yield
  finally:
    if mounted and subprocess.run(['umount', str(proc)]).returncode:
      subprocess.run(['umount', '-l', str(proc)])


def step_debian_11_root(d, checks):
  """Issue 33: in Debian 11 (glibc 2.31) with nothing but minbase, the
  tarball's node, npm and npx work: npm installs Express from the registry
  and the app answers on 127.0.0.1; the addons that the addons steps built
  on this machine load."""
  extra = dist.not_portable(d.build.node)
  if extra:
    raise Skip('not a release build (its node needs %s)' % ', '.join(extra))
  if os.geteuid() != 0:
    raise Skip('chroot needs root')
  import test_sysroot
  root, why = test_sysroot.make_root()
  if root is None:
    raise Skip(why)
  addons = WORK / 'addons' / 'build' / 'Release'
  if not (addons / 'nan_addon.node').exists():
    raise Skip('the addons steps built no addon')
  inside = root / IN_ROOT
  shutil.rmtree(inside, ignore_errors=True)
  try:
    unpack_tarball(d.tarball, inside / 'prefix')
    shutil.copytree(addons, inside / 'addons' / 'build' / 'Release')
    shutil.copy2(FIXTURE / 'test.js', inside / 'addons' / 'test.js')
    (inside / 'home').mkdir()
    (inside / 'app').mkdir()
    (inside / 'app' / 'app.js').write_text(EXPRESS_APP)
    env = {'PATH': '/%s/prefix/bin:/usr/bin:/bin' % IN_ROOT, 'LANG': 'C',
           'HOME': '/%s/home' % IN_ROOT,
           'npm_config_update_notifier': 'false'}
    # The host's extra certificate authorities (a proxy of this network),
    # where npm's configuration or NODE_EXTRA_CA_CERTS names them: the root
    # has no ca-certificates, and node reads the file for npm and npx.
    host = Env(d.prefix).env
    cafile = sh(['npm', 'config', 'get', 'cafile'], env=host).strip()
    for ca in (cafile, host.get('NODE_EXTRA_CA_CERTS', '')):
      if ca not in ('', 'null', 'undefined') and os.path.isfile(ca):
        shutil.copy2(ca, inside / 'ca.crt')
        env['NODE_EXTRA_CA_CERTS'] = '/%s/ca.crt' % IN_ROOT
        break
    chroot = [shutil.which('chroot') or '/usr/sbin/chroot', root]

    def run_in(*cmd, cwd='/', timeout=600):
      return sh(chroot + ['/bin/sh', '-c', 'cd "$0" && exec "$@"', cwd] +
                list(cmd), env=env, timeout=timeout)

    with proc_mounted(root):
      assert run_in('node', '--version').strip() == 'v' + \
          inputs.NODE_VERSION
      app = '/%s/app' % IN_ROOT
      run_in('npm', 'init', '-y', cwd=app)
      run_in('npm', 'install', 'express@5', '--no-audit', '--no-fund',
             '--loglevel=error', cwd=app)
      version = json.loads((inside / 'app' / 'node_modules' / 'express' /
                            'package.json').read_text())['version']
      proc = subprocess.Popen(chroot + ['/bin/sh', '-c',
                                        'cd "$0" && exec node app.js', app],
                              env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
      try:
        line = proc.stdout.readline()
        assert line.startswith('listening '), (line, proc.stderr.read())
        port = int(line.split()[1])
        status, body = http_get(port)
        assert status == 200 and body == 'hello from nodecure ' + \
            d.build.cure, (status, body)
      finally:
        proc.terminate()
        proc.wait(10)
      out = run_in('npx', '--yes', 'cowsay@1.6.0', 'hello from Debian 11',
                   cwd='/%s/home' % IN_ROOT)
      assert '< hello from Debian 11 >' in out, out
      out = run_in('node', 'test.js', cwd='/%s/addons' % IN_ROOT).strip()
      assert out == 'addons ok', out
      libc = sh(chroot + ['/lib/x86_64-linux-gnu/libc.so.6'],
                env=env).splitlines()[0]
  finally:
    shutil.rmtree(inside, ignore_errors=True)
  checks.append('Debian %s (%s): node ran, npm installed express@5 (%s) '
                'and the app answered on 127.0.0.1:%d, npx ran cowsay, the '
                'NAN and node-addon-api addons built here loaded' % (
                    (root / 'etc' / 'debian_version').read_text().strip(),
                    libc.split(' version ')[-1].rstrip('.'), version, port))


@contextlib.contextmanager
def debian_11_copy(name):
  """A throwaway copy of test-sysroot's Debian 11 minbase root (the
  packages of debian:11-slim), /proc mounted, removed after the block."""
  import test_sysroot
  base, why = test_sysroot.make_root()
  if base is None:
    raise Skip(why)
  root = WORK / name
  if os.path.ismount(root / 'proc'):
    subprocess.run(['umount', '-l', str(root / 'proc')])
  shutil.rmtree(root, ignore_errors=True)
  WORK.mkdir(parents=True, exist_ok=True)
  sh(['cp', '-a', base, root])
  try:
    with proc_mounted(root):
      yield root
  finally:
    shutil.rmtree(root, ignore_errors=True)


def release_only(d):
  extra = dist.not_portable(d.build.node)
  if extra:
    raise Skip('not a release build (its node needs %s)' % ', '.join(extra))
  if os.geteuid() != 0:
    raise Skip('chroot needs root')


# The PATH of the debian images and of a login shell in Debian 11.
IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'


def dockerfile_instructions(text, args):
  """[(instruction, argument)] of a Dockerfile, continuations joined and
  ${ARG}s of ARGS (the --build-args over the ARG defaults) substituted."""
  lines = re.sub(r'\\\n', ' ', text).splitlines()
  out, values = [], {}
  for line in lines:
    if not line.strip() or line.lstrip().startswith('#'):
      continue
    ins, arg = (line.split(None, 1) + [''])[:2]
    if ins == 'ARG':
      name, _, default = arg.partition('=')
      values[name] = args.get(name, default.strip('"'))
      continue
    arg = re.sub(r'\$\{(\w+)\}', lambda m: values.get(m.group(1), ''), arg)
    out.append((ins, arg, dict(values)))
  return out


def step_docker_debian_11(d, checks):
  """The Dockerfile's instructions, built FROM debian:11-slim, carried out
  without docker: each stage a copy of the Debian 11 root, ADD unpacks the
  tarball, COPY --from copies between stages, RUN runs in a chroot with the
  build arguments in its environment (as docker build passes them)."""
  release_only(d)
  name = d.tarball.name[:-len('.tar.xz')]
  args = {'DEBIAN_IMAGE': 'debian:11-slim', 'NODECURE_TARBALL': name}
  instructions = dockerfile_instructions(DOCKERFILE.read_text(), args)
  froms = [a.split() for i, a, _ in instructions if i == 'FROM']
  assert all(f[0] == 'debian:11-slim' for f in froms), froms
  stages, ran = {}, []
  with contextlib.ExitStack() as stack:
    for ins, arg, values in instructions:
      if ins == 'FROM':
        f = arg.split()
        label = f[2] if len(f) == 3 and f[1].upper() == 'AS' else \
            'stage%d' % len(stages)
        root = stack.enter_context(debian_11_copy('docker-' + label))
        stages[label] = root
        continue
      if ins == 'ADD':
        src, dest = arg.split()
        assert src == d.tarball.name, src
        target = root / dest.lstrip('/')
        target.mkdir(parents=True, exist_ok=True)
        sh(['tar', '-xJf', d.tarball, '-C', target])
      elif ins == 'COPY':
        m = re.match(r'--from=(\S+)\s+(\S+)\s+(\S+)$', arg)
        assert m, 'COPY %s: only COPY --from=<stage> <dir>/ <dir>/' % arg
        src = stages[m.group(1)] / m.group(2).lstrip('/')
        dest = root / m.group(3).lstrip('/')
        dest.mkdir(parents=True, exist_ok=True)
        # docker copies a directory's contents, merging into DEST.
        sh(['cp', '-a', '%s/.' % src, dest])
      elif ins == 'RUN':
        env = dict(values, PATH=IMAGE_PATH, HOME='/root', LANG='C')
        out = sh([shutil.which('chroot') or '/usr/sbin/chroot', root,
                  '/bin/sh', '-c', arg], env=env)
        ran.append(out)
      elif ins == 'CMD':
        cmd = json.loads(arg)
        env = {'PATH': IMAGE_PATH, 'HOME': '/root'}
        out = sh([shutil.which('chroot') or '/usr/sbin/chroot', root] + cmd +
                 ['-p', 'process.versions.cure'], env=env).strip()
        assert out == d.build.cure, out
      else:
        assert ins in ('LABEL', 'ENV', 'WORKDIR', 'EXPOSE', 'USER'), ins
    final = ran[-1].split()
  assert final[0] == 'v' + inputs.NODE_VERSION, final
  checks.append('Dockerfile FROM debian:11-slim (a copy of the Debian 11 '
                'root per stage): %d instructions carried out, its checks '
                'printed %s, CMD [node] runs' % (
                    len(instructions), ' '.join(final)))


def step_deb_debian_11(d, checks):
  """The .deb installed by Debian 11's own dpkg in a copy of the Debian 11
  root: dpkg refuses a package whose Depends that root cannot meet, so this
  shows its Depends no stricter than the binary needs."""
  release_only(d)
  depends = deb_field(d.deb, 'Depends')
  names = [re.split(r'[\s(]', p.strip())[0] for p in depends.split(',')]
  assert set(names) <= set(MINIMAL_PACKAGES), depends
  with debian_11_copy('deb-debian-11') as root:
    shutil.copy2(d.deb, root / 'tmp' / d.deb.name)
    chroot = [shutil.which('chroot') or '/usr/sbin/chroot', root]
    env = {'PATH': IMAGE_PATH, 'HOME': '/root', 'LANG': 'C'}
    sh(chroot + ['dpkg', '-i', '/tmp/' + d.deb.name], env=env)
    assert os.readlink(root / 'usr' / 'bin' / 'node') == \
        '/etc/alternatives/node'
    assert sh(chroot + ['node', '--version'], env=env).strip() == \
        'v' + inputs.NODE_VERSION
    assert sh(chroot + ['node', '-p', 'process.versions.cure'],
              env=env).strip() == d.build.cure
    assert sh(chroot + ['npm', '--version'], env=env).strip() == \
        inputs.NPM_DIST['npm'][0]
    have = sh(chroot + ['dpkg-query', '-W', '-f', '${Package} ${Version}\\n'] +
              names, env=env).strip().replace('\n', ', ')
    sh(chroot + ['dpkg', '-r', 'nodecure'], env=env)
    assert not os.path.lexists(root / 'usr' / 'bin' / 'node')
  checks.append('Debian 11\'s dpkg -i took it (Depends: %s; the root has %s):'
                ' /usr/bin/node, npm ran; dpkg -r removed it' % (depends, have))


STEPS = [
    ('layout', step_layout),
    ('versions', step_versions),
    ('express', step_express),
    ('npx', step_npx),
    ('corepack', step_corepack),
    ('addons --tarball', step_addons_tarball),
    ('addons --nodedir', step_addons_nodedir),
    ('addons --dist-url', step_addons_mirror),
    ('n', step_n),
    ('deb', step_deb),
    ('lintian', step_lintian),
    ('dockerfile', step_dockerfile),
    ('portable', step_portable),
    ('minimal-root', step_minimal_root),
    ('slim-root', step_slim_root),
    ('debian-11-root', step_debian_11_root),
    ('debian-11-deb', step_deb_debian_11),
    ('debian-11-docker', step_docker_debian_11),
]


def main():
  ap = argparse.ArgumentParser(prog='make test-dist')
  ap.add_argument('--tree', default=os.environ.get('DIST_TREE',
                                                   str(BUILD / 'node')))
  ap.add_argument('steps', nargs='*', metavar='STEP',
                  help='some of: %s (default: all)' %
                  ', '.join(n for n, _ in STEPS))
  args = ap.parse_args()
  names = [n for n, _ in STEPS]
  for s in args.steps:
    if s not in names:
      ap.error('unknown step %r' % s)
  WORK.mkdir(parents=True, exist_ok=True)
  d = Dist(args.tree)
  passed = failed = skipped = 0
  layout_done = False
  for name, step in STEPS:
    if args.steps and name not in args.steps:
      continue
    if name != 'layout' and not layout_done and not (d.prefix / 'bin').exists():
      unpack_tarball(d.tarball, d.prefix)
    layout_done = True
    checks = []
    start = time.monotonic()
    try:
      step(d, checks)
      passed += 1
      print('ok - dist: %s (%.0f s)' % (name, time.monotonic() - start))
      for c in checks:
        print('  # %s' % c)
    except Skip as e:
      skipped += 1
      print('skip - dist: %s: %s' % (name, e))
    except (AssertionError, OSError, subprocess.SubprocessError,
            ValueError, KeyError, SystemExit) as e:
      failed += 1
      print('not ok - dist: %s: %s' % (name, e))
    sys.stdout.flush()
  print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
  sys.exit(1 if failed else 0)


if __name__ == '__main__':
  main()
