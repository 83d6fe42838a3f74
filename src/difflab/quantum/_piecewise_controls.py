r"""Piecewise-constant control schedules and their exact propagator.

With the Hamiltonian $H(t) = H_0 + \sum_k u_k(t)\,H_k$ and controls held constant on each slice,
$u_k(t) = u_{kj}$ for $t_j \le t < t_{j+1}$, the propagator over $[0, T]$ is the ordered product

$$ U(T) = e^{-i H_{m-1} \Delta t_{m-1}} \cdots e^{-i H_1 \Delta t_1}\, e^{-i H_0' \Delta t_0},
   \qquad H_j' = H_0 + \sum_k u_{kj} H_k, \quad \Delta t_j = t_{j+1} - t_j , $$

exact up to round-off: no time step to choose, and its gradient with respect to every $u_{kj}$ is exact too. The
exponentials use `jax.scipy.linalg.expm` (Padé with scaling and squaring) rather than an eigendecomposition, whose
gradient is undefined where levels are degenerate (an undriven transmon's |0> and |1> in the rotating frame).
Units: ħ = 1, times in ns, $u_{kj}$ and $H_0$ in rad/ns, $H_k$ dimensionless. GRAPE is built on this product
(Khaneja et al., J. Magn. Reson. 172, 296 (2005)).
"""

from __future__ import annotations

from collections.abc import Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex, Float

from ..core.internal import check_finite, check_increasing, is_concrete
from ._checks import check_hermitian
from ._drives import Drive
from ._pulses import PiecewiseConstant

#: Relative tolerance on the last edge of a time grid against the duration it must cover.
EDGE_RTOL = 1e-12


class PiecewiseControls(eqx.Module):
    r"""Controls $u_{kj}$ (rad/ns) held constant on the slices $[t_j, t_{j+1})$ of $[0, T]$.

    Args:
        amplitudes: $u_{kj}$, shape (n_controls, n_slices), rad/ns.
        duration: $T$ (ns).
        times: the n_slices + 1 slice edges (ns), strictly increasing from 0 to `duration`; by default equal slices.
    """

    amplitudes: Float[Array, "controls slices"]
    times: Float[Array, " edges"]

    def __init__(self, amplitudes: Float[ArrayLike, "controls slices"], duration: float, *, times=None):
        amplitudes = jnp.asarray(amplitudes, dtype=float)
        if amplitudes.ndim != 2 or 0 in amplitudes.shape:
            raise ValueError(f"amplitudes must have shape (n_controls, n_slices), both >= 1; got {amplitudes.shape}")
        check_finite(amplitudes, "amplitudes")
        if is_concrete(duration) and not (np.ndim(duration) == 0 and 0 < float(duration) < np.inf):
            raise ValueError(f"duration must be a finite time > 0 (ns); got {duration!r}")
        n_slices = amplitudes.shape[1]
        if times is None:
            times = jnp.linspace(0.0, duration, n_slices + 1)
        times = jnp.asarray(times, dtype=float)
        if times.shape != (n_slices + 1,):
            raise ValueError(f"times must hold n_slices + 1 = {n_slices + 1} edges (ns); got shape {times.shape}")
        check_finite(times, "times")
        check_increasing(times, "times")
        if is_concrete(times) and is_concrete(duration):
            first, last = float(times[0]), float(times[-1])
            if first != 0.0 or abs(last - float(duration)) > EDGE_RTOL * float(duration):
                raise ValueError(
                    f"times must cover the duration, from 0 to {float(duration)!r} ns; got edges from {first!r} "
                    f"to {last!r} ns"
                )
        self.amplitudes, self.times = amplitudes, times

    @property
    def duration(self) -> Array:
        """$T$, the last edge (ns)."""
        return self.times[-1]

    @property
    def dt(self) -> Float[Array, " slices"]:
        r"""Slice lengths $\Delta t_j$ (ns)."""
        return jnp.diff(self.times)

    def protocols(self) -> tuple[PiecewiseConstant, ...]:
        """One `PiecewiseConstant` protocol per control (rad/ns), for `Drive` and the ODE solvers."""
        return tuple(PiecewiseConstant(self.times, row) for row in self.amplitudes)

    def drives(self, operators: Sequence) -> list[Drive]:
        r"""`Drive(u_k, H_k)` for each control: the terms $u_k(t) H_k$ of `sesolve`'s `drives`."""
        if len(operators) != self.amplitudes.shape[0]:
            raise ValueError(
                f"operators must hold one operator per control ({self.amplitudes.shape[0]}); got {len(operators)}"
            )
        return [Drive(p, op) for p, op in zip(self.protocols(), operators, strict=True)]


