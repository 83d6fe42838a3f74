"""Bayesian inference: posterior draws (NUTS) of a calibration problem, with R-hat, ESS and divergences."""

from ._arviz import as_inference_data as as_inference_data
from ._posterior import posterior as posterior
from ._sampling import Sampling as Sampling
