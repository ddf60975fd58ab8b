"""Fetching upstream inputs into the download cache, verified by sha256.

For each file, in this order: the download cache (checked by sha256); the
archive (Debian files are found by name and sha256 in whichever revision of
the source package apt's index lists, then in the package's pool directory;
npm packages come from `npm pack` with the npm client's own configuration);
the fallback directory (../shared/cache on our machines, if present); else a
clear error naming the package, version, file and what to place where.
Debian files are downloaded by apt's own downloader, so the host's apt
proxies apply and no host name is written here (see archive.py).
"""

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import inputs  # noqa: E402
from archive import Apt  # noqa: E402
from common import CACHE, FALLBACK, die, log  # noqa: E402

APT_HELPER = '/usr/lib/apt/apt-helper'

# Where this run found each input: {file name: origin}.
ORIGIN = {}


def sha256(path):
  h = hashlib.sha256()
  with open(path, 'rb') as f:
    for chunk in iter(lambda: f.read(1 << 20), b''):
      h.update(chunk)
  return h.hexdigest()


def verified(path, digest):
  return path.exists() and sha256(path) == digest


def download(uri, dest, digest):
  """Fetch URI into DEST with apt's downloader, checked by sha256. Returns
  None, or why it failed (e.g. '404  Not Found')."""
  tmp = dest.with_name(dest.name + '.part')
  tmp.unlink(missing_ok=True)
  r = subprocess.run([APT_HELPER, '-o', 'APT::Sandbox::User=root',
                      'download-file', uri, str(tmp), 'SHA256:' + digest],
                     capture_output=True, text=True)
  if r.returncode or not verified(tmp, digest):
    tmp.unlink(missing_ok=True)
    m = re.search(r'^E: Failed to fetch \S+\s+(.+?)(?:\s+\[IP:.*)?$',
                  r.stderr, re.M)
    return m.group(1).strip() if m else (r.stderr.strip().splitlines() or
                                         ['sha256 mismatch'])[-1]
  tmp.rename(dest)
  return None


def from_fallback(fname, digest):
  """Copy FNAME from the fallback directory, if it has it intact."""
  if FALLBACK is None or not verified(FALLBACK / fname, digest):
    return False
  shutil.copyfile(FALLBACK / fname, CACHE / fname)
  ORIGIN[fname] = 'fallback %s' % FALLBACK
  log('fetch: %s from the fallback %s (not from the archive)' %
      (fname, FALLBACK))
  return True


def what_to_do(fname, digest):
  return ('Place %s (sha256 %s) in %s (it is checked by sha256 before use) '
          'and run ./configure again; maintainers: `make update-inputs` '
          'moves a followed input to its suite\'s current release. See '
          'README.md, "When an input has left the archive".' %
          (fname, digest, CACHE))


def fetch_debian_file(apt, package, spec, fname, digest):
  dest = CACHE / fname
  candidates, changed = apt.locate(package, spec['version'], fname, digest)
  tried = []
  for uri, revision in candidates:
    why = download(uri, dest, digest)
    where = ('%s %s' % (package, revision) if revision
             else 'the pool of %s' % package)
    if why is None:
      ORIGIN[fname] = 'archive: ' + where
      log('fetch: %s from %s' % (fname, where))
      return
    tried.append('%s: %s' % (where, why))
  if from_fallback(fname, digest):
    return
  listed = ', '.join(v for v, _ in apt.listed(package)) or 'none'
  die('Debian source %s %s (%s): %s could not be fetched.\n'
      '  revisions of %s the index lists: %s\n%s%s'
      '  fallback: %s\n%s' %
      (package, spec['version'], spec['suite'], fname, package, listed,
       ''.join('  %s lists a different %s (sha256 %s)\n' % (v, fname, d)
               for v, d in changed),
       ''.join('  tried %s\n' % t for t in tried),
       ('no intact %s in %s' % (fname, FALLBACK)) if FALLBACK else 'off',
       what_to_do(fname, digest)))


def fetch_debian(apt, name, spec):
  package = spec.get('package', name)
  for fname, digest in spec['files'].items():
    if verified(CACHE / fname, digest):
      ORIGIN.setdefault(fname, 'cache')
    else:
      fetch_debian_file(apt, package, spec, fname, digest)


