"""Fetching upstream inputs into the download cache, verified by sha256.

Debian files are found through apt's own index, built with a private source
list whose deb-src lines reuse the archive URI of the host's apt sources (so
a user's mirror or proxy is honoured and no host name is written here); npm
packages come from `npm pack` with the npm client's own configuration.
"""

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import inputs  # noqa: E402
from common import CACHE, die, log, run  # noqa: E402



def sha256(path):
  h = hashlib.sha256()
  with open(path, 'rb') as f:
    for chunk in iter(lambda: f.read(1 << 20), b''):
      h.update(chunk)
  return h.hexdigest()


def verified(path, digest):
  return path.exists() and sha256(path) == digest


def host_debian_uri():
  """The archive URI the host's own apt sources use for Debian itself."""
  candidates = []
  paths = [Path('/etc/apt/sources.list')] + \
      sorted(Path('/etc/apt/sources.list.d').glob('*'))
  for p in paths:
    if not p.is_file() or not (p.suffix in ('.list', '.sources') or
                               p.name == 'sources.list'):
      continue
    text = p.read_text(errors='replace')
    if p.suffix == '.sources':
      for stanza in re.split(r'\n\s*\n', text):
        fields = {}
        for line in stanza.splitlines():
          if line.startswith('#') or ':' not in line:
            continue
          k, v = line.split(':', 1)
          fields[k.strip().lower()] = v.split()
        if 'enabled' in fields and fields['enabled'] == ['no']:
          continue
        suites = fields.get('suites', [])
        if any(s in ('bookworm', 'trixie', 'sid', 'stable', 'unstable')
               for s in suites):
          candidates += fields.get('uris', [])
    else:
      for line in text.splitlines():
        m = re.match(r'\s*deb(?:-src)?\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)', line)
        if m and m.group(2) in ('bookworm', 'trixie', 'sid', 'stable',
                                'unstable'):
          candidates.append(m.group(1))
  if not candidates:
    die('cannot find a Debian archive in the host\'s apt sources '
        '(/etc/apt/sources.list{,.d}); add one, or pre-seed the download '
        'cache %s (see README.md)' % CACHE)
  return candidates[0].rstrip('/')


class Apt:
  """apt with a private source list and lists dir; the host's apt config
  (proxies, mirrors) is honoured, its sources are not changed."""

  def __init__(self):
    self.dir = CACHE / 'apt'
    self.lists = self.dir / 'lists'
    self.sources = self.dir / 'sources.list'
    self.ready = False

  def opts(self):
    return ['-o', 'Dir::Etc::SourceList=%s' % self.sources,
            '-o', 'Dir::Etc::SourceParts=-',
            '-o', 'Dir::State::Lists=%s' % self.lists,
            '-o', 'APT::Sandbox::User=root']

  def update(self):
    if self.ready:
      return
    uri = host_debian_uri()
    (self.lists / 'partial').mkdir(parents=True, exist_ok=True)
    self.sources.write_text(''.join(
        'deb-src %s %s main\n' % (uri, s) for s in ('trixie', 'sid')))
    log('apt: updating the source index of trixie and sid')
    run(['apt-get', '-qq'] + self.opts() + ['update'])
    self.ready = True

  def uris(self, package, version):
    out = subprocess.run(
        ['apt-get', '-qq'] + self.opts() +
        ['source', '--print-uris', '%s=%s' % (package, version)],
        capture_output=True, text=True)
    found = {}
    for line in out.stdout.splitlines():
      m = re.match(r"'([^']+)'\s+(\S+)\s+\d+\s+SHA256:([0-9a-f]+)", line)
      if m:
        found[m.group(2)] = (m.group(1), m.group(3))
    return found


def fetch_debian(apt, name, spec):
  package = spec.get('package', name)
  wanted = spec['files']
  if all(verified(CACHE / f, d) for f, d in wanted.items()):
    return
  apt.update()
  uris = apt.uris(package, spec['version'])
  for fname, digest in wanted.items():
    dest = CACHE / fname
    if verified(dest, digest):
      continue
    if fname not in uris:
      die('Debian source package %s=%s (%s) does not list %s.\n'
          'Place %s (sha256 %s) in %s by hand and run ./configure again.' %
          (package, spec['version'], spec['suite'], fname, fname, digest,
           CACHE))
    uri, index_digest = uris[fname]
    log('fetch: %s %s: %s' % (package, spec['version'], fname))
    tmp = dest.with_suffix(dest.suffix + '.part')
    try:
      with urllib.request.urlopen(uri, timeout=120) as r, open(tmp, 'wb') as f:
        shutil.copyfileobj(r, f)
    except OSError as e:
      die('download of %s (Debian source %s=%s) failed: %s\n'
          'Place the file (sha256 %s) in %s by hand and run ./configure '
          'again.' % (fname, package, spec['version'], e, digest, CACHE))
    got = sha256(tmp)
    if got != digest:
      tmp.unlink()
      die('checksum mismatch for %s (Debian source %s=%s): expected %s, got '
          '%s' % (fname, package, spec['version'], digest, got))
    tmp.rename(dest)


def npm_file(name, version):
  return '%s-%s.tgz' % (name.lstrip('@').replace('/', '-'), version)


def fetch_npm(name, version, digest):
  dest = CACHE / npm_file(name, version)
  if verified(dest, digest):
    return dest
  log('fetch: npm %s@%s' % (name, version))
  with tempfile.TemporaryDirectory() as tmp:
    r = subprocess.run(['npm', 'pack', '--silent', '--pack-destination', tmp,
                        '%s@%s' % (name, version)],
                       capture_output=True, text=True)
    files = list(Path(tmp).glob('*.tgz'))
    if r.returncode or len(files) != 1:
      die('npm pack %s@%s failed:\n%s\nPlace %s (sha256 %s) in %s by hand '
          'and run ./configure again.' % (name, version, r.stderr.strip(),
                                          dest.name, digest, CACHE))
    got = sha256(files[0])
    if got != digest:
      die('checksum mismatch for npm %s@%s: expected %s, got %s' %
          (name, version, digest, got))
    shutil.move(str(files[0]), dest)
  return dest


def fetch_all():
  CACHE.mkdir(parents=True, exist_ok=True)
  apt = Apt()
  for name, spec in inputs.DEBIAN.items():
    fetch_debian(apt, name, spec)
  for name, (version, digest) in inputs.NPM.items():
    fetch_npm(name, version, digest)


def cached(fname):
  return CACHE / fname


def npm_tgz(name):
  version, _ = inputs.NPM[name]
  return cached(npm_file(name, version))


def fetch_test_input(name):
  """A test-only npm input (inputs.NPM_TEST), fetched on first use."""
  version, digest = inputs.NPM_TEST[name]
  CACHE.mkdir(parents=True, exist_ok=True)
  return fetch_npm(name, version, digest)
