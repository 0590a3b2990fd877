"""Lengths of unions and overlaps of half-open integer intervals ``(start, end)``.

Reports measure exposed communication with these (the part of a stream's busy
time no compute covers); the contention model asks how much of one operator
a rank's communication overlaps (:class:`Coverage`).

Example::

    >>> union_length([(0, 4), (2, 6), (8, 9)]), overlap_length([(0, 4)], [(2, 6)])
    (7, 2)
    >>> Coverage([(0, 4), (2, 6), (8, 9)]).covered(5, 10)
    2
"""

from __future__ import annotations

import bisect


def merge_intervals(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The union of *intervals* as sorted, disjoint intervals (empty ones dropped). O(n log n)."""
    out: list[list[int]] = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def union_length(intervals: list[tuple[int, int]]) -> int:
    """Length of the union of *intervals*. O(n log n)."""
    return sum(e - s for s, e in merge_intervals(intervals))


def overlap_length(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Length of (union of a) intersected with (union of b). O((n + m) log(n + m))."""
    a, b = merge_intervals(a), merge_intervals(b)
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


class Coverage:
    """The union of *intervals*, asked many times how much of ``[a, b)`` it covers.
    Built in O(n log n); each query O(log n + the intervals it meets)."""

    def __init__(self, intervals: list[tuple[int, int]]):
        self.spans = merge_intervals(intervals)
        self.starts = [s for s, _ in self.spans]

    def covered(self, a: int, b: int) -> int:
        spans = self.spans
        j = max(bisect.bisect_right(self.starts, a) - 1, 0)
        both = 0
        while j < len(spans) and spans[j][0] < b:
            lo, hi = max(a, spans[j][0]), min(b, spans[j][1])
            if hi > lo:
                both += hi - lo
            j += 1
        return both
