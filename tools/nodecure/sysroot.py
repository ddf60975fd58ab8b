#!/usr/bin/env python3
"""build/sysroot/bullseye-amd64: a glibc 2.31 sysroot for a portable node.

Built on Debian 12, node binds glibc 2.36 symbols and so runs on nothing
older (issue 33; the official binary needs glibc 2.28). Compiled by clang
with --sysroot against Debian 11's (bullseye's) glibc 2.31 and Linux 5.10
headers, with glibc-compat/glibc-2.28.h forced into every unit (it pins the
symbols 2.29 gave new versions to their old ones) and libstdc++ linked
statically, it needs glibc 2.28.

The sysroot has two C++ runtimes. Bullseye's GCC 10 is too old for Node 24
(V8 13.6 and Node's src/ use std::bit_cast and
std::make_unique_for_overwrite, which libstdc++ 11 and 12 added), so
node is built with bookworm's GCC 12 headers and libstdc++.a, the same as
build/node's. Those were built on glibc 2.36 and reference
__libc_single_threaded (2.32) and arc4random (2.36): the sysroot's libc.so
link script adds libnodecure-glibc-compat.a, hidden definitions of both
(glibc-2.28.h compiled with NODECURE_GLIBC_COMPAT_DEFINITIONS), and GCC
12's libgcc_eh.a calls _dl_find_object (2.35), so libgcc stays shared
(libgcc_s.so.1, as for the official binary). GCC 10 (--gcc-install-dir
.../10) links libgcc statically too.

The sysroot is `dpkg-deb -x` of the binary packages pinned in PACKAGES.
Each .deb comes from the download cache, else from `apt-get download` with a
private apt configuration whose source list reuses the archive URIs of the
host's apt sources (as archive.py; the host's apt setup is not changed),
checked against the pin and apt's index, else from the pool by name and
sha256, else from the fallback directory. Absolute symbolic links and the
linker scripts' absolute paths are made relative, so that nothing in the
sysroot points at the build machine's /lib. A stamp keyed by the pins makes
a second run a no-op.

  sysroot.py           make it (if needed) and print its path
  sysroot.py --flags   print the compile and link flags that use it
  sysroot.py --latest  resolve the newest revisions the index lists, make
                       the sysroot from them and print the pin table
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from archive import host_uris, newest_first  # noqa: E402
from common import CACHE, FALLBACK, ROOT, die, log, run  # noqa: E402
from fetch import download, sha256, verified  # noqa: E402

ARCH = 'amd64'
TRIPLE = 'x86_64-linux-gnu'
SYSROOT = ROOT / 'build' / 'sysroot' / ('bullseye-%s' % ARCH)
COMPAT = Path(__file__).resolve().parent / 'glibc-compat' / 'glibc-2.28.h'
COMPAT_LIB = 'libnodecure-glibc-compat.a'
# The GCC whose headers and libstdc++.a node is built with; GCC 10 is there
# for what compiles with it (C, older C++).
GCC = '12'
# Each suite is read with its -updates and -security.
SUITES = ['bullseye', 'bookworm']
# Bump when what is done to the unpacked packages changes.
LAYOUT = '3'
# libstdc++ 10 and 12 were configured on glibc 2.31 and 2.36, so their
# headers wait on a steady_clock deadline with glibc 2.30's
# pthread_cond_clockwait, pthread_mutex_clocklock and
# pthread_rwlock_clock{rd,wr}lock, which glibc 2.28 lacks. With these off
# they convert the deadline to system_clock and use pthread_cond_timedwait
# & co., as they do on glibc 2.28 itself.
CXX_CONFIG_OFF = ['_GLIBCXX_USE_PTHREAD_COND_CLOCKWAIT',
                  '_GLIBCXX_USE_PTHREAD_MUTEX_CLOCKLOCK',
                  '_GLIBCXX_USE_PTHREAD_RWLOCK_CLOCKLOCK']

# package: (suite, version, pool file, sha256). From bullseye: glibc's
# headers, crt files and libraries (libcrypt, which libc6-dev's headers
# and libc6 need), the kernel's headers, GCC 10's runtime and the shared
# libraries the -dev packages' .so links point at (libatomic1: clang's
# builds of node name -latomic). From bookworm: GCC 12's crtbegin.o,
# libgcc.a, headers and libstdc++.a. Seen on 2026-11-27 (bullseye-security
# carries glibc and linux-libc-dev).
PACKAGES = {
    'libc6': ('bullseye', '2.31-13+deb11u14',
              'pool/updates/main/g/glibc/libc6_2.31-13+deb11u14_amd64.deb',
              '718e3ed8c92207caf5b541e7332affad4f62501cbab3f0cffbe9e6db0b89eae9'),
    'libc6-dev': ('bullseye', '2.31-13+deb11u14',
                  'pool/updates/main/g/glibc/'
                  'libc6-dev_2.31-13+deb11u14_amd64.deb',
                  '7d4002192e09c3cc97f31dcc85ecd7741adbec9011abbdd14fb1790cab20bffa'),
    'linux-libc-dev': ('bullseye', '5.10.262-1',
                       'pool/updates/main/l/linux/'
                       'linux-libc-dev_5.10.262-1_amd64.deb',
                       '77e61a88d14b5dabfea170587fc2cb1020b950c6326d54915f54c4f16fb819e8'),
    'libcrypt1': ('bullseye', '1:4.4.18-4',
                  'pool/main/libx/libxcrypt/libcrypt1_4.4.18-4_amd64.deb',
                  'f617952df0c57b4ee039448e3941bccd3f97bfff71e9b0f87ca6dae15cb3f5ef'),
    'libcrypt-dev': ('bullseye', '1:4.4.18-4',
                     'pool/main/libx/libxcrypt/'
                     'libcrypt-dev_4.4.18-4_amd64.deb',
                     '8b04bf00b8c43360d9ba3adec209db290168ba3526d4aef3175fb84372b1bebf'),
    'libgcc-s1': ('bullseye', '10.2.1-6',
                  'pool/main/g/gcc-10/libgcc-s1_10.2.1-6_amd64.deb',
                  'e478f2709d8474165bb664de42e16950c391f30eaa55bc9b3573281d83a29daf'),
    'libatomic1': ('bullseye', '10.2.1-6',
                   'pool/main/g/gcc-10/libatomic1_10.2.1-6_amd64.deb',
                   'e8f1d04653698ab185c1144f35f905a1de87571c12ea630b65be669a2823d8c7'),
    'libstdc++6': ('bullseye', '10.2.1-6',
                   'pool/main/g/gcc-10/libstdc++6_10.2.1-6_amd64.deb',
                   '5c155c58935870bf3b4bfe769116841c0d286a74f59eccfd5645693ac23f06b1'),
    'libgcc-10-dev': ('bullseye', '10.2.1-6',
                      'pool/main/g/gcc-10/libgcc-10-dev_10.2.1-6_amd64.deb',
                      '3b711374092b84e732c4e73cf33e02cff02e34a5f105eb6467de8d9038e4cd9d'),
    'libstdc++-10-dev': ('bullseye', '10.2.1-6',
                         'pool/main/g/gcc-10/'
                         'libstdc++-10-dev_10.2.1-6_amd64.deb',
                         '20b1f56863dcc5f187d6cb53b2aa6149bd013be4ec67e10c2c31a22fda619a01'),
    'libgcc-12-dev': ('bookworm', '12.2.0-14+deb12u1',
                      'pool/main/g/gcc-12/'
                      'libgcc-12-dev_12.2.0-14+deb12u1_amd64.deb',
                      'd720259380a84f2ffc6fe516eff5cbe9c8a005138e8d6a5748747ba4b3404a82'),
    'libstdc++-12-dev': ('bookworm', '12.2.0-14+deb12u1',
                         'pool/main/g/gcc-12/'
                         'libstdc++-12-dev_12.2.0-14+deb12u1_amd64.deb',
                         'd28def6c23630432b57cb38a4c2fd67a79d4e0484027386ca6e8d6005c3d7a73'),
}

# What is of no use to a compiler in the sysroot.
PRUNE = ['usr/share/doc', 'usr/share/man', 'usr/share/info',
         'usr/share/lintian', 'usr/share/locale', 'usr/share/gcc',
         'usr/share/gdb', 'etc', 'sbin', 'usr/sbin', 'usr/bin', 'var']


class BinaryApt:
  """apt-get and apt-cache on the binary index of SUITES (each with its
  -updates and -security), with a private source list, lists, cache and
  empty dpkg status under the download cache."""

  def __init__(self):
    self.dir = CACHE / ('apt-sysroot-%s' % ARCH)
    self.ready = False
    self.errors = []

  def opts(self):
    return ['-o', 'Dir::Etc::SourceList=%s' % (self.dir / 'sources.list'),
            '-o', 'Dir::Etc::SourceParts=-',
            '-o', 'Dir::State::Lists=%s' % (self.dir / 'lists'),
            '-o', 'Dir::State::status=%s' % (self.dir / 'status'),
            '-o', 'Dir::Cache=%s' % (self.dir / 'cache'),
            '-o', 'APT::Architecture=%s' % ARCH,
            '-o', 'APT::Architectures=%s' % ARCH,
            '-o', 'APT::Sandbox::User=root']

  def update(self):
    if self.ready:
      return
    debian, security = host_uris()
    lines = []
    for suite in SUITES:
      lines += ['deb [arch=%s] %s %s main\n' % (ARCH, debian, s)
                for s in (suite, suite + '-updates')]
      if security:
        lines.append('deb [arch=%s] %s %s-security main\n' %
                     (ARCH, security, suite))
    if not security:
      log('sysroot: the host\'s apt sources name no security archive; '
          'reading %s without their security updates' % ', '.join(SUITES))
    for d in ('lists/partial', 'cache/archives/partial'):
      (self.dir / d).mkdir(parents=True, exist_ok=True)
    (self.dir / 'sources.list').write_text(''.join(lines))
    (self.dir / 'status').touch()
    log('sysroot: apt: updating the binary index of %s (%s)' %
        (', '.join(SUITES), ARCH))
    r = subprocess.run(['apt-get', '-qq'] + self.opts() + ['update'],
                       capture_output=True, text=True)
    self.errors = [line for line in (r.stdout + r.stderr).splitlines()
                   if line.startswith(('E:', 'Err:', 'W:'))]
    if r.returncode:
      log('sysroot: apt: warning: the index update failed in part:\n  ' +
          '\n  '.join(self.errors[-6:] or ['exit %d' % r.returncode]))
    self.ready = True

  def record(self, package, version):
    """{field: value} of the index's record of PACKAGE=VERSION, or None."""
    self.update()
    r = subprocess.run(['apt-cache'] + self.opts() +
                       ['show', '--no-all-versions',
                        '%s=%s' % (package, version)],
                       capture_output=True, text=True)
    if r.returncode or not r.stdout.strip():
      return None
    fields = {}
    for line in r.stdout.split('\n\n')[0].splitlines():
      m = re.match(r'^([A-Za-z0-9-]+):\s*(.*)$', line)
      if m:
        fields[m.group(1)] = m.group(2)
    return fields

  def newest(self, package, suite):
    """The newest version of PACKAGE the index lists in SUITE, its -updates
    or -security, or None."""
    self.update()
    out = subprocess.run(['apt-cache'] + self.opts() + ['madison', package],
                         capture_output=True, text=True).stdout
    versions = set()
    for line in out.splitlines():
      parts = [p.strip() for p in line.split('|')]
      if len(parts) == 3 and re.search(r'\s%s(-updates|-security)?/main\s' %
                                       suite, ' %s ' % parts[2]):
        versions.add(parts[1])
    return newest_first(versions)[0] if versions else None

  def download(self, package, version, dest_dir):
    """apt-get download PACKAGE=VERSION into DEST_DIR: (path, None) or
    (None, why)."""
    self.update()
    r = subprocess.run(['apt-get', '-qq'] + self.opts() +
                       ['download', '%s=%s' % (package, version)],
                       cwd=dest_dir, capture_output=True, text=True)
    debs = list(Path(dest_dir).glob('*.deb'))
    if r.returncode or len(debs) != 1:
      return None, (r.stderr.strip().splitlines() or ['no .deb'])[-1]
    return debs[0], None