def check_control_system(H0, operators) -> tuple[Array, Array]:
    """`H0` (n, n) and the stacked `operators` (k, n, n) as complex arrays; refuses non-Hermitian or mismatched ones."""
    check_hermitian(H0, "H0")
    H0 = jnp.asarray(H0)
    if H0.ndim != 2:
        raise ValueError(f"H0 must be one Hamiltonian (n, n) in rad/ns; got shape {H0.shape}")
    if isinstance(operators, str) or not isinstance(operators, Sequence) or len(operators) == 0:
        raise ValueError(f"controls must be a non-empty sequence of Hermitian (n, n) operators; got {operators!r}")
    for k, op in enumerate(operators):
        check_hermitian(op, f"controls[{k}]")
        if np.shape(op) != H0.shape:
            raise ValueError(f"controls[{k}] must have the shape of H0 {H0.shape}; got {np.shape(op)}")
    dtype = jnp.result_type(complex)
    return H0.astype(dtype), jnp.stack([jnp.asarray(op).astype(dtype) for op in operators])


def slice_hamiltonians(H0: Array, operators: Array, amplitudes: Array) -> Complex[Array, "slices n n"]:
    r"""$H_j' = H_0 + \sum_k u_{kj} H_k$ of every slice, for traced inputs (complex `H0` and `operators`)."""
    return H0[None] + jnp.einsum("kj,kab->jab", amplitudes.astype(H0.dtype), operators)


def ordered_product(factors: Array) -> Array:
    r"""$F_{m-1} \cdots F_1 F_0$ of square factors (m, N, N): the latest slice on the left."""
    # pairwise products: log2(m) rounds of batched matrix products instead of m sequential ones
    while factors.shape[0] > 1:
        if factors.shape[0] % 2:
            factors = jnp.concatenate([factors, jnp.eye(factors.shape[-1], dtype=factors.dtype)[None]])
        factors = factors[1::2] @ factors[0::2]
    return factors[0]


def product_of_slices(H0: Array, operators: Array, amplitudes: Array, dt: Array) -> Complex[Array, "n n"]:
    r"""$\prod_j e^{-iH_j'\Delta t_j}$ (latest slice on the left) for traced inputs: no checks, complex arrays."""
    hamiltonians = slice_hamiltonians(H0, operators, amplitudes)
    factors = jax.vmap(jax.scipy.linalg.expm)((-1j * dt.astype(H0.dtype))[:, None, None] * hamiltonians)
    return ordered_product(factors)


def piecewise_propagator(
    H0: Complex[ArrayLike, "n n"],
    operators: Sequence[Complex[ArrayLike, "n n"]],
    controls: PiecewiseControls,
) -> Complex[Array, "n n"]:
    r"""$U(T)$ of $H_0 + \sum_k u_k(t) H_k$ under the piecewise-constant `controls` (module docstring).

    Args:
        H0: drift Hamiltonian (n, n), rad/ns, Hermitian.
        operators: the control operators $H_k$ (n, n), dimensionless, Hermitian; one per row of `controls.amplitudes`.
        controls: a `PiecewiseControls` schedule.

    Returns:
        The propagator (n, n), complex; differentiable with respect to `H0`, the amplitudes and the slice edges.
    """
    H0, ops = check_control_system(H0, operators)
    if ops.shape[0] != controls.amplitudes.shape[0]:
        raise ValueError(
            f"operators must hold one operator per control ({controls.amplitudes.shape[0]}); got {ops.shape[0]}"
        )
    return product_of_slices(H0, ops, controls.amplitudes, controls.dt)
