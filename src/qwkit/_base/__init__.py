"""The base floor: what every feature shares, one home each.

Errors and warnings, the optional extras, the atomic file writer, result helpers, exact
numerics (power-of-two scaling, exact integer and dyadic sums), Dinkelbach's loop, least
squares, input validation, the rating scale and the one resolver of ``weights``. Modules
here import only ``qwkit._kernels`` and each other.
"""
