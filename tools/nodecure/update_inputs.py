#!/usr/bin/env python3
"""make update-inputs: move the Debian inputs of tools/nodecure/inputs.py to
what the archive lists today, for a maintainer to review and commit.

- An entry with 'follow' (a security-maintained C dependency) moves to the
  newest revision of its first followed suite (with that suite's -updates
  and -security) whose files the archive serves, or of the next suite when
  it serves none of the first's; never to a revision older than the pin or
  whose upstream version is below the entry's 'floor'. Its files (orig and
  debian tarballs) are downloaded into the download cache and checked
  against the sha256 the index gives; inputs.py records them.
- Any other entry keeps its files; its 'suite' and 'version' hint moves to
  the newest revision that lists them all (by name and sha256).

Then run ./configure and make test, and commit inputs.py. The build never
follows the archive by itself: it uses exactly the files pinned.
"""

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import inputs  # noqa: E402
from archive import compare_versions, upstream_version  # noqa: E402
from common import CACHE, ROOT, die, log  # noqa: E402
from fetch import debian_apt, download, verified  # noqa: E402

# The Debian inputs of ./configure and those of the release build.
DEBIAN = dict(inputs.DEBIAN, **inputs.DEBIAN_RELEASE)
# Where each is written: its file (inputs.py, or inputs_N.py for what only
# a base built beside the default uses) and its name there.
FILES = inputs.FILES
NAMES = inputs.NAMES


def source_files(files):
  """The orig and debian tarballs of a revision ({name: (uri, sha256)})."""
  return {f: d for f, (_, d) in files.items()
          if re.search(r'\.(orig(-[\w.-]+)?|debian)\.tar\.\w+$', f)}


def family(suite):
  return {suite, suite + '-updates', suite + '-security'}


def candidates(apt, package, follow):
  """(revision, suite) of the followed suites, in order of preference."""
  out = []
  for suite in follow:
    for version, suites in apt.listed(package):
      where = [s for s in suites if s in family(suite)]
      if where and version not in [v for v, _ in out]:
        out.append((version, where[0]))
  return out


def fetch_revision(apt, package, version):
  """Download a revision's tarballs into the cache; their {name: sha256},
  or None (with the reason logged) when the archive does not serve one."""
  files = source_files(apt.files(package, version))
  for fname, digest in files.items():
    if verified(CACHE / fname, digest):
      continue
    tried = []
    for uri, _ in apt.locate(package, version, fname, digest)[0]:
      why = download(uri, CACHE / fname, digest)
      if why is None:
        break
      tried.append(why)
    else:
      log('update: %s %s is listed, but %s is not served (%s)' %
          (package, version, fname, '; '.join(sorted(set(tried)))))
      return None
  return files


def followed(apt, name, spec):
  package = spec.get('package', name)
  for version, suite in candidates(apt, package, spec['follow']):
    if compare_versions(upstream_version(version), spec['floor']) < 0:
      log('update: %s %s (%s) is below the floor %s; skipped' %
          (package, version, suite, spec['floor']))
      continue
    if compare_versions(version, spec['version']) <= 0:
      continue  # never older than the pin
    files = fetch_revision(apt, package, version)
    if files:
      return dict(spec, suite=suite, version=version, files=files)
  return spec


def rehinted(apt, name, spec):
  package = spec.get('package', name)
  for version, suites in apt.listed(package):
    listed = apt.files(package, version)
    if all(listed.get(f, (None, None))[1] == d
           for f, d in spec['files'].items()):
      return dict(spec, suite=suites[0], version=version)
  log('update: no revision of %s lists %s; see make check-inputs' %
      (package, ', '.join(spec['files'])))
  return spec


def render(name, spec, opening):
  lines = [opening]
  head = ["'package': %r" % spec['package']] if 'package' in spec else []
  head += ["'suite': %r" % spec['suite'], "'version': %r" % spec['version']]
  lines.append('        %s,' % ', '.join(head))
  if 'follow' in spec:
    lines.append("        'follow': %r, 'floor': %r," %
                 (spec['follow'], spec['floor']))
  lines.append("        'files': {")
  for fname, digest in spec['files'].items():
    lines += ['            %r:' % fname, '                %r,' % digest]
  lines += ['        },', '    },']
  return '\n'.join(lines)


def rewrite(text, name, spec):
  m = re.search(r"^(    %r: \{.*)\n(?:.*\n)*?    \},$" % NAMES[name], text,
                re.M)
  if not m:
    die('cannot find the entry %r in %s' % (NAMES[name], FILES[name]))
  if NAMES[name] != name:
    spec = {k: v for k, v in spec.items() if k != 'package'}
  return text[:m.start()] + render(name, spec, m.group(1)) + text[m.end():]


def describe(spec):
  return '%s (%s)' % (spec['version'], spec['suite'])


def main():
  ap = argparse.ArgumentParser(prog='tools/nodecure/update_inputs.py',
                               description=__doc__.split('\n\n')[0])
  ap.add_argument('names', nargs='*', metavar='NAME',
                  help='entries of inputs.DEBIAN or DEBIAN_RELEASE (default: all)')
  args = ap.parse_args()
  for name in args.names:
    if name not in DEBIAN:
      ap.error('no Debian input %r (choose from %s)' %
               (name, ', '.join(DEBIAN)))
  for name, spec in DEBIAN.items():
    missing = set(spec.get('follow', [])) - set(inputs.SUITES)
    if missing:
      die('inputs.py: %s follows %s, which SUITES does not list' %
          (name, ', '.join(sorted(missing))))
  CACHE.mkdir(parents=True, exist_ok=True)
  apt = debian_apt()
  texts = {}
  changed = []
  for name in args.names or DEBIAN:
    spec = DEBIAN[name]
    new = (followed if 'follow' in spec else rehinted)(apt, name, spec)
    if new == spec:
      log('update: %s: %s, unchanged' % (name, describe(spec)))
      continue
    log('update: %s: %s -> %s' % (name, describe(spec), describe(new)))
    f = FILES[name]
    texts[f] = rewrite(texts.get(f) or f.read_text(), name, new)
    changed.append(name)
  for f, text in texts.items():
    f.write_text(text)
  if changed:
    log('update: rewrote %s (%s): run ./configure and make test, then '
        'commit it' % (', '.join(str(f.relative_to(ROOT)) for f in texts),
                       ', '.join(changed)))


if __name__ == '__main__':
  main()
