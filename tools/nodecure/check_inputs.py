#!/usr/bin/env python3
"""make check-inputs: resolve every pinned input against the archive's
current index and npm's registry, without downloading any input, and say
which have moved, changed or gone, and which followed inputs have a newer
security release.

Each input gets one line; the last line sums up. Exit status 0 when every
input is listed as pinned, 1 on any drift (CI prints it as a warning: the
build may still work, from the download cache or the pool, but a fresh
machine is at risk).

  ok       listed, by the revision inputs.py names
  moved    listed by another revision only (same name and sha256): the
           build finds it; `make update-inputs` refreshes the hint
  gone     listed by no revision; says whether the pool still serves it
  changed  a listed revision has a file of that name with another sha256
  newer    a followed input's suite has a newer release than the pin
  floor    the pin is below its floor
"""

import base64
import hashlib
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import inputs  # noqa: E402
from archive import compare_versions, upstream_version  # noqa: E402
from common import CACHE  # noqa: E402
from fetch import debian_apt, npm_file, verified  # noqa: E402
from update_inputs import candidates, source_files  # noqa: E402


def served(uri):
  """Whether the archive answers URI (a HEAD request: nothing downloads)."""
  try:
    req = urllib.request.Request(uri, method='HEAD')
    with urllib.request.urlopen(req, timeout=30) as r:
      return r.status == 200
  except (urllib.error.URLError, OSError):
    return False


class Report:
  def __init__(self):
    self.lines = []

  def add(self, status, what, detail):
    self.lines.append((status, what))
    print('  %-8s %s: %s' % (status, what, detail), flush=True)

  def summary(self):
    """'19 inputs: 18 ok, 1 moved' and each finding that is not ok."""
    count = {}
    for status, _ in self.lines:
      if status not in ('newer', 'floor'):  # notes on an input, not inputs
        count[status] = count.get(status, 0) + 1
    text = '%d inputs: %s' % (sum(count.values()), ', '.join(
        '%d %s' % (n, s) for s, n in sorted(count.items())))
    drift = ['%s %s' % (status, what) for status, what in self.lines
             if status != 'ok']
    if drift:
      text = 'drift: %s (%s; see make check-inputs)' % (', '.join(drift),
                                                       text)
    return text, bool(drift)


def check_file(apt, report, package, spec, fname, digest):
  listed = apt.listed(package)
  suites = dict(listed)
  candidates_, changed = apt.locate(package, spec['version'], fname, digest)
  carriers = [v for _, v in candidates_ if v]
  for v, other in changed:
    report.add('changed', fname, '%s %s lists it with sha256 %s, not %s' %
               (package, v, other, digest))
  if spec['version'] in carriers:
    report.add('ok', fname, '%s %s (%s)' % (package, spec['version'],
                                           ', '.join(suites[spec['version']])))
  elif carriers:
    report.add('moved', fname, '%s %s is gone; %s %s (%s) lists the same '
               'file' % (package, spec['version'], package, carriers[0],
                         ', '.join(suites[carriers[0]])))
  elif not changed:
    pool = [u for u, v in candidates_ if v is None]
    report.add('gone', fname, 'no revision of %s lists it (listed: %s); the '
               'archive\'s pool %s' %
               (package, ', '.join(v for v, _ in listed) or 'none',
                'still serves it' if any(served(u) for u in pool)
                else 'does not serve it'))


def check_followed(apt, report, name, spec):
  package = spec.get('package', name)
  if compare_versions(upstream_version(spec['version']), spec['floor']) < 0:
    report.add('floor', '%s %s' % (package, spec['version']),
               'below its floor %s' % spec['floor'])
  for version, suite in candidates(apt, package, spec['follow']):
    if compare_versions(version, spec['version']) <= 0 or \
       compare_versions(upstream_version(version), spec['floor']) < 0:
      continue
    files = apt.files(package, version)
    orig = [uri for f, (uri, _) in files.items() if f in source_files(files)]
    report.add('newer', '%s %s' % (package, version),
               '%s lists it, newer than the pin %s%s' %
               (suite, spec['version'],
                '; make update-inputs' if orig and all(served(u) for u in orig)
                else '; the archive does not serve its files yet'))
    break


def check_npm(report, name, version, digest):
  r = subprocess.run(['npm', 'view', '%s@%s' % (name, version),
                      'dist.integrity'], capture_output=True, text=True)
  integrity = r.stdout.strip()
  what = 'npm %s@%s' % (name, version)
  if r.returncode or not integrity:
    report.add('gone', what, 'npm view finds no such version')
    return
  cached = CACHE / npm_file(name, version)
  if verified(cached, digest) and integrity.startswith('sha512-'):
    ours = 'sha512-' + base64.b64encode(
        hashlib.sha512(cached.read_bytes()).digest()).decode()
    if ours != integrity:
      report.add('changed', what, 'the registry\'s integrity %s is not '
                 'that of the pinned file' % integrity)
      return
  report.add('ok', what, 'listed by the registry')


def main():
  apt = debian_apt()
  apt.update()  # the archive's current index
  if apt.errors:
    print('check-inputs: the archive\'s index could not be updated (%s); '
          'nothing checked' % apt.errors[-1])
    sys.exit(1)
  report = Report()
  # (an entry in both tables, as brotli, is checked once)
  for name, spec in dict(inputs.DEBIAN, **inputs.DEBIAN_RELEASE).items():
    package = spec.get('package', name)
    for fname, digest in spec['files'].items():
      check_file(apt, report, package, spec, fname, digest)
    if 'follow' in spec:
      check_followed(apt, report, name, spec)
  for table in (inputs.NPM, inputs.NPM_DIST, inputs.NPM_TEST):
    for name, (version, digest) in table.items():
      check_npm(report, name, version, digest)
  text, drift = report.summary()
  print('check-inputs: %s' % text)
  sys.exit(1 if drift else 0)


if __name__ == '__main__':
  main()