def fetch_deb(apt, package, version, pool, digest):
  """The cached .deb of one pin, fetched first if need be."""
  dest = CACHE / Path(pool).name
  if verified(dest, digest):
    return dest
  CACHE.mkdir(parents=True, exist_ok=True)
  tried = []
  rec = apt.record(package, version)
  if rec is None:
    tried.append('the index lists no %s %s' % (package, version))
  elif rec.get('SHA256') != digest:
    die('sysroot: %s %s: the index has sha256 %s, the pin %s' %
        (package, version, rec.get('SHA256'), digest))
  else:
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
      deb, why = apt.download(package, version, tmp)
      if deb is not None and sha256(deb) == digest:
        shutil.move(str(deb), dest)
        log('sysroot: %s %s from the archive (apt-get download; sha256 as '
            'pinned and as apt\'s index has it)' % (package, version))
        return dest
      tried.append('apt-get download: %s' % (why or 'sha256 mismatch'))
  # The index may have dropped a revision the pool still serves.
  debian, security = host_uris()
  for base in (security, debian):
    if base:
      why = download('%s/%s' % (base, pool), dest, digest)
      if why is None:
        log('sysroot: %s %s from the pool' % (package, version))
        return dest
      tried.append('pool: %s' % why)
  if FALLBACK is not None and verified(FALLBACK / dest.name, digest):
    shutil.copyfile(FALLBACK / dest.name, dest)
    log('sysroot: %s from the fallback %s' % (dest.name, FALLBACK))
    return dest
  die('sysroot: %s %s could not be fetched:\n%s  Place %s (sha256 %s) in '
      '%s and run again.' % (package, version,
                             ''.join('  tried %s\n' % t for t in tried),
                             dest.name, digest, CACHE))


