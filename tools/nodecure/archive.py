"""Debian's archive, seen through apt's own index.

apt runs with a private source list and lists directory, whose deb-src lines
reuse the archive URIs of the host's own apt sources (so a user's mirror or
proxy is honoured, the host's configuration is not changed, and no host name
is written here). Inputs are found by file name and sha256 in whichever
listed revision carries them: a Debian revision is a hint, never a key, since
security updates replace revisions while their orig tarballs stay the same.
"""

import functools
import re
import subprocess
import urllib.parse
from pathlib import Path

from common import CACHE, die, log

# Suites of Debian itself, as the host's sources name them.
DEBIAN_SUITES = re.compile(
    r'^(bookworm|trixie|forky|sid|stable|testing|unstable)(-updates)?$')
SECURITY_SUITES = re.compile(r'^[a-z]+-security$')


def host_sources():
  """(uri, suite) of every enabled entry of the host's apt sources."""
  entries = []
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
        if fields.get('enabled') == ['no']:
          continue
        entries += [(u, s) for u in fields.get('uris', [])
                    for s in fields.get('suites', [])]
    else:
      for line in text.splitlines():
        m = re.match(r'\s*deb(?:-src)?\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)',
                     line)
        if m:
          entries.append((m.group(1), m.group(2)))
  return entries


def host_uris():
  """The archive URIs the host's apt sources use for Debian itself and for
  Debian's security updates (None when the host has no such entry)."""
  debian = security = None
  for uri, suite in host_sources():
    if debian is None and DEBIAN_SUITES.match(suite):
      debian = uri.rstrip('/')
    if security is None and SECURITY_SUITES.match(suite):
      security = uri.rstrip('/')
  if debian is None:
    die('cannot find a Debian archive in the host\'s apt sources '
        '(/etc/apt/sources.list{,.d}); add one, or pre-seed the download '
        'cache %s (see README.md)' % CACHE)
  return debian, security


def compare_versions(a, b):
  """dpkg's order of two Debian versions: -1, 0 or 1."""
  if a == b:
    return 0
  r = subprocess.run(['dpkg', '--compare-versions', a, 'lt', b])
  return -1 if r.returncode == 0 else 1


def newest_first(versions):
  return sorted(versions, key=functools.cmp_to_key(compare_versions),
                reverse=True)


def upstream_version(version):
  """1.34.9 of 1.34.9-1~deb13u1; 76.1 of 76.1-4."""
  v = version.split(':', 1)[-1]
  return v.rsplit('-', 1)[0] if '-' in v else v


def pool_dir(base, package, security=False):
  """Where Debian's pool keeps a source package's files."""
  prefix = package[:4] if package.startswith('lib') else package[0]
  return '%s/pool/%smain/%s/%s' % (base, 'updates/' * security, prefix,
                                   package)


class Apt:
  """apt with a private source list and lists dir under the download cache;
  the host's apt config (proxies) is honoured, its sources are unchanged."""

  def __init__(self, suites, name='apt'):
    self.suites = list(suites)
    self.dir = CACHE / name
    self.lists = self.dir / 'lists'
    self.sources = self.dir / 'sources.list'
    self.ready = False
    self.errors = []
    self.debian_uri = self.security_uri = None
    self._listed = {}
    self._files = {}

  def opts(self):
    return ['-o', 'Dir::Etc::SourceList=%s' % self.sources,
            '-o', 'Dir::Etc::SourceParts=-',
            '-o', 'Dir::State::Lists=%s' % self.lists,
            '-o', 'APT::Sandbox::User=root']

  def update(self):
    """Fetch the current source index of our suites (once per run)."""
    if self.ready:
      return
    self.debian_uri, self.security_uri = host_uris()
    lines, used = [], []
    for suite in self.suites:
      if suite.endswith('-security'):
        if not self.security_uri:
          log('apt: the host\'s apt sources name no security archive; '
              'skipping %s' % suite)
          continue
        lines.append('deb-src %s %s main\n' % (self.security_uri, suite))
      else:
        lines.append('deb-src %s %s main\n' % (self.debian_uri, suite))
      used.append(suite)
    (self.lists / 'partial').mkdir(parents=True, exist_ok=True)
    self.sources.write_text(''.join(lines))
    log('apt: updating the source index of %s' % ', '.join(used))
    r = subprocess.run(['apt-get', '-qq'] + self.opts() + ['update'],
                       capture_output=True, text=True)
    self.errors = [line for line in (r.stdout + r.stderr).splitlines()
                   if line.startswith(('E:', 'Err:'))]
    if r.returncode:
      # One suite the mirror lacks must not stop the others from serving.
      log('apt: warning: the index update failed in part; going on with '
          'what it has:\n  ' + '\n  '.join(self.errors[-6:] or
                                           ['exit status %d' % r.returncode]))
      self.errors = self.errors or ['exit status %d' % r.returncode]
    self.ready = True

  def listed(self, package):
    """[(version, [suite, ...])] of every revision of a source package the
    index lists, newest first."""
    if package not in self._listed:
      self.update()
      out = subprocess.run(['apt-cache'] + self.opts() + ['madison', package],
                           capture_output=True, text=True).stdout
      suites = {}
      for line in out.splitlines():
        parts = [p.strip() for p in line.split('|')]
        if len(parts) != 3 or not parts[2].endswith('Sources'):
          continue
        where = parts[2].split()[-2]  # 'trixie/main'
        suites.setdefault(parts[1], []).append(where.split('/')[0])
      self._listed[package] = [(v, suites[v]) for v in newest_first(suites)]
    return self._listed[package]

  def files(self, package, version):
    """{file name: (uri, sha256)} of one listed revision, from the index."""
    key = (package, version)
    if key not in self._files:
      self.update()
      out = subprocess.run(
          ['apt-get', '-qq'] + self.opts() +
          ['source', '--print-uris', '%s=%s' % (package, version)],
          capture_output=True, text=True).stdout
      found = {}
      for line in out.splitlines():
        m = re.match(r"'([^']+)'\s+(\S+)\s+\d+\s+SHA256:([0-9a-f]+)", line)
        if m:
          found[m.group(2)] = (m.group(1), m.group(3))
      self._files[key] = found
    return self._files[key]

  def locate(self, package, hint, fname, digest):
    """Where the archive keeps FNAME with sha256 DIGEST.

    Returns (candidates, changed). candidates: (uri, revision) to try, best
    first: the hinted revision, any other listed revision that lists the
    same file (name and sha256), then the package's pool directories with
    revision None (a mirror may still serve a file the index has dropped).
    changed: (revision, sha256) of revisions that list a file of that name
    with another sha256."""
    versions = [v for v, _ in self.listed(package)]
    order = [hint] * (hint in versions) + [v for v in versions if v != hint]
    candidates, changed, dirs = [], [], []
    for v in order:
      files = self.files(package, v)
      for uri, _ in files.values():
        d = uri.rsplit('/', 1)[0]
        if d not in dirs:
          dirs.append(d)
      entry = files.get(fname)
      if entry and entry[1] == digest:
        candidates.append((entry[0], v))
      elif entry:
        changed.append((v, entry[1]))
    dirs.append(pool_dir(self.debian_uri, package))
    if self.security_uri:
      dirs.append(pool_dir(self.security_uri, package, security=True))
    candidates += [(d + '/' + urllib.parse.quote(fname), None) for d in dirs]
    seen, unique = set(), []
    for uri, v in candidates:
      if urllib.parse.unquote(uri) not in seen:
        seen.add(urllib.parse.unquote(uri))
        unique.append((uri, v))
    return unique, changed
