"""Shared pytest configuration: one Hypothesis profile for the whole suite."""

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
