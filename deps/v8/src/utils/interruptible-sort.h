// Copyright nodecure contributors. All rights reserved.
// Use of this source code is governed by a BSD-style license that can be
// found in V8's LICENSE file.

#ifndef V8_UTILS_INTERRUPTIBLE_SORT_H_
#define V8_UTILS_INTERRUPTIBLE_SORT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace v8 {
namespace internal {

// nodecure: sorts [first, last) by `less`, like std::sort (not stable), and
// calls `should_stop()` after about every kPollInterval element steps. As
// soon as it returns true the sort stops and returns false, leaving the range
// a permutation of its elements; otherwise it returns true, sorted.
//
// Quicksort (median-of-three pivot, Hoare partition) down to runs of kRun
// elements, each sorted by std::sort; a range that recurses too deep is
// heap-sorted, so the worst case stays O(n log n). No step between two polls
// is longer than one run's std::sort or kPollInterval comparisons.
template <typename RandomIt, typename Less, typename ShouldStop>
bool InterruptibleSort(RandomIt first, RandomIt last, Less less,
                       ShouldStop should_stop) {
  using T = typename std::iterator_traits<RandomIt>::value_type;
  constexpr ptrdiff_t kRun = ptrdiff_t{1} << 12;
  constexpr intptr_t kPollInterval = intptr_t{1} << 16;
  intptr_t countdown = kPollInterval;
  // Called once `countdown` (element steps left until the next poll) ran
  // out: true when the sort must stop.
  auto stop = [&]() {
    countdown = kPollInterval;
    return static_cast<bool>(should_stop());
  };

  struct Range {
    RandomIt first;
    RandomIt last;
    int depth;
  };
  int max_depth = 0;
  for (ptrdiff_t n = last - first; n > 1; n >>= 1) max_depth += 2;
  std::vector<Range> ranges;
  ranges.push_back({first, last, 0});

  while (!ranges.empty()) {
    const Range range = ranges.back();
    ranges.pop_back();
    const RandomIt a = range.first;
    const ptrdiff_t n = range.last - range.first;
    if (n <= kRun) {
      std::sort(a, range.last, less);
      countdown -= n;
      if (countdown <= 0 && stop()) return false;
      continue;
    }
    if (range.depth >= max_depth) {
      // Heap sort, one push or pop (O(log n) comparisons) per step.
      for (ptrdiff_t k = 2; k <= n; k++) {
        std::push_heap(a, a + k, less);
        if (--countdown <= 0 && stop()) return false;
      }
      for (ptrdiff_t k = n; k > 1; k--) {
        std::pop_heap(a, a + k, less);
        if (--countdown <= 0 && stop()) return false;
      }
      continue;
    }

    // The median of a[1], a[n / 2] and a[n - 1] becomes the pivot a[0].
    const RandomIt lo = a + 1;
    const RandomIt mid = a + n / 2;
    const RandomIt hi = a + n - 1;
    if (less(*mid, *lo)) std::iter_swap(lo, mid);
    if (less(*hi, *mid)) {
      std::iter_swap(mid, hi);
      if (less(*mid, *lo)) std::iter_swap(lo, mid);
    }
    std::iter_swap(a, mid);
    const T pivot = *a;

    // Hoare's partition: [0, j] <= pivot <= [j + 1, n), both non-empty.
    ptrdiff_t i = -1;
    ptrdiff_t j = n;
    while (true) {
      do {
        j--;
        if (--countdown <= 0 && stop()) return false;
      } while (less(pivot, *(a + j)));
      do {
        i++;
        if (--countdown <= 0 && stop()) return false;
      } while (less(*(a + i), pivot));
      if (i >= j) break;
      std::iter_swap(a + i, a + j);
    }

    // The smaller side is sorted first, so that at most O(log n) ranges wait.
    Range left = {a, a + j + 1, range.depth + 1};
    Range right = {a + j + 1, range.last, range.depth + 1};
    if (left.last - left.first < right.last - right.first) {
      std::swap(left, right);
    }
    ranges.push_back(left);
    ranges.push_back(right);
  }
  return true;
}

}  // namespace internal
}  // namespace v8

#endif  // V8_UTILS_INTERRUPTIBLE_SORT_H_
