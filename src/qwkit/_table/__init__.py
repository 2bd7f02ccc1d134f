"""The two-rater table: the sufficient statistic of two raters and inference on it.

Kappa from moments (five sums) and from the K×K table, the mergeable states under the
accumulators and Dask, the present cells of a table and the intervals, tests, bootstrap
and jackknife of a statistic of them. Modules here import ``qwkit._kernels``,
``qwkit._base`` and each other.
"""
