"""scikit-learn estimators and scorers for quadratic weighted kappa (docs/sklearn.md).

``import qwkit`` never imports this module; ``import qwkit.sklearn`` imports
scikit-learn (``pip install 'qwkit[sklearn]'``).

- :class:`KappaRegressor` — the kappa-optimal linear model (:func:`qwkit.kappa_regression`)
  as a scikit-learn regressor; ``score`` is the soft quadratic weighted kappa.
- :class:`OptimalRounder` — fits any regressor, then the exact kappa-optimal cut points
  (:func:`qwkit.optimize_thresholds`) on its *out-of-fold* scores, and predicts classes;
  ``score`` is the weighted kappa of those classes.
- :data:`kappa_scorer` (for class predictions) and :data:`soft_kappa_scorer` (for
  real-valued predictions), for ``scoring=`` in ``cross_val_score`` or ``GridSearchCV``.
"""

from __future__ import annotations

# ruff: noqa: E402 - the optional dependency is checked before anything imports it
from qwkit._base._extras import require

require("sklearn", feature="qwkit.sklearn", package="scikit-learn", extra="sklearn", minimum="1.6")

import numpy as np
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.metrics import make_scorer
from sklearn.model_selection import check_cv, cross_val_predict
from sklearn.utils import assert_all_finite, get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_is_fitted,
    column_or_1d,
    has_fit_parameter,
    validate_data,
)

from qwkit import (
    apply_thresholds,
    kappa_regression,
    kappa_score,
    optimize_thresholds,
    soft_kappa_score,
)
from qwkit._base._errors import QwkitError
from qwkit._base._item_weights import item_weights
from qwkit._base._items import paired
from qwkit._base._scale import declared_order, positions_on_scale
from qwkit._base._validation import show
from qwkit._base._weights import check_weights, resolve

__all__ = ["KappaRegressor", "OptimalRounder", "kappa_scorer", "soft_kappa_scorer"]

#: Weighted kappa of class predictions, quadratic weights, qwkit's scale rule
#: (integers: every integer between the smallest and largest rating). Real-valued
#: predictions raise a ValueError: use `soft_kappa_scorer`, or `OptimalRounder`.
kappa_scorer = make_scorer(kappa_score, weights="quadratic")

#: Soft (continuous) quadratic weighted kappa of real-valued predictions
#: (:func:`qwkit.soft_kappa_score`): what :class:`KappaRegressor` maximizes.
soft_kappa_scorer = make_scorer(soft_kappa_score)


# ---------------------------------------------------------------------------- KappaRegressor


