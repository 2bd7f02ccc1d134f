"""Paired, interleaved timings in one process: what every ratio of the benchmarks is.

Other work on a shared machine slows everything; functions timed side by side, round
after round, are slowed alike, so the ratio of their times within a round is far more
stable than either time. ``measure`` calls every function once (numba compiles or loads
its cache there), then runs ``rounds`` rounds that call each once, in turn; calls faster
than MIN_SAMPLE_SECONDS are looped within a round. ``paired`` reads the median over
rounds of the ratio within a round (and the ratio of the best times).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

MIN_SAMPLE_SECONDS = 0.02


def _time(fn: Callable[[], object], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def measure(fns: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Seconds per call of each function: one warm-up call, then ``rounds`` interleaved
    rounds (fast calls looped up to MIN_SAMPLE_SECONDS)."""
    number = {}
    for name, fn in fns.items():
        t0 = time.perf_counter()
        fn()
        number[name] = max(1, int(MIN_SAMPLE_SECONDS / max(time.perf_counter() - t0, 1e-7)))
    out = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            out[name].append(_time(fn, number[name]))
    return out


def best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    """(least seconds of ``repeat`` calls, the last call's result): a one-sided time,
    for the tables that report seconds beside their anchors'."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def paired(times: dict[str, list[float]], num: str, den: str) -> tuple[float, float]:
    """(median of the ratios within rounds, ratio of the best times)."""
    med = statistics.median(x / y for x, y in zip(times[num], times[den], strict=True))
    return med, min(times[num]) / min(times[den])
