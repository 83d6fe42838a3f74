"""Units of measured data: convert the common scalings of a model's unit, refuse the rest.

A recording in volts fitted as if it were in millivolts gives parameters off by orders of
magnitude with no error. Data variables (and their `time` coordinate) that carry a `units`
attribute are therefore converted to the model's units when the two differ only by an SI prefix
of the same base unit (V, mV, µV; s, ms, µs, ns; A/cm², mA/cm², µA/cm²), and refused otherwise.
Data without a `units` attribute are taken to be in the model's units.
"""

from __future__ import annotations

#: SI prefixes as written in units attributes (`u` and `µ`/`μ` both mean micro).
_PREFIX = {"": 1.0, "k": 1e3, "m": 1e-3, "u": 1e-6, "µ": 1e-6, "μ": 1e-6, "n": 1e-9, "p": 1e-12}
#: Base units that difflab's models use, with the spellings that mean them.
_BASES = {"V": "V", "volt": "V", "volts": "V", "s": "s", "sec": "s", "second": "s", "seconds": "s",
          "A/cm^2": "A/cm^2", "A/cm2": "A/cm^2", "A cm-2": "A/cm^2", "1": "1"}  # fmt: skip


def _parse(units: str) -> tuple[float, str] | None:
    """`(factor to the base unit, base)` of a units string, or `None` when it is not understood."""
    text = units.strip()
    if text in _BASES:
        return 1.0, _BASES[text]
    for prefix, factor in _PREFIX.items():
        if prefix and text.startswith(prefix) and text[len(prefix) :] in _BASES:
            return factor, _BASES[text[len(prefix) :]]
    return None


def conversion_factor(got: str, want: str, name: str) -> float:
    """The factor that turns values in `got` units into `want` units; `ValueError` naming `name` if none.

    An empty `got` (no units attribute) or `want` (the model declares none) means 1.
    """
    if not got.strip() or not want.strip() or got.strip() == want.strip():
        return 1.0
    a, b = _parse(got), _parse(want)
    if a is None or b is None or a[1] != b[1]:
        raise ValueError(
            f"{name} is in {got!r} but the model expects {want!r}: convert it, or set its units attribute to "
            f"{want!r} if the numbers already are"
        )
    return a[0] / b[0]
