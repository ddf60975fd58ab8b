#!/usr/bin/env python3
"""The EHP attack suite (test/ehp/, doc/ehp.md).

  make ehp       every attack against ./node (both budgets on) and
                 ./node-baseline, 1,000 repetitions of each on ./node; the
                 table, results.json and the plots go to build/ehp/
  make ehp-demo  the demo: app.js served by ./node (and by ./node-baseline
                 beside it, if built), legitimate load, and an attack every
                 few seconds, with the numbers live

Installs the suite's locked npm dependencies (express, autocannon, vega,
vega-lite, resvg) into build/test/ehp and copies the suite's sources next to
them. tools/nodecure/test.py's `ehp` part (make test) runs a smoke of it.
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import ROOT, BUILD, log, run  # noqa: E402

SUITE = ROOT / 'test' / 'ehp'
WORK = BUILD / 'test' / 'ehp'
SOURCES = ['app.js', 'attacks.js', 'run.js', 'demo.js', 'lib']


def prepare():
  """build/test/ehp: the locked dependencies (npm ci when the lock changed)
  and, every time, the sources. Returns the directory."""
  lock = SUITE / 'package-lock.json'
  stamp = WORK / '.lock'
  if not (stamp.exists() and stamp.read_bytes() == lock.read_bytes()):
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    for name in ('package.json', 'package-lock.json'):
      shutil.copy2(SUITE / name, WORK / name)
    log('ehp: npm ci (express, autocannon, vega, resvg)')
    run(['npm', 'ci', '--no-audit', '--no-fund', '--loglevel=error'],
        cwd=WORK, quiet=True)
    stamp.write_bytes(lock.read_bytes())
  for name in SOURCES:
    src, dst = SUITE / name, WORK / name
    if src.is_dir():
      shutil.rmtree(dst, ignore_errors=True)
      shutil.copytree(src, dst)
    else:
      shutil.copy2(src, dst)
  # The hung share's mount helper, shared with test/cure.
  shutil.copy2(ROOT / 'test' / 'cure-fixtures' / 'hung-fuse-mount.py',
               WORK / 'lib' / 'hung-fuse-mount.py')
  return WORK


def binary(name):
  path = common.NODE_BIN if name == 'node' else common.BASELINE_BIN
  if not path.exists():
    sys.exit('nodecure: ./%s is missing: run make%s%s first' %
             (path.name, '' if name == 'node' else ' baseline',
              '' if common.BASE == common.DEFAULT_BASE else
              ' NODE_BASE=' + common.BASE))
  return path


def main():
  ap = argparse.ArgumentParser(prog='make ehp')
  ap.add_argument('--demo', action='store_true', help='run the live demo')
  ap.add_argument('--only', help='attack ids, comma-separated')
  ap.add_argument('--reps', default='1000',
                  help='repetitions of each attack on ./node (0: none)')
  ap.add_argument('--out', default=str(BUILD / 'ehp'),
                  help='where the results and plots go')
  args = ap.parse_args()
  node = binary('node')
  work = prepare()
  if args.demo:
    # Stock Node beside nodecure when there is a baseline build.
    baseline = common.BASELINE_BIN
    extra = ['--baseline', str(baseline)] if baseline.exists() else []
    sys.exit(subprocess.call([str(node), str(work / 'demo.js'),
                              '--node', str(node)] + extra))
  cmd = [str(node), str(work / 'run.js'), '--node', str(node),
         '--baseline', str(binary('node-baseline')), '--reps', args.reps,
         '--out', args.out]
  if args.only:
    cmd += ['--only', args.only]
  # The runner and the load generator run on ./node without flags: a drop-in
  # Node.js.
  sys.exit(subprocess.call(cmd))


if __name__ == '__main__':
  main()
