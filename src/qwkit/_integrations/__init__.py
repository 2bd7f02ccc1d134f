"""What the integrations (``qwkit.torch``, ``qwkit.dask``, ``qwkit.lightgbm``,
``qwkit.xgboost``) keep to themselves: each module here is imported only by the
integration it serves, and imports its heavy dependency only through it.
"""