def latest(apt):
  """The pins of the newest revisions the index lists."""
  pins = {}
  for package, (suite, _, _, _) in PACKAGES.items():
    version = apt.newest(package, suite)
    rec = version and apt.record(package, version)
    if not rec:
      die('sysroot: the index lists no %s in %s%s' %
          (package, suite, ''.join('\n  ' + e for e in apt.errors[-4:])))
    pins[package] = (suite, version, rec['Filename'], rec['SHA256'])
  return pins


def key_of(pins):
  return 'layout %s\n%s' % (LAYOUT, ''.join(
      '%s %s %s\n' % (p, v, d) for p, (_, v, _, d) in sorted(pins.items()))) \
      + 'compat %s\n' % sha256(COMPAT)


def key():
  """Identifies the pinned sysroot and glibc-2.28.h: for the stamp of
  anything built with flags()."""
  return hashlib.sha256(key_of(PACKAGES).encode()).hexdigest()[:16]


def gcc_dirs(root):
  return sorted((root / 'usr' / 'lib' / 'gcc' / TRIPLE).iterdir())


def lib_dirs(root):
  return [root / 'lib' / TRIPLE, root / 'usr' / 'lib' / TRIPLE,
          root / 'lib64'] + gcc_dirs(root)


def fix_links(root):
  """Make every absolute symbolic link relative, inside ROOT. Returns the
  count and the links that point nowhere."""
  count, dangling = 0, []
  for dirpath, dirnames, filenames in os.walk(root):
    for name in dirnames + filenames:
      p = Path(dirpath) / name
      if not p.is_symlink():
        continue
      target = os.readlink(p)
      if target.startswith('/'):
        target = os.path.relpath(root / target.lstrip('/'), p.parent)
        p.unlink()
        p.symlink_to(target)
        count += 1
      if not p.exists():
        dangling.append(str(p.relative_to(root)))
  return count, dangling


