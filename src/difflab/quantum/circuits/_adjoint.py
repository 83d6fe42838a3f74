r"""The energy $E(\theta) = \langle\psi(\theta)|H|\psi(\theta)\rangle$ of a circuit, with an adjoint-method gradient.

For $|\psi\rangle = U_m \cdots U_1 |\psi_0\rangle$ reverse mode (backprop) keeps every intermediate state for the
backward pass: hundreds of state vectors for an ansatz of a few layers (236 at 20 qubits and one layer), which rules
out 24 qubits on a machine of tens of GiB. The adjoint method (Jones & Gacon, arXiv:2009.02823; Luo et al.,
Quantum 4, 341 (2020)) needs none of them: the gates are unitary, so the backward pass runs them in reverse and
*uncomputes* the state, $|\psi_{k-1}\rangle = U_k^\dagger|\psi_k\rangle$, while carrying the cotangent
$\lambda_{k-1} = U_k^T \lambda_k$ back from $\lambda_m = \partial E/\partial\psi_m$ (JAX's convention:
$2\,\overline{H\psi}$). Memory stays at a few state vectors whatever the depth; the time is about twice a forward
pass plus one reduction per parameter.

Parameter cotangents. With $K$ the matrix a gate contracts with the state (its *kernel*, see `AbstractGate`),
$\psi_{\rm out} = K\psi_{\rm in}$ on the kernel's axes and the JAX cotangent of $K$ is
$\bar K_{ij} = \sum \lambda_i\,\psi_{{\rm in},j}$, summed over all other axes. A real scalar leaf $p$ of the gate
with $D = \partial K/\partial p$ then gets
$\bar p = \mathrm{Re}\sum_{ij}\bar K_{ij} D_{ij} = \mathrm{Re}\sum_b \lambda_b\,(Q\psi_{\rm out})_b$ with
$Q = D K^\dagger$: one fused pass over two states per parameter, computed from the state *after* the gate (for a
rotation $e^{-i\theta P/2}$, $Q = -\tfrac i2 P$). Gates with other leaves (a `Unitary`'s matrix) form $\bar K$ by
one contraction and pass it through `jax.vjp` of `kernel()`. Both are exactly the chain rule, so the gradient equals
backprop's to round-off; uncomputing adds round-off of order $10^{-16}$ per gate.

Limits: the gradient is a `jax.custom_vjp`, so forward mode (`jax.jvp`, `jax.jacfwd`, `jax.hessian`) does not run
through it; use `gradient="backprop"` there. Non-unitary gates (a `PulseGate` with leakage) cannot be uncomputed;
`gradient="auto"` uses backprop for circuits holding one.
"""

from __future__ import annotations

from typing import Literal

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ._apply import apply_matrix, dagger, view_shape
from ._circuit import Circuit, _check_ket, zero_state
from ._fusion import Fused, fused_program
from ._gates import AbstractGate
from ._pauli import PauliSum, apply_sum, expectation, term_values
from ._schedule import Segment, apply_segments, layer_stack, plan

#: Largest number of real scalar leaves of a gate whose cotangents are computed one reduction each (more: one
#: contraction for the whole kernel cotangent).
MAX_DIRECTIONS = 4

Gradient = Literal["auto", "adjoint", "backprop"]


def energy(
    hamiltonian: PauliSum, circuit: Circuit, psi0: ArrayLike | None = None, *, gradient: Gradient = "auto"
) -> Array:
    r"""$\langle\psi|H|\psi\rangle$ for the state $|\psi\rangle$ of `circuit` from `psi0` (default |0…0⟩).

    The value equals `expectation(hamiltonian, circuit.statevector(psi0))`; what differs is the gradient.

    Args:
        hamiltonian: a `PauliSum` on the circuit's wires (real coefficients, units of energy).
        circuit: a `Circuit` without channels.
        psi0: initial state vector (2ⁿ,), normalised.
        gradient: `"adjoint"` (reverse mode by uncomputing the state, memory of a few state vectors; the
            cotangents of every gate leaf, the coefficients and `psi0` are returned), `"backprop"` (JAX's own
            reverse or forward mode through the simulation; needed for `jax.jvp`, `jax.jacfwd`, `jax.hessian`),
            or `"auto"` (default: adjoint when every gate is unitary and its leaves are floating-point arrays,
            backprop otherwise).
    """
    if not isinstance(hamiltonian, PauliSum):
        raise TypeError(f"hamiltonian must be a PauliSum; got {type(hamiltonian).__name__}")
    if not isinstance(circuit, Circuit):
        raise TypeError(f"circuit must be a Circuit; got {type(circuit).__name__}")
    n = circuit.n_wires
    if hamiltonian.n_wires != n:
        raise ValueError(f"hamiltonian acts on {hamiltonian.n_wires} wires but circuit has {n}")
    circuit._check_pure()
    if gradient not in ("auto", "adjoint", "backprop"):
        raise ValueError(f"gradient must be 'auto', 'adjoint' or 'backprop'; got {gradient!r}")
    psi = zero_state(n) if psi0 is None else _check_ket(psi0, n)
    blocker = _adjoint_blocker(circuit)
    if gradient == "adjoint" and blocker:
        raise ValueError(f"gradient='adjoint' cannot run this circuit: {blocker}; use gradient='backprop'")
    if gradient == "backprop" or blocker:
        return expectation(hamiltonian, circuit.statevector(psi))
    return _adjoint_energy(circuit, hamiltonian, psi)