class KappaRegressor(RegressorMixin, BaseEstimator):
    """The linear model that maximizes soft quadratic weighted kappa, as an estimator.

    A scikit-learn wrapper of :func:`qwkit.kappa_regression`: least squares (or ridge)
    on centered data, stretched to the standard deviation of the target — the closed
    form maximum of the continuous quadratic weighted kappa over linear models.

    Parameters
    ----------
    alpha : float, default=0.0
        Ridge penalty on the coefficients (never on the intercept). It chooses the
        direction of the model only; the scale is then the kappa-optimal one.
    fit_intercept : bool, default=True
        Fit an intercept.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Coefficients.
    intercept_ : float
        Intercept (0.0 with ``fit_intercept=False``). ``predict`` computes the same
        model as ``ȳ + (X − x̄) @ coef_`` with the weighted means of the fit, which
        keeps full precision for features far from zero (see
        :meth:`qwkit.KappaRegressionResult.predict`).
    statistic_ : float
        In-sample soft quadratic weighted kappa of the fitted model.
    rank_ : int
        Numerical rank of the (centered, weighted) design.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of the features seen in ``fit``, when ``X`` had string column names.

    See Also
    --------
    qwkit.kappa_regression : the function this estimator fits.
    OptimalRounder : round the scores of any regressor to classes with exact
        kappa-optimal thresholds.

    Notes
    -----
    ``score`` returns the **soft quadratic weighted kappa**
    (:func:`qwkit.soft_kappa_score`), not scikit-learn's default R², so that
    ``cross_val_score(KappaRegressor(), X, y)`` and ``GridSearchCV`` without
    ``scoring`` measure what the model maximizes. The two disagree on purpose: the
    kappa-optimal model is the least-squares fit scaled by 1/r (r the in-sample
    correlation), whose R² is 2r − 1 ≤ r², lower than that of least squares. For R²
    pass ``scoring="r2"``.

    Examples
    --------
    >>> import numpy as np
    >>> from qwkit.sklearn import KappaRegressor
    >>> X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 1.0], [4.0, 3.0], [5.0, 2.0]])
    >>> y = np.array([1, 1, 2, 3, 3])
    >>> model = KappaRegressor().fit(X, y)
    >>> round(model.score(X, y), 6)
    0.961769
    >>> model.predict(X[:2]).round(6)
    array([0.700312, 1.428137])
    """

    def __init__(self, alpha=0.0, fit_intercept=True):
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def fit(self, X, y, sample_weight=None):
        """Fit the kappa-optimal linear model.

        Parameters
        ----------
        X : array-like of shape (n_items, n_features)
            Features.
        y : array-like of shape (n_items,)
            Ratings (integers or reals), with at least two distinct values.
        sample_weight : array-like of shape (n_items,), default=None
            Non-negative item weights; integer weights act as repeated rows.

        Returns
        -------
        self : KappaRegressor
        """
        X, y, sample_weight = paired((X, y, sample_weight), ("X", "y", "sample_weight"))
        X, y = validate_data(self, X, y, y_numeric=True, ensure_min_samples=2, dtype=np.float64)
        result = kappa_regression(
            X,
            y,
            alpha=self.alpha,
            fit_intercept=self.fit_intercept,
            sample_weight=sample_weight,
        )
        self.coef_ = np.array(result.coef)  # a writeable copy, like scikit-learn's models
        self.intercept_ = result.intercept
        self.statistic_ = result.statistic
        self.rank_ = result.rank
        self._result = result  # predicts with the fit's weighted means (full precision)
        return self

    def predict(self, X):
        """Real-valued predictions ``X @ coef_ + intercept_`` (computed centered).

        Parameters
        ----------
        X : array-like of shape (n_items, n_features)

        Returns
        -------
        ndarray of shape (n_items,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self._result.predict(X)

    def score(self, X, y, sample_weight=None):
        """Soft quadratic weighted kappa of ``predict(X)`` against `y` (not R²).

        Parameters
        ----------
        X : array-like of shape (n_items, n_features)
        y : array-like of shape (n_items,)
            True ratings.
        sample_weight : array-like of shape (n_items,), default=None

        Returns
        -------
        float
            :func:`qwkit.soft_kappa_score` of the predictions.
        """
        X, y, sample_weight = paired((X, y, sample_weight), ("X", "y", "sample_weight"))
        return soft_kappa_score(y, self.predict(X), sample_weight=sample_weight)


# ---------------------------------------------------------------------------- OptimalRounder


def _ratings_scale(y, labels):
    """Ratings → (regression target, the ordered scale): the ratings themselves when
    are increasing numbers, their positions 0..K−1 on the scale otherwise (strings, or
    a declared order that is not increasing)."""
    # text classes without `labels` are taken in sorted order (scikit-learn's `classes_`)
    codes, scale = positions_on_scale(y, labels, "y", ordered=False)
    numeric = scale.dtype.kind in "biuf" and bool(np.all(scale[1:] > scale[:-1]))
    target = scale[codes].astype(np.float64) if numeric else codes.astype(np.float64)
    return target, codes, scale


class OptimalRounder(ClassifierMixin, BaseEstimator):
    """A regressor's scores rounded to classes by exact kappa-optimal thresholds.

    Fits `estimator` to the ratings, collects its **out-of-fold** predictions with
    ``cross_val_predict``, finds the cut points that maximize the weighted kappa of the
    rounded out-of-fold predictions (:func:`qwkit.optimize_thresholds`: the global
    optimum, not Nelder–Mead), refits `estimator` on all the data, and predicts the
    class of ``estimator_.predict(X)`` under those cut points. It replaces the Kaggle
    ``OptimizedRounder``. Fitting the thresholds on out-of-fold scores gives them the
    spread of scores on new items, and makes ``threshold_result_.statistic`` free of the
    regressor's in-sample optimism (though not of the cut points' own: see
    :func:`qwkit.optimism_corrected_kappa`); in the study of ``docs/training.md`` it did
    not by itself improve held-out kappa over cut points fitted in-sample.

    Parameters
    ----------
    estimator : regressor, default=None
        Any scikit-learn regressor (an object with ``fit`` and ``predict`` returning
        real scores; larger means a higher class). It is cloned. None means
        :class:`KappaRegressor()`. The regressor is fitted on the ratings themselves
        when they are numbers in increasing order on the scale, and on their positions
        0, …, K − 1 on the scale otherwise (strings, or a scale such as [3, 1, 2]).
    weights : {"quadratic", "linear", "identity", "radical", "circular", "bipolar"}, \
