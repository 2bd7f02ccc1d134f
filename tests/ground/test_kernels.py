"""The fast kernels against slow oracles, and threads that change nothing.

Moment kernels (five sums in int64 and int32 lanes, packed margins; the exact weighted
moments have their own file, test_survey_sums.py), the counting table, and the bootstrap
kernel that makes numpy's own draws: each against an obviously correct reference
(``tests/oracles/naive.py``'s Fractions, numpy), on the edges of their fast paths, and —
for every threaded twin — bit for bit the same result with one thread or two, whatever
the chunk boundaries.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from scipy import stats

import qwkit
from oracles.naive import naive_kappa, naive_kappa_on_values
from qwkit import _kernels
from qwkit._kernels import _jit

SEED = 20261121
CHUNK = _kernels.CHUNK
#: Sizes around chunk boundaries (the threaded kernels split the items in chunks of
#: CHUNK, the serial five sums in two halves).
EDGE_SIZES = [1, 2, 3, 63, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 3, 3 * CHUNK - 7]


@pytest.fixture
def always_threaded(monkeypatch):
    """Every pass above 0 items uses the thread pool (two threads), however small."""
    monkeypatch.setattr(_jit, "THREAD_MIN_ITEMS", 0)
    before = numba.get_num_threads()
    numba.set_num_threads(2)
    yield
    numba.set_num_threads(before)


def _ratings(rng, n, k=5, dtype=np.int64):
    a = rng.integers(0, k, n)
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, k, n))
    return a.astype(dtype), b.astype(dtype)


class TestMomentKernels:
    @pytest.mark.parametrize("n", EDGE_SIZES)
    def test_five_sums_and_threaded_twin(self, n):
        rng = np.random.default_rng(SEED + n)
        a, b = _ratings(rng, n)
        expected = (
            int(a.sum()),
            int(b.sum()),
            int((a * a).sum()),
            int((b * b).sum()),
            int((a * b).sum()),
            int(np.bitwise_or.reduce(np.concatenate([a, b]))),
        )
        assert tuple(int(x) for x in _kernels.five_sums(a, b)) == expected
        largest = int(max(a.max(), b.max()))  # the threaded bound: the largest value
        assert tuple(int(x) for x in _kernels.five_sums_par(a, b)) == (*expected[:5], largest)
        assert _kernels.five_sums_par(a - 10, b)[5] < 0 <= _kernels.five_sums(a, b)[5]

    @pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16])
    @pytest.mark.parametrize("n", [1, 5, CHUNK + 1, 3 * _kernels.NARROW_BLOCK + 11])
    def test_narrow_five_sums(self, dtype, n):
        rng = np.random.default_rng(SEED)
        a = rng.integers(0, 128, n).astype(dtype)
        b = rng.integers(0, 128, n).astype(dtype)
        x, y = a.astype(np.int64), b.astype(np.int64)
        both = np.concatenate([x, y])
        expected = (x.sum(), y.sum(), (x * x + y * y).sum(), (x * y).sum(), both.max(), both.min())
        expected = tuple(int(v) for v in expected)
        for kernel in (_kernels.five_sums_narrow, _kernels.five_sums_narrow_par):
            assert tuple(int(v) for v in kernel(a, b)) == expected

    @staticmethod
    def _expected_margins(a, b, linear):
        return np.concatenate(
            [
                np.bincount(a, minlength=8)[:8],
                np.bincount(b, minlength=8)[:8],
                [np.minimum(a, b).sum() if linear else (a == b).sum()],
                [np.bitwise_or.reduce(np.concatenate([a, b]))],
            ]
        )

    # the kernel reads four quarters in blocks of 248 items (8-bit counters): every
    # boundary of blocks, quarters and the tail of n mod 4 items
    @pytest.mark.parametrize("linear", [True, False])
    @pytest.mark.parametrize(
        "n", [1, 3, 4, 5, 7, 247, 248, 249, 991, 992, 993, 995, 2 * 992 + 3, CHUNK + 5,
              4 * CHUNK + 7],
    )  # fmt: skip
    def test_margins(self, linear, n):
        rng = np.random.default_rng(SEED + n)
        a, b = _ratings(rng, n, k=8)
        expected = self._expected_margins(a, b, linear)
        np.testing.assert_array_equal(_kernels.margins(a, b, linear), expected)
        np.testing.assert_array_equal(_kernels.margins_par(a, b, linear), expected)

    @pytest.mark.parametrize("n", [992, 3 * 992 + 3, CHUNK + 1])
    def test_margins_full_counters(self, n):
        # one value everywhere: every 8-bit counter of a block reaches 248
        for value in (0, 7):
            a = np.full(n, value, dtype=np.int64)
            b = np.full(n, 7 - value, dtype=np.int64)
            for linear in (True, False):
                expected = self._expected_margins(a, b, linear)
                np.testing.assert_array_equal(_kernels.margins(a, b, linear), expected)
                np.testing.assert_array_equal(_kernels.margins_par(a, b, linear), expected)

    @pytest.mark.parametrize("at", [0, 500, 992 + 1, 2 * 992 + 2])
    @pytest.mark.parametrize("bad", [-1, 8, 2**40])
    def test_margins_flag_values_they_cannot_count(self, at, bad):
        # a value outside 0..7 in any quarter, block or tail reaches the OR
        n = 2 * 992 + 3
        a, b = _ratings(np.random.default_rng(SEED), n, k=8)
        a[at] = bad
        orr = int(_kernels.margins(a, b, True)[17])
        assert orr < 0 or orr >= 8
        assert int(_kernels.margins_par(a, b, True)[17]) == orr


class TestCountingTable:
    @pytest.mark.parametrize("k", [1, 5, 32, 70])
    @pytest.mark.parametrize("n", [1, 3, 4, 5, CHUNK + 3])
    def test_table_and_threaded_twin(self, k, n):
        rng = np.random.default_rng(SEED + k + n)
        a, b = _ratings(rng, n, k=k)
        lo = np.int64(0)
        expected = np.bincount(a * k + b, minlength=k * k).reshape(k, k)
        for got in (
            _kernels.confusion_counts(a, b, lo, k),
            _kernels.confusion_counts_par(a, b, lo, k, 2),
            _kernels.confusion_counts_par(a, b, lo, k, 3),
        ):
            np.testing.assert_array_equal(got[0], expected)
            assert (got[1], got[2]) == (-1, -1)

    @pytest.mark.parametrize("parts", [None, 2])
    def test_first_item_off_the_scale(self, parts):
        a = np.array([0, 1, 2, 3, 1, 9, 0, 7])
        b = np.array([0, 1, 2, 5, 1, 1, 0, 0])
        args = (a, b, np.int64(0), 4)
        got = (
            _kernels.confusion_counts(*args)
            if parts is None
            else (_kernels.confusion_counts_par(*args, parts))
        )
        assert (got[1], got[2]) == (-1, 3)  # b[3] = 5 comes before a[5] = 9


class TestFastPathsGiveTheExactValue:
    """kappa_score's one-pass paths return the oracle's fraction, correctly rounded."""

    @pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, bool])
    def test_quadratic_every_dtype(self, dtype):
        rng = np.random.default_rng(SEED)
        for _ in range(20):
            n = int(rng.integers(2, 80))
            a, b = _ratings(rng, n, k=2 if dtype is bool else 6, dtype=dtype)
            exact = naive_kappa(a, b)
            if exact is not None:
                assert qwkit.kappa_score(a, b) == float(exact)

    def test_narrow_values_beyond_the_int32_fast_path(self):
        a = np.array([0, 300, 30_000, 5], dtype=np.int16)
        b = np.array([1, 299, 29_000, -7], dtype=np.int16)
        exact = float(naive_kappa_on_values(a, b))  # the wide scale, over distinct values
        with pytest.warns(qwkit.ScaleWarning, match="29000 and 30000"):
            assert qwkit.kappa_score(a, b) == exact
        assert qwkit.kappa_score(a, b, labels=range(-7, 30_001)) == exact

    @pytest.mark.parametrize("weights", ["linear", "identity"])
    def test_margins_path(self, weights):
        rng = np.random.default_rng(SEED)
        for _ in range(40):
            n = int(rng.integers(2, 80))
            k = int(rng.integers(1, 9))
            a, b = _ratings(rng, n, k=k)
            exact = naive_kappa(a, b, weights=weights)
            if exact is not None:
                assert qwkit.kappa_score(a, b, weights=weights) == float(exact)
            labels = list(range(-1, k + 2))  # offset labels: positions a + 1
            exact = naive_kappa(a, b, weights=weights, labels=labels)
            if exact is not None:
                got = qwkit.kappa_score(a, b, weights=weights, labels=labels)
                assert got == float(exact)

    def test_margins_path_checks_labels(self):
        with pytest.raises(qwkit.QwkitError, match="contains 6, which is not in `labels`") as e:
            qwkit.kappa_score([1, 2, 6], [1, 2, 3], weights="linear", labels=range(1, 6))
        assert e.value.row == 2
        # a value of 8 or more leaves the margin kernel for the table: same values
        y1, y2 = [0, 9, 3, 8], [1, 8, 3, 9]
        assert qwkit.kappa_score(y1, y2, weights="linear") == float(
            naive_kappa(y1, y2, weights="linear")
        )

    @pytest.mark.parametrize("spread", [1.0, 1e3, 1e12])
    def test_survey_weights_quadratic(self, spread):
        # narrow weights take the moment kernel; widely spread ones the exact table
        rng = np.random.default_rng(SEED)
        for _ in range(25):
            n = int(rng.integers(2, 60))
            a, b = _ratings(rng, n, k=6)
            w = rng.uniform(0.5, 2.0, n) * spread ** rng.uniform(-1, 1, n)
            w[rng.random(n) < 0.1] = 0.0
            if not w.any():
                continue
            exact = naive_kappa(a, b, sample_weight=w.tolist())
            if exact is not None:
                assert qwkit.kappa_score(a, b, sample_weight=w) == float(exact)

    def test_survey_weights_every_path_agrees(self):
        # moment kernel, exact table (labels), accumulator, kappa_test: one value
        rng = np.random.default_rng(SEED)
        a, b = _ratings(rng, 500, k=5)
        w = rng.uniform(0.5, 2.0, 500)
        value = qwkit.kappa_score(a, b, sample_weight=w)
        assert value == float(naive_kappa(a, b, sample_weight=w.tolist()))
        assert qwkit.kappa_score(a, b, sample_weight=w, labels=range(5)) == value
        assert qwkit.kappa_test(a, b, sample_weight=w).statistic == value
        acc = qwkit.KappaAccumulator(range(5))
        acc.update(a[:123], b[:123], sample_weight=w[:123])
        acc.update(a[123:], b[123:], sample_weight=w[123:])
        assert acc.score() == value

    @pytest.mark.parametrize(
        ("w", "message"),
        [
            ([1.0, np.nan, 1.0], "got nan at index 1"),
            ([1.0, -2.0, 1.0], "got -2.0 at index 1"),
            ([1.0, np.inf, 1.0], "got inf at index 1"),
            ([0.0, 0.0, 0.0], "must not sum to zero"),
        ],
    )
    def test_bad_survey_weights_are_reported(self, w, message):
        # the moment kernel validates on the way; its fallback raises the usual error
        with pytest.raises(qwkit.QwkitError, match=message):
            qwkit.kappa_score([0, 1, 2], [0, 2, 2], sample_weight=w)


class TestThreadsChangeNothing:
    @pytest.mark.parametrize("n", EDGE_SIZES)
    def test_every_path_same_bits_with_one_or_two_threads(self, n, monkeypatch):
        rng = np.random.default_rng(SEED + n)
        a, b = _ratings(rng, n)
        a8, b8 = a.astype(np.int8), b.astype(np.int8)
        w = rng.uniform(0.5, 2.0, n)
        cases = [
            lambda: qwkit.kappa_score(a, b),
            lambda: qwkit.kappa_score(a8, b8),
            lambda: qwkit.kappa_score(a, b, weights="linear"),
            lambda: qwkit.kappa_score(a, b, weights="identity"),
            lambda: qwkit.kappa_score(a, b, sample_weight=w),
            lambda: qwkit.kappa_score(a, b, weights=np.eye(5)[::-1] + 1, labels=range(5)),
            lambda: qwkit.confusion_matrix(a, b),
        ]
        before = numba.get_num_threads()
        try:
            numba.set_num_threads(1)
            serial = [f() for f in cases]
            monkeypatch.setattr(_jit, "THREAD_MIN_ITEMS", 0)
            numba.set_num_threads(2)
            threaded = [f() for f in cases]
        finally:
            numba.set_num_threads(before)
        for x, y in zip(serial, threaded, strict=True):
            np.testing.assert_array_equal(x, y)

    def test_threaded_paths_match_the_oracle(self, always_threaded):
        rng = np.random.default_rng(SEED)
        a, b = _ratings(rng, 2 * CHUNK + 3, k=4)
        for weights in ("quadratic", "linear", "identity"):
            exact = naive_kappa(a[:5000], b[:5000], weights=weights)
            assert qwkit.kappa_score(a[:5000], b[:5000], weights=weights) == float(exact)
        expected = np.bincount(a * 4 + b, minlength=16).reshape(4, 4)
        np.testing.assert_array_equal(qwkit.confusion_matrix(a, b), expected)


def _pcg_state(rng: np.random.Generator) -> np.ndarray:
    st = rng.bit_generator.state
    s, inc = st["state"]["state"], st["state"]["inc"]
    m = (1 << 64) - 1
    words = [s >> 64, s & m, inc >> 64, inc & m, st["has_uint32"], st["uinteger"]]
    return np.array(words, dtype=np.uint64)


class TestBootstrapDraws:
    @pytest.mark.parametrize(
        "n", [1, 2, 40, 10**6, 2**32 - 1, 2**32, 2**32 + 1, 3 * 10**9, 2**62 + 5]
    )
    def test_numpy_draws_reproduced(self, n):
        for seed in range(6):
            ref = np.random.default_rng(seed)
            ref.integers(0, 3, seed % 2, dtype=np.uint32)  # leave half an output buffered
            st = _pcg_state(ref)
            expected = ref.integers(0, n, 101)
            after = _pcg_state(ref)
            got = _kernels.pcg64_integers(st, n, 101)
            np.testing.assert_array_equal(got, expected)
            np.testing.assert_array_equal(st, after)  # the state advanced alike

    def _items(self, rng, n, m):
        items = np.empty((n, 2))
        items[:, 0] = rng.uniform(0.5, 2.0, n)
        items[:, 1] = rng.integers(0, m, n)
        return items

    def test_tables_equal_bincount_of_the_draws(self):
        rng = np.random.default_rng(SEED)
        n, m, rows = 3001, 7, 5
        items = self._items(rng, n, m)
        ref = np.random.default_rng(9)
        st = _pcg_state(ref)
        idx = ref.integers(0, n, (rows, n))
        cells = items[:, 1].astype(np.intp)[idx] + (np.arange(rows) * m)[:, None]
        expected = np.bincount(cells.ravel(), weights=items[:, 0][idx].ravel(), minlength=rows * m)
        st_par = st.copy()
        got = _kernels.resample_tables(st, items, m, rows)
        np.testing.assert_array_equal(got, expected.reshape(rows, m))  # the same bits
        np.testing.assert_array_equal(_kernels.gather_tables(idx, items, m), got)
        before = numba.get_num_threads()
        try:
            numba.set_num_threads(2)
            threaded = _kernels.resample_tables_par(st_par, items, m, rows)
        finally:
            numba.set_num_threads(before)
        np.testing.assert_array_equal(threaded, got)
        np.testing.assert_array_equal(st_par, st)  # the generator advanced alike

    def test_other_bit_generators_draw_with_numpy(self):
        # the bootstrap of unequally weighted items equals scipy's with any generator
        rng = np.random.default_rng(SEED)
        a, b = _ratings(rng, 30, k=4)
        w = rng.uniform(0.5, 2.0, 30)
        res = qwkit.kappa_test(a, b, sample_weight=w)
        for make in (np.random.PCG64DXSM, np.random.Philox, np.random.MT19937):

            def stat(i):
                return qwkit.kappa_score(a[i], b[i], sample_weight=w[i], labels=range(4))

            ref = stats.bootstrap(
                (np.arange(30),),
                stat,
                vectorized=False,
                n_resamples=200,
                method="percentile",
                rng=np.random.Generator(make(5)),
            )
            ours = res.confidence_interval(
                method="percentile", n_resamples=200, rng=np.random.Generator(make(5))
            )
            assert ours == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)


_INTERRUPTED = """
import signal, sys
import numpy as np
import qwkit

