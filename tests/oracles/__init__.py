"""Slow, obviously correct oracles (stumpy's ``tests/naive.py`` style), one module per area:
the tests check the library against them."""
