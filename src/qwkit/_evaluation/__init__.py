"""May a machine or an LLM judge stand in for a human rater? Human-machine evaluation
with inference: the degradation test, PRMSE, the standardized mean difference, the
Alternative Annotator Test, Williamson et al.'s criteria as tests, and sample sizes.

The public functions are re-exported flat by ``qwkit``.
"""