rng = np.random.default_rng(20261121)
y1 = rng.integers(0, 6, 1_000_000)
y2 = np.clip(y1 + rng.integers(-1, 2, y1.size), 0, 5)
w = rng.uniform(0.5, 2.0, y1.size)  # survey weights: exact tables, kernels returning tuples
qwkit.kappa_score(y1, y2, sample_weight=w)


def run():  # in a function: CPython 3.11 can miss a module-level loop's handler
    while True:
        qwkit.kappa_score(y1, y2, sample_weight=w)


while sys.stdin.readline():
    try:
        print("running", flush=True)
        run()
    except BaseException as exc:
        print(type(exc).__name__, flush=True)
"""


@pytest.mark.usefixtures("default_sigint")
class TestInterrupts:
    """Ctrl-C that lands while a kernel runs is a KeyboardInterrupt, not numba's
    SystemError (``_jit.interruptible``)."""

    def test_every_kernel_is_exported_interruptible(self):
        for name in _kernels.__all__:
            exported = getattr(_kernels, name)
            assert not isinstance(exported, numba.core.dispatcher.Dispatcher), name

    def test_signal_inside_a_kernel(self):
        import ctypes
        import signal

        c_raise = ctypes.CDLL(None)["raise"]
        c_raise.argtypes = [ctypes.c_int]
        c_raise.restype = ctypes.c_int

        @numba.njit
        def pair(out, signum):  # returns two arrays: numba chains two SystemErrors
            if signum:
                c_raise(signum)
            return out.copy(), out.copy()

        pair(np.zeros(1), 0)  # compiled before the signal
        with pytest.raises(SystemError) as raw:
            pair(np.zeros(1), int(signal.SIGINT))
        assert isinstance(raw.value.__cause__.__cause__, KeyboardInterrupt)
        kernel = _jit.interruptible(pair)
        with pytest.raises(KeyboardInterrupt):
            kernel(np.zeros(1), int(signal.SIGINT))
        assert kernel.__wrapped__ is pair and kernel.__name__ == "pair"

    def test_sigint_delivered_to_a_process(self):
        """SIGINT sent to a process that runs a long kernel, five times: each is a
        KeyboardInterrupt (numba made most of them SystemErrors)."""
        import signal
        import subprocess
        import sys
        import time

        process = subprocess.Popen(
            [sys.executable, "-c", _INTERRUPTED],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            caught = []
            for _ in range(5):
                process.stdin.write("go\n")
                process.stdin.flush()
                assert process.stdout.readline() == "running\n"
                time.sleep(0.2)  # well into the loop, where most time is spent in kernels
                process.send_signal(signal.SIGINT)
                caught.append(process.stdout.readline().strip())
            assert caught == ["KeyboardInterrupt"] * 5
        finally:
            process.kill()
            process.wait()
            process.stdin.close()
            process.stdout.close()