def _adjoint_blocker(circuit: Circuit) -> str:
    """Why the adjoint method cannot differentiate `circuit` ('' when it can)."""
    for i, op in enumerate(circuit.operations):
        if not op.unitary:
            return f"operations[{i}] ({type(op).__name__}) is not unitary"
        if not all(eqx.is_inexact_array(x) for x in jax.tree_util.tree_leaves(op)):
            return f"operations[{i}] ({type(op).__name__}) has a leaf that is not a floating-point array"
    return ""


@jax.custom_vjp
def _adjoint_energy(circuit: Circuit, hamiltonian: PauliSum, psi0: Array) -> Array:
    return expectation(hamiltonian, _final_state(circuit, psi0))


def _program(circuit: Circuit):
    """The circuit's gates fused (`_fusion`) within the segments of its `_schedule.plan`."""
    return fused_program(circuit.operations, plan(circuit.operations))


def _final_state(circuit: Circuit, psi0: Array) -> Array:
    """The state after the fused gates (the same product as `Circuit.statevector`, in fewer passes)."""
    n = circuit.n_wires
    ops, _, segments = _program(circuit)

    def step(op, flat):
        return op.apply(flat.reshape((2,) * n)).reshape(2**n)

    return apply_segments(ops, segments, psi0, step)


def _forward(circuit: Circuit, hamiltonian: PauliSum, psi0: Array):
    psi = _final_state(circuit, psi0)
    values = term_values(hamiltonian, psi)
    return jnp.dot(hamiltonian.coefficients, values), (circuit, hamiltonian, psi, values)


def _backward(residuals, g):
    r"""Cotangents of (circuit, hamiltonian, ψ₀) for the cotangent `g` of the energy.

    $\bar c_t = g\langle P_t\rangle$ and $\lambda_m = 2g\,\overline{H\psi_m}$ (H Hermitian), then the gates
    backwards.
    """
    circuit, hamiltonian, psi, values = residuals
    n = circuit.n_wires
    ct_hamiltonian = jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(hamiltonian), [g * values])
    ct = _materialised(lambda h, p: jnp.conj(apply_sum(h, p.reshape((2,) * n)).reshape(2**n)), hamiltonian, psi)
    ct = 2 * g.astype(ct.dtype) * ct  # the real cotangent of the energy scales the complex state's
    ops, groups, segments = _program(circuit)
    cots: list = [None] * len(ops)
    for seg in reversed(segments):
        psi, ct = _backward_segment(ops, seg, psi, ct, n, cots)
    per_gate: list = [None] * len(circuit.operations)
    for cot, group in zip(cots, groups, strict=True):
        parts = cot.gates if isinstance(cot, Fused) else (cot,)
        for i, part in zip(group, parts, strict=True):
            per_gate[i] = part
    leaves = [leaf for cot in per_gate for leaf in jax.tree_util.tree_leaves(cot)]
    return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(circuit), leaves), ct_hamiltonian, ct


_adjoint_energy.defvjp(_forward, _backward)


def _materialised(fn, *args):
    """`fn(*args)`, computed once into memory.

    Left to itself XLA fuses the sum of the Hamiltonian's terms into every consumer of λ (the halves of the first
    backward kernel and its overlaps) and recomputes it in each: four times at the start of an unscanned backward
    pass, a quarter of its time at 18 qubits and one layer. A conditional is a fusion boundary; both branches are
    `fn`, so the predicate (data-dependent, so that it is not folded away) cannot change the result.
    """
    pred = jnp.isfinite(jnp.real(args[-1].reshape(-1)[0]))
    return jax.lax.cond(pred, fn, fn, *args)


