r"""Electrical gap junctions between compartments of different cells of a [`CellNetwork`][difflab.neuron.CellNetwork].

Junction $j$ joins compartment $a$ of cell ``cell_a[j]`` and compartment $b$ of cell ``cell_b[j]`` through a
conductance $g_j$ (µS); the current into $a$ is

$$I_a = g_j\,(V_b - V_a)\ \text{nA}, \qquad I_b = -I_a,$$

which adds $10^5 g_j / A_a$ mS/cm² to compartment $a$'s membrane conductance, with the partner's potential
$V_b$ as its reversal (and the same at $b$). NEURON writes it as a pair of point processes, each with a
``POINTER`` to the other side's ``v`` (``datasets/neuron/mod/gap.mod``).

**In the step.** Each cell's tree is solved on its own, so a junction is implicit in its own side's potential
(part of the Crank–Nicolson membrane term) and takes the partner's predicted midpoint potential (the step's
predictor, second order) as its reversal. That splitting is stable while $10^5 g_j h / (A\,c_m) \le 1$ on both
sides; the network's default step keeps it so, and a longer step is refused by name. Against the closed form of two
passive compartments its error is that of Crank–Nicolson on the pair's difference mode (relaxing at
$(g_L + 2\cdot 10^5 g/A)/c_m$): 2e-4 mV at 0.025 ms for 0.16 mS/cm² of junction, falling 4× per halving
(`tests/neuron/test_cell_network.py`).
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike


class GapJunctions(eqx.Module):
    """Gap junctions: ``g`` µS between ``where_a`` of cell ``cell_a`` and ``where_b`` of cell ``cell_b``.

    Args:
        cell_a, cell_b: cell indices of the two sides (1-D, one per junction; a side may not join itself).
        where_a, where_b: locations on those cells (``"dend(0.9)"``, inside a section: ``0 < x < 1``), one for all
            junctions or one per junction.
        g: conductance (µS, ``>= 0``), a scalar or one per junction.

    Example: ``GapJunctions(cell_a=[1], where_a="dend(0.9)", cell_b=[3], where_b="dend(0.3)", g=0.005)``.
    """

    g: Array
    cell_a: tuple[int, ...] = eqx.field(static=True)
    cell_b: tuple[int, ...] = eqx.field(static=True)
    where_a: tuple[str, ...] = eqx.field(static=True)
    where_b: tuple[str, ...] = eqx.field(static=True)

    def __init__(self, cell_a, where_a, cell_b, where_b, g: ArrayLike):
        a, b = np.asarray(cell_a), np.asarray(cell_b)
        if a.ndim != 1 or b.shape != a.shape or a.size == 0 or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(
                f"cell_a and cell_b must be 1-D integer arrays of one length >= 1; got shapes {a.shape}, {b.shape}"
            )
        n = a.size
        self.cell_a, self.cell_b = tuple(int(i) for i in a), tuple(int(i) for i in b)
        self.where_a, self.where_b = _locations(where_a, n, "where_a"), _locations(where_b, n, "where_b")
        values = np.asarray(g, dtype=float)
        if values.shape not in ((), (n,)):
            raise ValueError(f"g must be a scalar or one value per junction ({n}); got shape {values.shape}")
        if not np.isfinite(values).all() or (values < 0).any():
            raise ValueError(f"g must be finite and >= 0 uS (a junction's conductance); got {values.min():g}")
        self.g = jnp.broadcast_to(jnp.asarray(g, dtype=float), (n,))

    def __len__(self) -> int:
        return len(self.cell_a)

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """``g`` >= 0 µS: one flag for all junctions, shown with the smallest value (the model checks finiteness)."""
        return {"g must be >= 0 uS": (~jnp.any(self.g < 0, axis=-1), jnp.min(self.g, axis=-1))}


def _locations(where, n: int, name: str) -> tuple[str, ...]:
    """One location string per junction, from one string or a sequence of ``n``."""
    if isinstance(where, str):
        return (where,) * n
    where = tuple(where)
    if len(where) != n or not all(isinstance(w, str) for w in where):
        raise ValueError(f"{name} must be a location like 'dend(0.5)' or {n} of them (one per junction); got {where!r}")
    return where