LIB_PREFIX = r'(?<![\w.-])/(?:usr/)?lib(?:64)?/(?:%s/)?' % TRIPLE


def fix_scripts(root):
  """The linker scripts' absolute paths (GROUP ( /lib/x86_64-linux-gnu/
  libc.so.6 ... )) become file names, which the linker finds on its library
  path, i.e. in the sysroot, whether or not it applies the sysroot to a
  script's paths. Checks that each one is there."""
  fixed = []
  for d in lib_dirs(root):
    for p in sorted(d.glob('*.so')):
      if p.is_symlink() or p.stat().st_size > 4096:
        continue
      text = p.read_bytes()
      if not text.startswith(b'/* GNU ld script'):
        continue
      text = text.decode()
      for n in re.findall(LIB_PREFIX + r'([\w.+-]+)', text):
        if not any((ld / n).exists() for ld in lib_dirs(root)):
          die('sysroot: %s names %s, which the sysroot lacks' % (p, n))
      new = re.sub(LIB_PREFIX, '', text)
      if new != text:
        p.write_text(new)
        fixed.append(p.name)
  return fixed


def fix_cxx_config(root):
  """Turn CXX_CONFIG_OFF off in each libstdc++'s bits/c++config.h."""
  done = []
  for d in gcc_dirs(root):
    p = (root / 'usr' / 'include' / TRIPLE / 'c++' / d.name / 'bits' /
         'c++config.h')
    text = p.read_text()
    for macro in CXX_CONFIG_OFF:
      text, n = re.subn(r'^#define %s 1$' % macro,
                        '/* #undef %s (nodecure: glibc 2.28) */' % macro,
                        text, flags=re.M)
      if n != 1:
        die('sysroot: %s does not define %s as expected' % (p, macro))
    p.write_text(text)
    done.append(d.name)
  return done


