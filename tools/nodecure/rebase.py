#!/usr/bin/env python3
"""make rebase: replay a patch queue onto another Node release.

    make rebase NODE_BASE=26 FROM=24            the 24 queue onto Node 26
                                                (with tools/nodecure/inputs_26.py)
    make rebase NODE=24.22.2                    24's queue onto 24.22.2

Steps (doc/contributing/rebasing.md says how to finish one):
1. With NODE=<version>: find that version of Debian's `nodejs` source in
   the archive's index and pin its orig tarball (name and sha256) and
   NODE_VERSION in the base's inputs file.
2. Fetch the inputs and unpack the target release into build-<base>/rebase
   (build/rebase for the default base), a git repository whose first commit is the
   pristine tree, as ./configure lays out build/node.
3. Fetch the commits of the source queue's tree (build/node, or
   build-<FROM>/node: run ./configure for it first), so that `git am -3`
   finds each patch's preimage and merges three-way.
4. Apply the source queue layer by layer (build, v8, uv, node), skipping
   patches whose subject is already applied. At the first patch that does
   not merge, stop: list the conflicted files and regions, and how to go
   on. Run `make rebase` again after `git am --continue` (or `--skip`).
5. Once every patch is in, write the commits back to the target queue
   (patches/<layer>/ or patches/<base>/<layer>/; a layer that is a
   symbolic link to another base's is shared and left alone) and list the
   patches that merged three-way: read each of those against the new code.
"""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import configure  # noqa: E402
import export_patches  # noqa: E402
import inputs  # noqa: E402
from archive import upstream_version  # noqa: E402
from common import BUILD, ROOT, die, log  # noqa: E402
from fetch import debian_apt, fetch_all  # noqa: E402

WORK = BUILD / 'rebase'
REF_FROM = 'refs/rebase/from'


def git(*args, check=True, cwd=WORK):
  r = subprocess.run(['git', '-C', str(cwd)] + list(args),
                     capture_output=True, text=True)
  if check and r.returncode:
    die('git %s: %s' % (' '.join(args), r.stderr.strip() or r.stdout.strip()))
  return r


queue_dir = common.queue_dir
build_dir = common.build_dir


# ---------------------------------------------------------------------------
# 1. The new input

def pin_node(version):
  """Pin Debian's nodejs source of upstream VERSION in this base's inputs
  file: NODE_VERSION and DEBIAN['nodejs'] (its orig tarball)."""
  if not version.startswith(common.BASE + '.'):
    die('NODE=%s is not a Node %s release (NODE_BASE=%s)' %
        (version, common.BASE, common.BASE))
  path = inputs.FILES['nodejs']
  if inputs.NODE_VERSION == version:
    return
  apt = debian_apt()
  found = [(rev, suites) for rev, suites in apt.listed('nodejs')
           if upstream_version(rev).split('+')[0] == version]
  if not found:
    die('the archive lists no nodejs %s (it lists %s): see '
        'doc/contributing/rebasing.md, "When the archive lacks the release"' %
        (version, ', '.join(v for v, _ in apt.listed('nodejs')) or 'none'))
  revision, suites = found[0]
  origs = {f: sha for f, (_, sha) in apt.files('nodejs', revision).items()
           if re.search(r'\.orig\.tar\.\w+$', f)}
  if len(origs) != 1:
    die('nodejs %s lists %d orig tarballs' % (revision, len(origs)))
  (fname, digest), = origs.items()
  text = path.read_text()
  text, n = re.subn(r"^NODE_VERSION = '[^']*'$",
                    "NODE_VERSION = %r" % version, text, flags=re.M)
  m = re.search(r"^    'nodejs': \{\n(?:.*\n)*?    \},$", text, re.M)
  if n != 1 or not m:
    die('cannot find NODE_VERSION and the nodejs entry in %s' % path)
  entry = ("    'nodejs': {\n"
           "        'suite': %r, 'version': %r,\n"
           "        'files': {\n"
           "            %r:\n"
           "                %r,\n"
           "        },\n"
           "    }," % (suites[0], revision, fname, digest))
  path.write_text(text[:m.start()] + entry + text[m.end():])
  log('rebase: pinned nodejs %s (%s, %s) in %s; run make rebase again' %
      (revision, suites[0], fname, path.relative_to(ROOT)))
  # The inputs module was read before the rewrite.
  sys.exit(subprocess.call([sys.executable] + sys.argv))


# ---------------------------------------------------------------------------
# 2, 3. The target tree and the preimages

def prepare_tree(source):
  fetch_all()
  upstream = configure.debian_source()
  stamp = WORK / '.git' / 'nodecure-upstream'
  if not stamp.exists() or stamp.read_text().strip() != upstream['id']:
    if (WORK / '.git').exists() and git('log', '--oneline',
                                        'nodecure/upstream..HEAD').stdout:
      die('%s holds a rebase of another upstream tree: finish it (make '
          'rebase) or remove that directory' % WORK.relative_to(ROOT))
    configure.create_tree(WORK, upstream)
  old = build_dir(source) / 'node'
  if not (old / '.git').exists():
    die('%s is not there: run ./configure --base=%s first, so that the %s '
        'queue\'s preimages are at hand for three-way merges' %
        (old.relative_to(ROOT), source, source))
  git('fetch', '-q', '--no-tags', str(old), '+HEAD:' + REF_FROM)


# ---------------------------------------------------------------------------
# 4. Replaying the queue

