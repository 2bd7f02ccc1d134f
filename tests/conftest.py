"""Shared pytest configuration: one Hypothesis profile for the whole suite, and the
longest modules first."""

import signal

import pytest
from hypothesis import HealthCheck, settings

# No per-example deadline: the first call of a numba kernel compiles it (or loads it
# from the cache), which would otherwise trip Hypothesis's timing check.
settings.register_profile(
    "qwkit",
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("qwkit")


#: The modules that take longest (measured, ``--durations``), run first. ``make test``
#: spreads the suite over the cores a file at a time (pytest-xdist, ``--dist
#: loadfile``), in the order of collection: a long module started last would leave the
#: other workers idle while it ends. Run in one process, the order changes nothing.
LONGEST_FIRST = (
    "test_docs_site.py",  # the site's build, its examples run
    "test_release.py",  # the sdist, the wheel, a fresh environment with it
    "test_kappa_score.py",
    "test_dask.py",  # a LocalCluster
    "test_sklearn.py",
    "test_kernels.py",
    "test_cli.py",
    "test_agreement_reference.py",
    "test_cli_outputs.py",
    "test_study_training.py",
    "test_memory_flat.py",  # one limited subprocess
    "test_typing.py",  # mypy on the package: about a minute on a fresh clone
)


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))


@pytest.fixture
def default_sigint():
    """Ctrl-C as Python sets it up (``KeyboardInterrupt``) for the test, whatever an earlier
    test of the same process left: a Spark session installs its own SIGINT handler, which
    cancels its jobs, and keeps it while it runs (the spark tests leave one running)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
