"""Real ordinal rating data shipped with qwkit (for the demo, examples and tests)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Literal

import numpy as np

from qwkit._validation import check_choice

__all__ = ["WineQuality", "load_wine_quality"]

_CITATION = (
    "P. Cortez, A. Cerdeira, F. Almeida, T. Matos and J. Reis, 'Modeling wine preferences "
    "by data mining from physicochemical properties', Decision Support Systems 47(4):547-553, "
    "2009. UCI Machine Learning Repository, CC BY 4.0."
)


@dataclass(frozen=True, slots=True, eq=False)
class WineQuality:
    """The wine quality data: features ``X``, integer quality ``y``, and their names."""

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    color: str
    citation: str = _CITATION


def load_wine_quality(color: Literal["red", "white"] = "red") -> WineQuality:
    """Load the UCI wine quality data bundled with qwkit (CC BY 4.0).

    Parameters
    ----------
    color : {"red", "white"}, default="red"
        Which of the two data sets: red (1599 wines, quality 3–8) or white (4898
        wines, quality 3–9).

    Returns
    -------
    WineQuality
        ``X`` float64 array of shape (n, 11), ``y`` int64 array of shape (n,),
        ``feature_names``, ``color`` and ``citation``.

    References
    ----------
    .. [1] P. Cortez, A. Cerdeira, F. Almeida, T. Matos and J. Reis, "Modeling wine
       preferences by data mining from physicochemical properties", Decision Support
       Systems 47(4):547-553, 2009.

    Examples
    --------
    >>> import qwkit
    >>> wine = qwkit.load_wine_quality()
    >>> wine.X.shape, int(wine.y.min()), int(wine.y.max())
    ((1599, 11), 3, 8)
    """
    check_choice(color, "color", ("red", "white"))
    path = resources.files("qwkit") / "data" / f"winequality-{color}.csv"
    with path.open("r", encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
        table = np.loadtxt(fh, delimiter=",", dtype=np.float64)
    return WineQuality(
        X=np.ascontiguousarray(table[:, :-1]),
        y=table[:, -1].astype(np.int64),
        feature_names=tuple(header[:-1]),
        color=color,
    )