def applied_subjects():
  out = git('log', '--format=%s', 'nodecure/upstream..HEAD').stdout
  return set(out.splitlines())


def subject_of(patch):
  text = patch.read_text(errors='replace')
  m = re.search(r'^Subject: (?:\[PATCH[^\]]*\] )?(.*(?:\n .*)*)', text, re.M)
  return re.sub(r'\n ', ' ', m.group(1)).strip() if m else patch.name


def conflicts():
  """{file: [first lines of each conflict region]} of the work tree."""
  files = git('diff', '--name-only', '--diff-filter=U').stdout.split()
  found = {}
  for f in files:
    lines = (WORK / f).read_text(errors='replace').splitlines()
    found[f] = [i + 1 for i, line in enumerate(lines)
                if line.startswith('<<<<<<<')]
  return found


def stop_at(patch, layer, source, output):
  log('rebase: patches/%s/%s does not apply to Node %s' %
      (layer, patch.name, inputs.NODE_VERSION))
  regions = conflicts()
  for f, starts in regions.items():
    print('  %s: %d conflict region(s) at line(s) %s' %
          (f, len(starts), ', '.join(map(str, starts)) or '(none marked)'))
  if not regions:
    print('\n'.join('  ' + line for line in output.strip().splitlines()[-12:]))
  print('Resolve them in %s (read doc/contributing/rebasing.md), then:\n'
        '  git -C %s add <files> && git -C %s am --continue\n'
        '  make rebase NODE_BASE=%s FROM=%s   # goes on with the next patch\n'
        'or drop the patch with `git -C %s am --skip`.' %
        ((WORK.relative_to(ROOT),) + (WORK.relative_to(ROOT),) * 2 +
         (common.BASE, source, WORK.relative_to(ROOT))))
  sys.exit(1)


def replay(source):
  pending = Path(git('rev-parse', '--git-path', 'rebase-apply').stdout.strip())
  if (WORK / pending).exists():
    die('a patch is still being applied in %s: finish it with `git am '
        '--continue` (or `--skip`) there, then run make rebase again' %
        WORK.relative_to(ROOT))
  done = applied_subjects()
  merged = []
  env = dict(os.environ, **configure.GIT_ENV)
  for layer in common.LAYERS:
    # The build layer is what upstream needs to build here: the target's
    # own when it has one (a new base's is written by hand first), else the
    # source's.
    queue = queue_dir(source)
    if layer == 'build' and common.series(queue_dir(common.BASE) / layer):
      queue = queue_dir(common.BASE)
    for patch in common.series(queue / layer):
      if subject_of(patch) in done:
        continue
      r = subprocess.run(['git', '-C', str(WORK), 'am', '-3', '--keep-cr',
                          '--committer-date-is-author-date', str(patch)],
                         capture_output=True, text=True, env=env)
      if r.returncode:
        stop_at(patch, layer, source, r.stdout + r.stderr)
      three_way = 'Falling back' in r.stdout + r.stderr
      if three_way:
        merged.append('%s/%s' % (layer, patch.name))
      log('rebase: %s %s/%s' % ('merged three-way' if three_way else 'applied',
                                 layer, patch.name))
  return merged


# ---------------------------------------------------------------------------
# 5. Writing the queue back

def export(source):
  target = queue_dir(common.BASE)
  shared = [l for l in common.LAYERS if (target / l).is_symlink()]
  commits = git('rev-list', '--reverse', 'nodecure/upstream..HEAD'
                ).stdout.split()
  by_layer = {}
  for c in commits:
    by_layer.setdefault(export_patches.layer_of(c, tree=WORK), []).append(c)
  for layer, cs in by_layer.items():
    if layer in shared:
      continue
    d = target / layer
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob('*.patch'):
      old.unlink()
    names = []
    for c in cs:
      subject = git('log', '-1', '--format=%s', c).stdout.strip()
      name = export_patches.slug(subject)
      (d / name).write_text(git(
          'format-patch', '-1', '--stdout', '--zero-commit', '--no-signature',
          '--no-numbered', '--full-index', c).stdout)
      names.append(name)
    (d / '.patches').write_text('\n'.join(names) + '\n')
    log('rebase: wrote %d patches to %s' % (len(names),
                                            d.relative_to(ROOT)))
  if shared:
    log('rebase: left %s alone (shared with another base)' %
        ', '.join('%s/' % (target / l).relative_to(ROOT) for l in shared))


def main():
  ap = argparse.ArgumentParser(prog='make rebase',
                               description=__doc__.split('\n\n')[0])
  ap.add_argument('--from', dest='source', default=common.BASE,
                  choices=common.BASES,
                  help='the base whose queue is replayed (default: this one)')
  ap.add_argument('--node', metavar='VERSION',
                  help='pin this Node release of the base first')
  args = ap.parse_args()
  if args.node:
    pin_node(args.node)
  prepare_tree(args.source)
  merged = replay(args.source)
  export(args.source)
  log('rebase: every patch of the %s queue is in %s' %
      (args.source, WORK.relative_to(ROOT)))
  if merged:
    log('rebase: merged three-way (read each against the new code): %s' %
        ', '.join(merged))
  log('rebase: next: ./configure --base=%s && make NODE_BASE=%s, then make '
      'test and make test-upstream (doc/contributing/rebasing.md)' %
      (common.BASE, common.BASE))


if __name__ == '__main__':
  main()
