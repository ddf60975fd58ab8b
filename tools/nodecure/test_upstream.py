#!/usr/bin/env python3
"""make test-upstream: Node's own suites against ./node.

Runs upstream's tools/test.py on test/parallel and test/sequential (or the
suites given) and compares the failures with test/cure-upstream/
expected-failures.txt: the failures this environment produces on the
unpatched baseline build (no network, no IPv6, ...), one per line as
`suite/test-name  # reason`. Fails on any failure not in that list; lists
expected failures that now pass so the list can shrink.

  --node PATH    run another binary (e.g. ./node-baseline)
  --suites ...   default: parallel sequential
  --node-args F  flags for every test, e.g. '--event-loop-timeout=60000
                 --threadpool-timeout=60000' (one string, split as a shell
                 would)
"""

import argparse
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import ROOT, BUILD, log  # noqa: E402

EXPECTED = ROOT / 'test' / 'cure-upstream' / (
    'expected-failures.txt' if common.BASE == common.DEFAULT_BASE else
    'expected-failures-%s.txt' % common.BASE)


def expected_failures():
  out = {}
  for line in EXPECTED.read_text().splitlines():
    line = line.strip()
    if not line or line.startswith('#'):
      continue
    name, _, reason = line.partition('#')
    out[name.strip()] = reason.strip()
  return out


def run_tests(tree, node, tests, timeout, jobs, log_file):
  """Upstream's tools/test.py on `tests` (suites or suite/test names):
  the names that passed, were skipped and failed."""
  with open(log_file, 'w') as f:
    subprocess.run([sys.executable, 'tools/test.py', '-p', 'tap',
                    '-j%d' % jobs, '-t', timeout,
                    '--shell=%s' % node] + list(tests),
                   cwd=tree, stdout=f, stderr=subprocess.STDOUT)
  passed, skipped, failed = [], [], []
  for line in log_file.read_text(errors='replace').splitlines():
    m = re.match(r'(not ok|ok) \d+ (\S+)(.*)', line)
    if not m:
      continue
    status, name, rest = m.groups()
    if '# skip' in rest.lower():
      skipped.append(name)
    elif status == 'ok':
      passed.append(name)
    else:
      failed.append(name)
  return passed, skipped, failed


def main():
  ap = argparse.ArgumentParser(prog='make test-upstream')
  ap.add_argument('--node', default=str(common.NODE_BIN))
  ap.add_argument('--suites', nargs='+', default=['parallel', 'sequential'])
  ap.add_argument('--node-args', default='',
                  help='flags for every test (e.g. --event-loop-timeout=60000'
                       ', to run the suites with the feature on)')
  ap.add_argument('--timeout', default='240',
                  help='per-test timeout in seconds (tools/test.py -t)')
  args = ap.parse_args()
  node = Path(args.node).resolve()
  if not node.exists():
    sys.exit('nodecure: %s is missing: run make first' % node)
  # The tests of the tree the binary was built from: ./node-baseline runs
  # upstream's own tests, ./node ours (a few upstream tests are patched).
  tree = BUILD / 'baseline' if BUILD / 'baseline' in node.parents else \
      BUILD / 'node'
  log_file = BUILD / 'test' / ('upstream-%s.tap' % tree.name)
  log_file.parent.mkdir(parents=True, exist_ok=True)
  log('test-upstream: %s with %s' % (' '.join(args.suites), node))
  start = time.time()
  # Upstream's test.py takes one flag per --node-args (it appends them).
  extra = ['--node-args=%s' % f for f in shlex.split(args.node_args)]
  passed, skipped, failed = run_tests(tree, node, extra + args.suites,
                                      args.timeout, common.jobs(), log_file)
  expected = expected_failures()
  unexpected = [t for t in failed if t not in expected]
  fixed = [t for t in expected if t in passed]
  # A test that fails once under load (a timing test) is run again, alone;
  # it counts as a failure only if it fails again.
  flaky = []
  if unexpected:
    retry_log = log_file.with_suffix('.retry.tap')
    log('test-upstream: running %d failed test(s) again, one at a time' %
        len(unexpected))
    again_passed, _, _ = run_tests(tree, node, extra + unexpected,
                                   args.timeout, 1, retry_log)
    flaky = [t for t in unexpected if t in again_passed]
    unexpected = [t for t in unexpected if t not in again_passed]
  for t in flaky:
    print('# failed under load, passed alone (flaky here): %s' % t)
  for t in unexpected:
    print('not ok - unexpected failure: %s' % t)
  for t in fixed:
    print('# expected to fail but passed (remove it from the list): %s' % t)
  print('test-upstream: %d tests in %.0f s; %d failed as expected (%s)' %
        (len(passed) + len(failed) + len(skipped), time.time() - start,
         len(failed) - len(unexpected), EXPECTED.relative_to(ROOT)))
  print('upstream: %d passed, %d failed, %d skipped' %
        (len(passed), len(unexpected), len(skipped)))
  if not passed and not failed:
    sys.exit('nodecure: no test ran; see %s' % log_file)
  sys.exit(1 if unexpected else 0)


if __name__ == '__main__':
  main()