None or array-like of shape (K, K), default="quadratic"
        Disagreement weights of the kappa the thresholds maximize and ``score``
        reports, indexed ``[true class, predicted class]``.
    labels : array-like of shape (K,), default=None
        The ordered rating scale. When None: the declared order of an ordered pandas
        Categorical or polars Enum ``y``; otherwise integer ratings span every integer
        from the smallest to the largest (qwkit's rule; a middle rating that never
        occurs is still a class), other ratings are taken in sorted order.
    cv : int, cross-validation generator, iterable of splits or None, default=5
        How the scores for fitting thresholds are obtained. An int is a
        ``StratifiedKFold`` on the ratings (no shuffling; scikit-learn's rule for
        classifiers); a splitter or an iterable of (train, test) index arrays that
        partition the data is used as is. None fits thresholds on the in-sample
        predictions of the single fit (fast, but optimistic for flexible models).
        For an estimator fitted elsewhere, wrap it in
        ``sklearn.frozen.FrozenEstimator`` and pass ``cv=None``: it is then never
        refitted and the thresholds are fitted on the data given to ``fit``.

    Attributes
    ----------
    estimator_ : estimator
        The regressor fitted on all the data.
    classes_ : ndarray of shape (K,)
        The rating scale (``labels``, or the one derived from ``y``).
    thresholds_ : ndarray of shape (K − 1,)
        Non-decreasing cut points on the regressor's scores (see
        :func:`qwkit.apply_thresholds`).
    threshold_result_ : ThresholdResult
        The full result of :func:`qwkit.optimize_thresholds`; its ``statistic`` is the
        kappa of the rounded out-of-fold scores and ``certificate`` proves global
        optimality. The out-of-fold scores remove the regressor's optimism, not that
        of the cut points, which were fitted to those same scores: for an honest
        estimate pass the out-of-fold scores to :func:`qwkit.optimism_corrected_kappa`
        (see Examples).
    oof_score_ : ndarray of shape (n_items,)
        The scores the thresholds were fitted on: out of fold (in-sample with
        ``cv=None``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of the features seen in ``fit``, when ``X`` had string column names.

    See Also
    --------
    qwkit.optimize_thresholds : the exact thresholds.
    qwkit.optimism_corrected_kappa : the kappa the cut points will have on new data.
    KappaRegressor : the default regressor.

    Notes
    -----
    A classifier for scikit-learn (``predict`` returns values of ``classes_``), with
    two departures from ``ClassifierMixin``: ``score`` is the weighted kappa of the
    predictions (with `weights` and ``labels=classes_``), not accuracy, and
    ``classes_`` is the whole rating scale, which can contain integer ratings absent
    from ``y`` (then never predicted unless the thresholds say so). It has no
    ``decision_function`` (whose shape scikit-learn fixes for multiclass problems);
    :meth:`predict_score` returns the continuous scores the thresholds cut.

    ``X`` is passed to `estimator` unchanged (data frames keep their columns); the
    estimator validates it. ``sample_weight`` given to ``fit`` goes to the estimator's
    ``fit`` (which must accept it) in every fold and in the refit, and to the thresholds,
    whether or not scikit-learn's metadata routing is enabled: routing requests set on
    the inner estimator are not consulted. Under routing, a meta-estimator passes
    ``sample_weight`` to this one after ``set_fit_request(sample_weight=True)``
    (and to ``score`` after ``set_score_request(sample_weight=True)``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from qwkit.sklearn import OptimalRounder
    >>> rng = np.random.default_rng(20261121)
    >>> X = rng.normal(size=(200, 3))
    >>> y = np.clip(np.round(1.5 + X @ [1.0, 0.5, 0.0] + rng.normal(size=200)), 0, 4)
    >>> model = OptimalRounder(LinearRegression()).fit(X, y)
    >>> model.classes_
    array([0, 1, 2, 3, 4])
    >>> model.predict(X[:5])
    array([2, 3, 0, 1, 0])
    >>> round(model.threshold_result_.statistic, 6)  # kappa of the rounded out-of-fold scores
    0.709385
    >>> round(model.score(X, y), 6)
    0.701948

    How well will the cut points do on new data? The same out-of-fold scores, with the
    cut points refitted on cross-validation folds of them:

    >>> import qwkit
    >>> honest = qwkit.optimism_corrected_kappa(y, model.oof_score_, rng=0)
    >>> round(honest.apparent, 6), round(honest.statistic, 6)
    (0.709385, 0.645859)
    """

    def __init__(self, estimator=None, *, weights="quadratic", labels=None, cv=5):
        self.estimator = estimator
        self.weights = weights
        self.labels = labels
        self.cv = cv

    def _base_estimator(self):
        if self.estimator is None:
            return KappaRegressor()
        if not (hasattr(self.estimator, "fit") and hasattr(self.estimator, "predict")):
            raise TypeError(
                "`estimator` must be a scikit-learn regressor with `fit` and `predict`; "
                f"got {self.estimator!r}."
            )
        return self.estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # One real score cut into ordered intervals cannot separate classes that are not
        # ordered along some direction: scikit-learn's accuracy test on make_blobs'
        # unordered 3-class problem (> 0.83) does not apply to an ordinal model.
        tags.classifier_tags.poor_score = True
        try:
            inner = get_tags(self._base_estimator()).input_tags
        except TypeError:  # a bad `estimator` is reported by fit, not by tags
            return tags
        tags.input_tags.sparse = inner.sparse
        tags.input_tags.allow_nan = inner.allow_nan
        tags.input_tags.categorical = inner.categorical
        tags.input_tags.string = inner.string
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit the regressor, the thresholds on its out-of-fold scores, and refit.

        Parameters
        ----------
        X : array-like of shape (n_items, n_features)
            Features, in whatever form `estimator` accepts.
        y : array-like of shape (n_items,)
            Ratings (integers or strings; any values of `labels` when given), with
            at least two classes of positive weight.
        sample_weight : array-like of shape (n_items,), default=None
            Non-negative item weights, passed to the regressor's ``fit`` and to the
            thresholds.

        Returns
        -------
        self : OptimalRounder
        """
        X, y, sample_weight = paired((X, y, sample_weight), ("X", "y", "sample_weight"))
        # an ordered pandas Categorical / polars Enum: its declared order is the scale
        labels = self.labels if self.labels is not None else declared_order((y,), ("y",))
        X, y = validate_data(self, X, y, skip_check_array=True)
        y = column_or_1d(y, warn=True)
        assert_all_finite(y, input_name="y")  # before type_of_target casts NaN to int
        if labels is None:
            check_classification_targets(y)
        base = self._base_estimator()
        weights = check_weights(self.weights)  # fail before any fitting
        if isinstance(self.cv, str):
            raise ValueError(
                "`cv` must be an int, a cross-validation splitter, an iterable of splits or "
                f"None; got {self.cv!r}. For a prefit estimator wrap it in "
                "sklearn.frozen.FrozenEstimator and pass cv=None."
            )
        target, codes, scale = _ratings_scale(y, labels)
        # a matrix must match the scale, before any fit
        resolve(weights, scale.shape[0], scale="the rating scale of `y`")
        sw = item_weights(sample_weight, None, y.shape[0]).as_float()
        present = np.bincount(codes, weights=sw, minlength=scale.shape[0]) > 0
        if np.count_nonzero(present) < 2:
            raise QwkitError(
                "`y` must contain at least two classes (of positive `sample_weight`); got "
                f"one class: {show(scale[present])}.",
                parameter="y",
            )
        fit_params = {}
        if sw is not None:
            if not has_fit_parameter(base, "sample_weight"):
                raise TypeError(
                    f"`estimator` {type(base).__name__} does not accept `sample_weight` in "
                    "fit; fit without weights or choose an estimator that takes them."
                )
            fit_params["sample_weight"] = sw

        if self.cv is None:
            estimator = clone(base).fit(X, target, **fit_params)
            scores = estimator.predict(X)
        else:
            cv = check_cv(self.cv, y, classifier=True)
            # `sample_weight` goes to every fold's fit whatever the global
            # enable_metadata_routing setting (as to the refit below)
            with config_context(enable_metadata_routing=False):
                scores = cross_val_predict(clone(base), X, target, cv=cv, params=fit_params)
            estimator = clone(base).fit(X, target, **fit_params)
        scores = np.asarray(scores, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(scores)):
            which = "in-sample" if self.cv is None else "out-of-fold"
            raise ValueError(
                f"`estimator` {type(base).__name__} returned NaN or infinite {which} "
                "predictions; thresholds need finite scores."
            )
        result = optimize_thresholds(
            y, scores, labels=scale, weights=self.weights, sample_weight=sw
        )
        self.estimator_ = estimator
        self.classes_ = np.array(result.labels)  # writeable copies, never `labels` itself
        self.thresholds_ = np.array(result.thresholds)
        self.threshold_result_ = result
        self.oof_score_ = scores
        return self

    def predict_score(self, X):
        """The refitted regressor's continuous scores, before thresholding.

        Parameters
        ----------
        X : array-like of shape (n_items, n_features)

        Returns
        -------
        ndarray of shape (n_items,)
        """
        check_is_fitted(self)
        # Feature names and the number of features are checked here; shape and dtype
        # by the fitted estimator (which says "Reshape your data" for 1-D X).
        X = validate_data(self, X, reset=False, skip_check_array=True, ensure_2d=False)
        expected = getattr(self, "n_features_in_", None)
        if expected is not None and len(getattr(X, "shape", ())) == 2:
            if X.shape[1] != expected:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{expected} features as input."
                )
        return np.asarray(self.estimator_.predict(X), dtype=np.float64).reshape(-1)

    def predict(self, X):
        """Classes (values of ``classes_``) of the thresholded scores.

        Parameters
        ----------
        X : array-like of shape (n_items, n_features)

        Returns
        -------
        ndarray of shape (n_items,)
        """
        return apply_thresholds(self.predict_score(X), self.thresholds_, labels=self.classes_)

    def score(self, X, y, sample_weight=None):
        """Weighted kappa (with `weights`, on the scale ``classes_``) of ``predict(X)``.

        Parameters
        ----------
        X : array-like of shape (n_items, n_features)
        y : array-like of shape (n_items,)
            True ratings, values of ``classes_``.
        sample_weight : array-like of shape (n_items,), default=None

        Returns
        -------
        float
            :func:`qwkit.kappa_score` of the predictions (not accuracy).
        """
        X, y, sample_weight = paired((X, y, sample_weight), ("X", "y", "sample_weight"))
        return kappa_score(
            y,
            self.predict(X),
            weights=self.weights,
            labels=self.classes_,
            sample_weight=sample_weight,
        )