def add_compat(root):
  """libnodecure-glibc-compat.a, and libc.so's link script naming it, so
  that any link against the sysroot takes from it what it lacks."""
  lib = root / 'usr' / 'lib' / TRIPLE
  obj = lib / 'nodecure-glibc-compat.o'
  run(common.CC.split() + ['--sysroot=%s' % root, '-O2', '-fPIC', '-x', 'c',
                           '-DNODECURE_GLIBC_COMPAT_DEFINITIONS', '-c',
                           str(COMPAT), '-o', str(obj)], quiet=True)
  run(['ar', 'rcs', str(lib / COMPAT_LIB), str(obj)])
  obj.unlink()
  script = lib / 'libc.so'
  text = script.read_text()
  new = text.replace('libc_nonshared.a ', 'libc_nonshared.a %s ' % COMPAT_LIB)
  if new == text:
    die('sysroot: %s has no libc_nonshared.a to add %s after' %
        (script, COMPAT_LIB))
  script.write_text(new)


def make(pins, apt=None):
  key = key_of(pins)
  if stamp_ok(key):
    return SYSROOT
  apt = apt or BinaryApt()
  debs = [fetch_deb(apt, p, v, pool, d) for p, (_, v, pool, d) in
          sorted(pins.items())]
  tmp = SYSROOT.with_name(SYSROOT.name + '.tmp')
  shutil.rmtree(tmp, ignore_errors=True)
  tmp.mkdir(parents=True)
  for deb in debs:
    run(['dpkg-deb', '-x', str(deb), str(tmp)])
  for sub in PRUNE:
    shutil.rmtree(tmp / sub, ignore_errors=True)
  links, dangling = fix_links(tmp)
  # libgcc-*-dev's links to the sanitizers', OpenMP's, ... runtimes, which
  # are not unpacked: gone, so that -lgomp fails plainly.
  for d in dangling:
    (tmp / d).unlink()
  # GCC 12's libstdc++.so would be bullseye's libstdc++.so.6 (GCC 10's):
  # without it -lstdc++ takes GCC 12's libstdc++.a.
  (tmp / 'usr' / 'lib' / 'gcc' / TRIPLE / '12' / 'libstdc++.so').unlink(
      missing_ok=True)
  scripts = fix_scripts(tmp)
  configs = fix_cxx_config(tmp)
  add_compat(tmp)
  for must in ['usr/include/stdio.h', 'lib/%s/libc.so.6' % TRIPLE] + [
      'usr/lib/gcc/%s/%s/%s' % (TRIPLE, g, f) for g in ('10', GCC)
      for f in ('crtbegin.o', 'libgcc.a', 'libstdc++.a')] + [
      'usr/include/c++/%s/thread' % g for g in ('10', GCC)]:
    if not (tmp / must).exists():
      die('sysroot: %s is missing after unpacking' % must)
  shutil.rmtree(SYSROOT, ignore_errors=True)
  tmp.rename(SYSROOT)
  (SYSROOT / '.nodecure-stamp').write_text(key)
  log('sysroot: %s: %d packages; %d absolute links made relative, %d '
      'dangling ones dropped; link scripts fixed: %s; c++config.h fixed: '
      'GCC %s; %s added' % (SYSROOT, len(debs), links, len(dangling),
                            ', '.join(scripts) or 'none', ', '.join(configs),
                            COMPAT_LIB))
  return SYSROOT


