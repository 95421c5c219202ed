"""Surrogate models over encoded configurations: arrays in, arrays out.

``domain`` describes the columns of the unit-cube encoding; ``gp`` holds the
Gaussian process. Nothing here knows configurations, studies or storage.
"""
