#!/usr/bin/env python3
"""Summarise the CSV of upstream's benchmark/compare.js as ratios.

  ./node build/node/benchmark/compare.js --old ./node-baseline --new ./node \\
      --runs 10 --filter event-loop-timeout cure > ab.csv
  python3 tools/nodecure/bench_ratio.py ab.csv

compare.js interleaves the two binaries run by run. For each benchmark
configuration this prints the mean rate of each binary, new/old (above 1:
./node is faster), and a 95% confidence interval of that ratio (Welch's
t-interval on the difference of means, divided by old's mean). Upstream's
compare.R does the same with R, which these machines do not have.
"""

import csv
import math
import statistics
import sys
from collections import defaultdict

# Two-sided 95% quantiles of Student's t by degrees of freedom (larger: 1.96).
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36,
       8: 2.31, 9: 2.26, 10: 2.23, 12: 2.18, 15: 2.13, 20: 2.09, 30: 2.04}


def t95(df):
  for k in sorted(T95):
    if df <= k:
      return T95[k]
  return 1.96


def main(path):
  rates = defaultdict(lambda: defaultdict(list))
  with open(path, newline='') as f:
    for row in csv.DictReader(f):
      key = (row['filename'], row['configuration'])
      rates[key][row['binary']].append(float(row['rate']))
  print('%-40s %-48s %12s %12s %8s %17s' %
        ('benchmark', 'configuration', 'old', 'new', 'new/old', '95% CI'))
  for (name, config), by_binary in sorted(rates.items()):
    old, new = by_binary.get('old', []), by_binary.get('new', [])
    if len(old) < 2 or len(new) < 2:
      continue
    mo, mn = statistics.mean(old), statistics.mean(new)
    vo, vn = statistics.variance(old) / len(old), statistics.variance(new) / len(new)
    se = math.sqrt(vo + vn)
    df = (vo + vn) ** 2 / ((vo ** 2) / (len(old) - 1) +
                           (vn ** 2) / (len(new) - 1)) if se else 1
    half = t95(df) * se / mo
    ratio = mn / mo
    print('%-40s %-48s %12.1f %12.1f %8.3f [%6.3f, %6.3f]' %
          (name, config, mo, mn, ratio, ratio - half, ratio + half))


if __name__ == '__main__':
  if len(sys.argv) != 2:
    sys.exit(__doc__)
  main(sys.argv[1])
