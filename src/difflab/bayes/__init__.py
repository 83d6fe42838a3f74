"""Bayesian inference: posterior draws (NUTS) of a calibration problem, with R-hat, ESS and divergences."""

from ._posterior import posterior as posterior
from ._sampling import Sampling as Sampling
