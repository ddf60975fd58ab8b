#!/usr/bin/env python3
"""Write build/node's commits back into patches/<layer>/ (make export-patches).

build/node is a git repository: its first commit (tag nodecure/upstream) is
pristine upstream, each later commit one of our patches. Edit and commit
there, then run this: every commit after nodecure/upstream becomes
patches/<layer>/<slug-of-subject>.patch (git format-patch output, its
message the patch's header) and patches/<layer>/.patches records the order.

A commit's layer: 'build' if its subject starts with "build:" (the fixes
the baseline needs too), else 'v8' if it touches only deps/v8, 'uv' if only
deps/uv, else 'node'.
"""

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import ROOT, BUILD, die, log  # noqa: E402


def git(*args, tree=None):
  return subprocess.run(['git', '-C', str(tree or BUILD / 'node')] +
                        list(args), check=True, capture_output=True,
                        text=True).stdout


def layer_of(commit, tree=None):
  subject = git('log', '-1', '--format=%s', commit, tree=tree)
  if subject.startswith('build:'):
    return 'build'
  files = git('diff-tree', '--no-commit-id', '--name-only', '-r',
              commit, tree=tree).split()
  if files and all(f.startswith('deps/v8/') for f in files):
    return 'v8'
  if files and all(f.startswith('deps/uv/') for f in files):
    return 'uv'
  return 'node'


def slug(subject):
  s = re.sub(r'[^a-z0-9]+', '-', subject.lower()).strip('-')
  return s[:72].rstrip('-') + '.patch'


def main():
  if not (BUILD / 'node' / '.git').exists():
    die('no build/node: run ./configure first')
  if git('status', '--porcelain', '--untracked-files=no').strip():
    die('build/node has uncommitted changes: commit them first')
  commits = git('rev-list', '--reverse',
                '%s..HEAD' % common.TAG_UPSTREAM).split()
  by_layer = {l: [] for l in common.LAYERS}
  order = []
  for c in commits:
    layer = layer_of(c)
    order.append(layer)
    subject = git('log', '-1', '--format=%s', c)
    patch = git('format-patch', '-1', '--stdout', '--zero-commit',
                '--no-signature', '--no-numbered', '--full-index', c)
    by_layer[layer].append((slug(subject), patch))

  for layer, patches in by_layer.items():
    d = common.PATCHES / layer
    names = [n for n, _ in patches]
    if len(set(names)) != len(names):
      die('two commits of layer %s have the same subject' % layer)
    old = set(p.name for p in d.glob('*.patch')) if d.exists() else set()
    if not patches and not old:
      continue
    d.mkdir(parents=True, exist_ok=True)
    for name, text in patches:
      (d / name).write_text(text)
    for stale in old - set(names):
      (d / stale).unlink()
    (d / '.patches').write_text(''.join(n + '\n' for n in names))
    log('patches/%s: %d patch(es)' % (layer, len(patches)))

  # The tree now matches the queue if its commits are already in layer
  # order; otherwise ./configure re-applies the queue in order.
  state = BUILD / 'node' / '.git' / 'nodecure-applied'
  head = git('rev-parse', 'HEAD').strip()
  in_order = order == sorted(order, key=common.LAYERS.index)
  key = common.tree_key() if in_order else 'reapply'
  state.write_text('%s %s\n' % (key, head))
  if in_order:
    n = sum(1 for l in order if l in common.BASELINE_LAYERS)
    base = commits[n - 1] if n else common.TAG_UPSTREAM
    git('tag', '-f', common.TAG_BASE, base)
  else:
    log('commits are not in layer order (%s); run ./configure to re-apply '
        'the queue' % ', '.join(common.LAYERS))


if __name__ == '__main__':
  main()