def _backward_segment(ops, seg: Segment, psi: Array, ct: Array, n: int, cots: list):
    """Run the gates of `seg` backwards from (ψ after them, λ after them); fill `cots` for them."""
    if seg.repeats == 1:
        for i in reversed(range(seg.start, seg.start + seg.period)):
            psi, ct, cots[i] = _backward_gate(ops[i], psi, ct, n)
        return psi, ct

    def body(carry, layer):
        p, c = carry
        out: list = [None] * len(layer)
        for j in reversed(range(len(layer))):
            p, c, out[j] = _backward_gate(layer[j], p, c, n)
        return (p, c), tuple(out)

    (psi, ct), stacked = jax.lax.scan(body, (psi, ct), layer_stack(ops, seg), length=seg.repeats, reverse=True)
    for r in range(seg.repeats):
        for j in range(seg.period):
            cots[seg.start + r * seg.period + j] = jax.tree_util.tree_map(lambda x, r=r: x[r], stacked[j])
    return psi, ct


def _backward_gate(gate: AbstractGate, psi: Array, ct: Array, n: int):
    r"""One gate backwards: $(\psi_{\rm out}, \lambda_{\rm out}) \to (K^\dagger\psi_{\rm out}, K^T\lambda_{\rm out})$.

    Also returns the gate's cotangent (a pytree like the gate), from the state and cotangent *after* it.
    """
    shape = (2,) * n
    t, c = psi.reshape(shape), ct.reshape(shape)
    k = gate.kernel()
    cot = _gate_cotangent(gate, k, t, c)
    psi_in = gate.apply_kernel(t, dagger(k)).reshape(-1)
    ct_in = gate.apply_kernel(c, k.T).reshape(-1)
    return psi_in, ct_in, cot


def _gate_cotangent(gate: AbstractGate, k: Array, psi: Array, ct: Array):
    """The cotangent of `gate`'s leaves (see the module docstring), as a pytree of the gate's structure."""
    leaves, treedef = jax.tree_util.tree_flatten(gate)
    if not leaves:
        return gate

    def kernel_of(xs):
        return jax.tree_util.tree_unflatten(treedef, xs).kernel()

    psi_s, axes = gate.kernel_slice(psi)
    ct_s, _ = gate.kernel_slice(ct)
    if len(leaves) <= MAX_DIRECTIONS and all(np.shape(x) == () and not jnp.iscomplexobj(x) for x in leaves):
        k_dag = dagger(k)
        out = []
        for i in range(len(leaves)):
            unit = [jnp.ones_like(x) if j == i else jnp.zeros_like(x) for j, x in enumerate(leaves)]
            direction = jax.jvp(kernel_of, (leaves,), (unit,))[1]
            out.append(overlap(ct_s, psi_s, direction @ k_dag, axes).astype(leaves[i].dtype))
        return jax.tree_util.tree_unflatten(treedef, out)
    k_bar = cross(ct_s, psi_s, axes) @ jnp.conj(k)
    (out,) = jax.vjp(kernel_of, leaves)[1](k_bar)
    return jax.tree_util.tree_unflatten(treedef, out)


def _kernel_view(tensor: Array, axes: list[int]) -> tuple[Array, list[int]]:
    """`tensor` on the view that keeps only `axes` (`view_shape`), and the positions of `axes` in that view."""
    order = sorted(axes)
    view = tensor.reshape(view_shape(tensor.shape, order))
    return view, [2 * order.index(a) + 1 for a in axes]


def overlap(ct: Array, psi: Array, q: Array, axes: list[int]) -> Array:
    r"""$\mathrm{Re}\sum_b \lambda_b\,(Q\psi)_b$ with the small matrix `q` acting on `axes` (no conjugation).

    A real reduction of a fused product on the (2k + 1)-axis view: one pass over the two tensors.
    """
    c, _ = _kernel_view(ct, axes)
    p, places = _kernel_view(psi, axes)
    return jnp.sum(jnp.real(c * apply_matrix(p, q, places)))


def cross(ct: Array, psi: Array, axes: list[int]) -> Array:
    r"""$\bar K_{ij} = \sum \lambda_i \psi_j$ over every axis but `axes`, shape (2ᵏ, 2ᵏ).

    Here i and j are the bits on `axes`, the first most significant.
    """
    c, places = _kernel_view(ct, axes)
    p, _ = _kernel_view(psi, axes)
    k, rank = len(axes), c.ndim
    rows, cols = list(range(rank, rank + k)), list(range(rank + k, rank + 2 * k))
    ct_index, psi_index = list(range(rank)), list(range(rank))
    for r, place in enumerate(places):
        ct_index[place], psi_index[place] = rows[r], cols[r]
    return jnp.einsum(c, ct_index, p, psi_index, [*rows, *cols]).reshape(2**k, 2**k)
