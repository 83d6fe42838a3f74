r"""Rules for the number of compartments (`nseg`) of every section, as NEURON models set them.

- **A number** or **`{region: number}`** (regions absent from the dict get 1).
- **`"d_lambda"`** (or `("d_lambda", d_lambda, f)`, default 0.1 at 100 Hz): NEURON's `d_lambda` rule (Hines &
  Carnevale, *The NEURON Book*, ch. 5), every segment at most `d_lambda` of the AC length constant at `f`:
  $\text{nseg} = 2\,\lfloor (L / (d_\lambda \lambda_f) + 0.9) / 2 \rfloor + 1$ with NEURON's `lambda_f`
  (`stdlib.hoc`) over the 3-D points,
  $\lambda_f = L \big/ \big(\sqrt 2 \cdot 10^{-5} \sqrt{4 \pi f R_a c_m}
  \sum_i (s_i - s_{i-1}) / \sqrt{d_{i-1} + d_i}\big)$
  (µm, with $s$ the arc length and $d$ the diameter in µm, $R_a$ in Ω·cm, $c_m$ in µF/cm², $f$ in Hz). It needs
  `Ra` and `cm`, each a number or `{region: number}`.
- **`("length", ℓ)`**: every segment shorter than ℓ µm, odd, as BluePyOpt's `nseg_frequency`:
  $\text{nseg} = 1 + 2\lfloor L/\ell \rfloor$ (segments are $L/\text{nseg} < \ell$ long).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._morphology import Morphology, Section


def lambda_f(section: Section, frequency: float, Ra: float, cm: float) -> float:
    """NEURON's `lambda_f(frequency)` (µm) of a section from its 3-D points, `Ra` (Ω·cm) and `cm` (µF/cm²)."""
    pts = np.asarray(section.points, float)
    terms = np.diff(section.arc) / np.sqrt(pts[:-1, 3] + pts[1:, 3])
    lam = terms.sum() * math.sqrt(2) * 1e-5 * math.sqrt(4 * math.pi * frequency * Ra * cm)
    return section.L / lam


def apply_nseg(sections: Sequence[Section], nseg: Any, *, Ra: Any = None, cm: Any = None) -> list[Section]:
    """The sections with `nseg` set by a rule (module docstring)."""
    return [dataclasses.replace(s, nseg=_count(s, nseg, Ra, cm)) for s in sections]


def with_nseg(morphology: Morphology, nseg: Any, *, Ra: Any = None, cm: Any = None) -> Morphology:
    """A copy of `morphology` with every section's `nseg` set by a rule.

    Args:
        morphology: the cell's sections.
        nseg: a number, `{region: number}`, `"d_lambda"`, `("d_lambda", d_lambda, frequency_Hz)` or
            `("length", max_segment_length_um)` (module docstring for the formulas).
        Ra: axial resistivity (Ω·cm), a number or `{region: number}`; the `d_lambda` rule needs it.
        cm: specific capacitance (µF/cm²), a number or `{region: number}`; the `d_lambda` rule needs it.

    Raises:
        ValueError: for an unknown rule, a `d_lambda` rule without `Ra` or `cm`, or a region missing from them.
    """
    return Morphology(apply_nseg(morphology.sections, nseg, Ra=Ra, cm=cm))


def _count(sec: Section, nseg: Any, Ra: Any, cm: Any) -> int:
    if isinstance(nseg, bool):
        raise TypeError(f"nseg must be a number, a dict, 'd_lambda' or ('length', um); got {nseg!r}")
    if isinstance(nseg, int | np.integer):
        return int(nseg)
    if isinstance(nseg, dict):
        return int(nseg.get(sec.region, 1))
    if nseg == "d_lambda" or (isinstance(nseg, tuple) and nseg and nseg[0] == "d_lambda"):
        d_lambda, frequency = (0.1, 100.0) if nseg == "d_lambda" else _floats(nseg, 2)
        ra, c = _region_value(Ra, "Ra", sec), _region_value(cm, "cm", sec)
        return int((sec.L / (d_lambda * lambda_f(sec, frequency, ra, c)) + 0.9) / 2) * 2 + 1
    if isinstance(nseg, tuple) and nseg and nseg[0] == "length":
        (length,) = _floats(nseg, 1)
        return 1 + 2 * int(sec.L / length)
    raise ValueError(
        "nseg must be a number, {region: number}, 'd_lambda', ('d_lambda', d_lambda, frequency_Hz) or "
        f"('length', max_segment_length_um); got {nseg!r}"
    )


def _floats(rule: tuple, n: int) -> tuple[float, ...]:
    values = rule[1:]
    if len(values) != n or not all(isinstance(v, int | float) and v > 0 for v in values):
        raise ValueError(f"nseg rule {rule!r}: expected {rule[0]!r} and {n} positive number(s)")
    return tuple(float(v) for v in values)


def _region_value(value: Any, name: str, sec: Section) -> float:
    if value is None:
        raise ValueError(f"nseg='d_lambda' needs {name} (a number or {{region: number}}); got None")
    if isinstance(value, dict):
        if sec.region not in value:
            raise ValueError(f"nseg='d_lambda': {name} has no value for region {sec.region!r}; got {value}")
        value = value[sec.region]
    if not float(value) > 0:
        raise ValueError(f"nseg='d_lambda': {name} must be > 0; got {value}")
    return float(value)
