"""Warning classes used across qwkit, and the one way qwkit emits a warning.

:func:`warn` attributes every warning to the first caller outside the qwkit package, so
that ``warnings.filterwarnings`` by module and the line shown with the warning point at
the user's code, however deep inside qwkit the condition was found. A public name that
was renamed keeps working under its old name with a ``FutureWarning`` (shown to every
user, as in scikit-learn; :func:`renamed_parameter`, :func:`renamed_attribute`).
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from types import FrameType

from qwkit._base._errors import QwkitTypeError

__all__ = [
    "ConvergenceWarning",
    "DegenerateIntervalWarning",
    "DesignWarning",
    "ScaleWarning",
    "UndefinedKappaWarning",
    "renamed_attribute",
    "renamed_parameter",
    "warn",
    "warn_undefined",
]

#: The folder of the qwkit package: frames inside it are qwkit's, not the user's.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class UndefinedKappaWarning(RuntimeWarning):
    """Kappa is 0/0: the chance-expected disagreement is zero.

    This happens when both raters give every item the same single rating, or, with a
    custom weight matrix, when every pair of ratings that chance could produce has zero
    disagreement weight. The function returns ``replace_undefined_by`` (nan by default).
    """

    __module__ = "qwkit"  # public as qwkit.<name> (as public_module does)


class DegenerateIntervalWarning(RuntimeWarning):
    """A confidence interval (or standard error) cannot be trusted.

    Issued when an interval has zero width or is undefined — a standard error of exactly
    0, as with one item, perfect agreement on a handful of items, or a constant rater,
    where an interval such as [1, 1] would look certain — and when there are too few
    items for the method (fewer than 10 rated items: no large-sample or resampling
    interval is meaningful there). The interval is still returned.
    """

    __module__ = "qwkit"  # public as qwkit.<name> (as public_module does)


class ScaleWarning(UserWarning):
    """An inferred integer rating scale looks like ratings with missing-value codes.

    Without ``labels`` the scale of integer ratings is every integer from the smallest
    to the largest rating, so a code such as 99 ("not rated") or −1 (a failed
    judgement) counts as a rating far from the others and widens the scale. Issued when
    a few values stand far apart from the others, when one or two negative values sit
    beside non-negative ratings, and — for Gwet's and Brennan–Prediger's coefficients,
    whose chance term counts the categories — when at most half of a wide scale occurs.
    The message names the values; drop the items that carry codes, or pass ``labels``
    to declare the scale (which also silences the warning). The rule is in
    ``docs/kappa.md``, "Missing-value codes".
    """

    __module__ = "qwkit"  # public as qwkit.<name> (as public_module does)


class DesignWarning(UserWarning):
    """The design of the data limits what a result means.

    The computation is sound, but the study behind the data cannot carry the usual
    reading of the result: an Alternative Annotator Test on two annotators judges each
    of them against the other alone, so it compares the judge with one human. The
    message says what the result then means; the result is still returned.
    """

    __module__ = "qwkit"  # public as qwkit.<name> (as public_module does)


class ConvergenceWarning(RuntimeWarning):
    """An iterative computation stopped before reaching its tolerance."""

    __module__ = "qwkit"  # public as qwkit.<name> (as public_module does)


def _outside_caller_level() -> int:
    """``stacklevel`` of the first frame outside the qwkit package, for a warning issued
    by the caller of :func:`warn`."""
    frame: FrameType | None = sys._getframe(2)  # the caller of warn()
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def warn(message: str, category: type[Warning]) -> None:
    """Issue ``message`` as ``category``, attributed to the user's code."""
    warnings.warn(message, category, stacklevel=_outside_caller_level())


def warn_undefined(replace_undefined_by: float, reason: str) -> float:
    """Warn that kappa is 0/0 (``reason`` says why) and return the replacement value."""
    warnings.warn(
        f"Kappa is undefined: the chance-expected disagreement is zero ({reason}). "
        f"Returning `replace_undefined_by`={replace_undefined_by}.",
        UndefinedKappaWarning,
        stacklevel=_outside_caller_level(),
    )
    return replace_undefined_by


#: The release that removes the names deprecated now (two minor releases later: the
#: deprecation policy of CONTRIBUTING.md).
REMOVED_IN = "0.4"


def _renamed(old: str, new: str) -> str:
    return (
        f"`{old}` is deprecated and will be removed in qwkit {REMOVED_IN}; use `{new}` "
        "(the same thing)."
    )


def renamed_parameter(old: str, new: str):
    """Decorator: the keyword argument ``old`` still works as ``new``, with a
    FutureWarning; giving both is a TypeError naming ``new``."""

    def wrap(func):
        @functools.wraps(func)
        def inner(*args, **kwargs):
            if old in kwargs:
                if new in kwargs:
                    raise QwkitTypeError(
                        f"Give `{new}` only; `{old}` is its deprecated name.", parameter=new
                    )
                warn(_renamed(old, new), FutureWarning)
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return inner

    return wrap


def renamed_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` of a class that returns its attribute ``new``, with a
    FutureWarning."""

    def get(self):
        warn(_renamed(old, new), FutureWarning)
        return getattr(self, new)

    return property(get, doc=f"Deprecated alias of ``{new}``.")
