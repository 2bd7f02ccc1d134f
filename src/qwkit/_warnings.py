"""Warning classes used across qwkit (one place, as scipy and scikit-learn do)."""

from __future__ import annotations

__all__ = ["ConvergenceWarning", "UndefinedKappaWarning"]


class UndefinedKappaWarning(RuntimeWarning):
    """Kappa is 0/0: the expected disagreement is zero.

    This happens when both raters give every item the same single rating (or, with a
    custom weight matrix, whenever every cell of the chance-expected table has zero
    weight). The function returns ``replace_undefined_by`` instead.
    """


class ConvergenceWarning(RuntimeWarning):
    """An iterative computation stopped before reaching its tolerance."""
