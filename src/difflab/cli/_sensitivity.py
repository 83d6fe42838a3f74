"""The `[sensitivity]` table of `difflab sweep CONFIG.toml`: Sobol' indices, Morris screening or DGSM.

In place of `[design]`, a config may hold

    [sensitivity]
    method = "sobol"            # or "morris" / "dgsm"
    n = 256                     # sobol: base rows (n (d + 2) solves); dgsm: points; morris: use r
    r = 20                      # morris: trajectories (r (d + 1) solves); levels = 4
    seed = 0                    # resamples = 1000, confidence = 0.95
    [sensitivity.bounds]
    gNa = [100.0, 140.0]

The chunks go to `[output] directory` as for any sweep (a rerun skips finished ones); the indices are written
next to them as `indices.nc`.
"""

from __future__ import annotations

from typing import Any

from ._common import check_keys, config_float, config_int, required

_KEYS = {
    "sobol": {"n", "seed", "resamples", "confidence"},
    "morris": {"r", "levels", "seed", "confidence"},
    "dgsm": {"n", "seed", "resamples", "confidence"},
}


def sensitivity_call(spec: dict[str, Any]):
    """`(method, bounds, keywords)` from the `[sensitivity]` table: the function of `difflab.sensitivity` to call."""
    from difflab import sensitivity

    method = spec.get("method", "sobol")
    if method not in _KEYS:
        raise ValueError(f"[sensitivity] method must be 'sobol', 'morris' or 'dgsm'; got {method!r}")
    check_keys(spec, {"method", "bounds"} | _KEYS[method], f"sensitivity (method {method!r})")
    bounds = {}
    for name, pair in required(spec, "bounds", "sensitivity").items():
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"[sensitivity.bounds] {name} must be [low, high]; got {pair!r}")
        bounds[name] = (float(pair[0]), float(pair[1]))
    keywords: dict[str, Any] = {}
    for key in _KEYS[method]:
        if key == "confidence":
            keywords[key] = config_float(spec, key, "sensitivity", 0.95)
        elif key in spec:
            keywords[key] = config_int(spec, key, "sensitivity", 0, minimum=0)
    functions = {"sobol": sensitivity.sobol_indices, "morris": sensitivity.morris, "dgsm": sensitivity.dgsm}
    return functions[method], bounds, keywords