def npm_file(name, version):
  return '%s-%s.tgz' % (name.lstrip('@').replace('/', '-'), version)


def fetch_npm(name, version, digest):
  dest = CACHE / npm_file(name, version)
  if verified(dest, digest):
    ORIGIN.setdefault(dest.name, 'cache')
    return dest
  with tempfile.TemporaryDirectory() as tmp:
    r = subprocess.run(['npm', 'pack', '--silent', '--pack-destination', tmp,
                        '%s@%s' % (name, version)],
                       capture_output=True, text=True)
    files = list(Path(tmp).glob('*.tgz'))
    if not r.returncode and len(files) == 1:
      got = sha256(files[0])
      if got == digest:
        shutil.move(str(files[0]), dest)
        ORIGIN[dest.name] = 'npm'
        log('fetch: npm %s@%s' % (name, version))
        return dest
      why = 'checksum mismatch: expected %s, got %s' % (digest, got)
    else:
      why = r.stderr.strip() or 'npm pack failed'
  if from_fallback(dest.name, digest):
    return dest
  die('npm %s@%s: %s\n%s' % (name, version, why,
                             what_to_do(dest.name, digest)))


def debian_apt():
  return Apt(inputs.SUITES)


def fetch_all(tests=False, release=False):
  """Every input of ./configure (and with TESTS, of make test and of the
  packages too: npm and corepack, inputs.NPM_DIST). RELEASE adds the sources
  of the release build's static libraries (inputs.DEBIAN_RELEASE)."""
  CACHE.mkdir(parents=True, exist_ok=True)
  apt = debian_apt()
  for name, spec in inputs.DEBIAN.items():
    fetch_debian(apt, name, spec)
  if release:
    for name, spec in inputs.DEBIAN_RELEASE.items():
      fetch_debian(apt, name, spec)
  for name, (version, digest) in inputs.NPM.items():
    fetch_npm(name, version, digest)
  if tests:
    for table in (inputs.NPM_DIST, inputs.NPM_TEST):
      for name, (version, digest) in table.items():
        fetch_npm(name, version, digest)
  log('inputs: %s' % summary())


def fetch_release():
  """The sources of the release build's static libraries."""
  CACHE.mkdir(parents=True, exist_ok=True)
  apt = debian_apt()
  for name, spec in inputs.DEBIAN_RELEASE.items():
    fetch_debian(apt, name, spec)


def summary():
  """'18 files: 7 from Debian's archive, 11 from npm' of this run."""
  names = {'cache': 'the download cache', 'archive': 'Debian\'s archive',
           'npm': 'npm', 'fallback': 'the fallback %s' % FALLBACK}
  count = {}
  for origin in ORIGIN.values():
    kind = origin.split(':')[0].split()[0]
    count[kind] = count.get(kind, 0) + 1
  return '%d files in %s: %s' % (
      len(ORIGIN), CACHE, ', '.join('%d from %s' % (n, names[k])
                                    for k, n in sorted(count.items())))


def cached(fname):
  return CACHE / fname


def debian_file(name, kind):
  """The cached file of Debian input NAME whose name contains KIND
  ('.orig.tar', '.orig-ada.tar', '.debian.tar')."""
  spec = inputs.DEBIAN.get(name) or inputs.DEBIAN_RELEASE[name]
  files = [f for f in spec['files'] if kind in f]
  if len(files) != 1:
    die('tools/nodecure/inputs.py: %s lists %d files with %r in their name; '
        'expected one' % (name, len(files), kind))
  return cached(files[0])


def npm_tgz(name):
  version, _ = inputs.NPM[name]
  return cached(npm_file(name, version))


def fetch_test_input(name):
  """A test-only npm input (inputs.NPM_TEST), fetched on first use."""
  version, digest = inputs.NPM_TEST[name]
  CACHE.mkdir(parents=True, exist_ok=True)
  return fetch_npm(name, version, digest)


def fetch_dist_input(name):
  """npm or corepack (inputs.NPM_DIST), fetched on first use."""
  version, digest = inputs.NPM_DIST[name]
  CACHE.mkdir(parents=True, exist_ok=True)
  return fetch_npm(name, version, digest)
