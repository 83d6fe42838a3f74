"""A density given in NEURON's S/cm² where difflab expects mS/cm²: caught by the membrane time constant it implies.

difflab's densities are in mS/cm²; NEURON's `.mod` files and BluePyOpt's parameter files give S/cm². A value copied
from one into the other is 1000× too small. Active channels cannot tell (their densities range over five decades),
but the leak can: with the leak conductance g (mS/cm²) and the specific capacitance c_m (µF/cm²) the resting
membrane's time constant is τ = c_m / g ms. Cells have τ of a few to a few hundred ms (a leak of 3e-5 S/cm², as
in the L5PC, is 0.03 mS/cm²: 33 ms at 1 µF/cm²); the same leak typed as 3e-5 mS/cm² gives 33 s. Above
`MAX_TIME_CONSTANT_MS` the value is taken for S/cm² and a warning says so (a warning, not an error: a nearly
passive membrane can be meant).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.internal import is_concrete
from ._channels import LeakChannel
from .channels.passive import pas

#: Largest resting time constant c_m / g_leak (ms) taken as meant; beyond it the leak looks like S/cm².
MAX_TIME_CONSTANT_MS = 1000.0


def warn_if_leak_in_siemens(channels: Mapping[str, Any], cm: Any, where: str) -> None:
    """Warn when a leak channel's `g` (mS/cm²) with capacitance `cm` (µF/cm²) gives τ = cm / g > 1 s."""
    for key, channel in channels.items():
        if not isinstance(channel, LeakChannel | pas) or not (is_concrete(channel.g) and is_concrete(cm)):
            continue
        g, c = np.broadcast_arrays(np.asarray(channel.g, float), np.asarray(cm, float))
        leaky = g > 0
        if not leaky.any():
            continue
        tau = float(np.max(c[leaky] / g[leaky]))
        if tau > MAX_TIME_CONSTANT_MS:
            smallest = float(np.min(g[leaky]))
            warnings.warn(
                f"{where}channels[{key!r}].g = {smallest:g} mS/cm² gives a resting membrane time constant of "
                f"{tau / 1000:.3g} s (cm / g): difflab's densities are in mS/cm², and this looks like S/cm² "
                f"(NEURON's unit): multiply by 1000",
                UserWarning,
                stacklevel=3,
            )