# The run-time packages a release build's node links (dist.not_portable
# allows nothing else): their symbols files give its .deb's Depends.
RUNTIME = ['libc6', 'libgcc-s1']


def symbols_dir(dest, apt=None):
  """DEST made a dpkg-shlibdeps package build directory (-S) for a node
  built against the sysroot: DEBIAN/symbols holds bullseye's symbols files
  of RUNTIME, and lib/ links to the sysroot's. Debian 12's own symbols
  files date some symbols by the headers it ships (sysconf@GLIBC_2.2.5 is
  2.34 there, since the _SC_ values glibc 2.34 added), which a node
  compiled against glibc 2.31's headers never passes; bullseye's dates
  them as that node needs. The sysroot itself is not changed."""
  apt = apt or BinaryApt()
  if not (SYSROOT / 'lib' / TRIPLE).is_dir():
    make(PACKAGES, apt)
  control = Path(dest) / 'DEBIAN'
  control.mkdir(parents=True, exist_ok=True)
  text = ''
  for package in RUNTIME:
    _, version, pool, digest = PACKAGES[package]
    deb = fetch_deb(apt, package, version, pool, digest)
    text += run(['dpkg-deb', '--info', str(deb), 'symbols'], capture=True)
  (control / 'symbols').write_text(text)
  lib = Path(dest) / 'lib'
  lib.mkdir(exist_ok=True)
  link = lib / TRIPLE
  if not link.exists():
    link.symlink_to(SYSROOT / 'lib' / TRIPLE)
  return Path(dest)


def stamp_ok(key):
  s = SYSROOT / '.nodecure-stamp'
  return s.exists() and s.read_text() == key


def flags(root=SYSROOT, gcc=GCC):
  """(compile flags, link flags) of a build against the sysroot: glibc
  2.28's symbol versions, libstdc++ linked statically (and with GCC 10,
  libgcc: GCC 12's libgcc_eh needs glibc 2.35)."""
  install = root / 'usr' / 'lib' / 'gcc' / TRIPLE / gcc
  common_flags = ['--sysroot=%s' % root, '--gcc-install-dir=%s' % install]
  cflags = common_flags + ['-include', str(COMPAT)]
  ldflags = common_flags + ['-static-libstdc++'] + \
      ['-static-libgcc'] * (gcc == '10')
  return cflags, ldflags


def main():
  ap = argparse.ArgumentParser(prog='tools/nodecure/sysroot.py',
                               description=__doc__.split('\n\n')[0])
  ap.add_argument('--latest', action='store_true',
                  help='use the newest revisions the index lists and print '
                       'their pins')
  ap.add_argument('--flags', action='store_true',
                  help='print the compile and link flags (CFLAGS=, LDFLAGS=)')
  ap.add_argument('--gcc', choices=['10', '12'], default=GCC,
                  help='the C++ runtime --flags names (default %(default)s)')
  args = ap.parse_args()
  apt = BinaryApt()
  pins = latest(apt) if args.latest else PACKAGES
  root = make(pins, apt)
  if args.latest:
    for p, pin in sorted(pins.items()):
      print('    %r: (%r, %r,\n        %r,\n        %r),%s' %
            ((p,) + pin + ('' if PACKAGES.get(p) == pin else '  # new',)))
  if args.flags:
    cflags, ldflags = flags(root, args.gcc)
    print('CFLAGS=%s' % ' '.join(cflags))
    print('LDFLAGS=%s' % ' '.join(ldflags))
  else:
    print(root)


if __name__ == '__main__':
  main()
