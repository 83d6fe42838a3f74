r"""`Circuit`: gates and noise channels on `n_wires` qubits, simulated as a state vector or a density matrix.

The state vector is $|\psi\rangle = U_m \cdots U_1 |\psi_0\rangle$; the density matrix is evolved by
$\rho \to U \rho U^\dagger$ for gates and $\rho \to \sum_k K_k \rho K_k^\dagger$ for channels. Both are held as
tensors with one axis of length 2 per wire (two for ρ) and every operation contracts only its own axes, so memory is
the state itself (2ⁿ or 4ⁿ complex numbers) and no full gate matrix is ever formed. Wire 0 is the most significant bit
of the flat index and the leftmost tensor factor (QuTiP order): $|q_0 q_1 \ldots q_{n-1}\rangle$ is entry
$\sum_j q_j 2^{n-1-j}$.
"""

from __future__ import annotations

from collections.abc import Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ...core.internal import check_key
from .._complex import as_complex
from ._apply import as_wires, is_concrete
from ._branching import Branches, run_branches
from ._channels import AbstractQuantumChannel
from ._deferred import deferred_operations
from ._density import evolve_density
from ._draw import draw_text, glyphs, moments
from ._gates import AbstractGate
from ._measure import check_shots
from ._midcircuit import Bit, is_midcircuit, register
from ._qasm_gates import to_qasm
from ._sampled import ShotRecord, sample_shots
from ._schedule import run

#: Tolerance on the norm / trace of a user initial state.
STATE_ATOL = 1e-8


def state_dtype() -> np.dtype:
    """The dtype circuits compute in: complex128 (complex64 where JAX runs without 64-bit types).

    Gate matrices and Pauli tables are built in it, so a state given in another precision (a complex64 `psi0`) is
    converted to it on entry, not mixed with it (under strict dtype promotion a mix would be refused inside).
    """
    return jax.dtypes.canonicalize_dtype(jnp.complex128)


def zero_state(n_wires: int) -> Array:
    r"""$|0\ldots0\rangle$ as a flat complex vector of length 2ⁿ.

    Built from an iota (index == 0), which XLA does not constant-fold: from a literal zero vector XLA folds the
    first gates' slices of the state into 2ⁿ-sized constants of the program (64 MiB each at 24 qubits).
    """
    return (jnp.arange(2**n_wires) == 0).astype(state_dtype())


class Circuit(eqx.Module):
    """A sequence of gates (`AbstractGate`), channels (`AbstractQuantumChannel`) and mid-circuit measurements.

    Example:
        ```python
        from difflab.quantum import circuits as qc
        bell = qc.Circuit(2, [qc.H(0), qc.CNOT(0, 1)])
        bell.statevector()  # [0.707, 0, 0, 0.707]
        ```

    Every operation's wires are checked against `n_wires` when the circuit is built, and every classical bit a
    `Conditional` reads against the `Measure`s before it. Circuits are pytrees: the angles inside are leaves, so
    `jax.grad`, `jax.jit` and `jax.vmap` apply to functions of them. A circuit with `Measure` / `Conditional` runs
    with `branches` and `density_matrix` (exact), `sample_branches` (shots) or as its `deferred` form.
    """

    n_wires: int = eqx.field(static=True)
    operations: tuple

    def __init__(self, n_wires: int, operations: Sequence):
        if isinstance(n_wires, bool) or not isinstance(n_wires, int | np.integer) or n_wires < 1:
            raise ValueError(f"n_wires must be a positive integer; got {n_wires!r}")
        self.n_wires = int(n_wires)
        for i, op in enumerate(operations):
            if not isinstance(op, AbstractGate | AbstractQuantumChannel) and not is_midcircuit(op):
                raise TypeError(f"operations[{i}] must be a gate, a channel, a Measure or a Conditional; "
                                f"got {type(op).__name__}")  # fmt: skip
            try:
                as_wires(f"operations[{i}].wires", op.wires, self.n_wires)
            except ValueError as err:
                raise ValueError(f"{err} (operation {type(op).__name__})") from None
        register(operations)  # refuses a condition on a bit no earlier Measure writes
        self.operations = tuple(operations)

    @property
    def bits(self) -> tuple[Bit, ...]:
        """The classical bits the circuit's `Measure`s write, in order of first measurement (the register)."""
        return register(self.operations)

    @property
    def midcircuit(self) -> bool:
        """True when the circuit measures or conditions mid-circuit (`Measure`, `Conditional`)."""
        return any(is_midcircuit(op) for op in self.operations)

    @property
    def noisy(self) -> bool:
        """True when the circuit holds a channel (then only `density_matrix` can simulate it)."""
        return any(isinstance(op, AbstractQuantumChannel) for op in self.operations)

    def adjoint(self) -> Circuit:
        r"""The inverse circuit $U^\dagger = U_1^\dagger \cdots U_m^\dagger$: each gate's `adjoint()`, in reverse order.

        Rotations come back with their angles negated (still leaves, so gradients flow), fixed gates as their named
        inverse, `Unitary` as its conjugate transpose. A noise channel or a non-unitary gate (a leaking pulse)
        has no inverse and is refused by its position.
        """
        for i, op in enumerate(self.operations):
            if isinstance(op, AbstractQuantumChannel):
                raise ValueError(f"operations[{i}] is a noise channel ({type(op).__name__}), which has no inverse")
            if not op.unitary:
                raise ValueError(f"operations[{i}] ({type(op).__name__}) is not unitary and has no inverse")
        return Circuit(self.n_wires, [op.adjoint() for op in reversed(self.operations)])

    def inverse(self) -> Circuit:
        """The inverse circuit (Qiskit's name for `adjoint`)."""
        return self.adjoint()

    def draw(self) -> str:
        """A text wire diagram (also `str(circuit)`): ● control, ⊕ controlled-X target, × swap, boxes by name.

        Example: `print(Circuit(2, [H(0), CNOT(0, 1)]))` gives
        ```text
        q0: ──H──●──
                 │
        q1: ─────⊕──
        ```
        """
        return draw_text(self.n_wires, self.operations)

    def __str__(self) -> str:
        return self.draw()

    def moments(self) -> list[list[tuple[object, dict[int, str]]]]:
        """The diagram's columns: for each, its operations with their glyph on each wire (for drawing)."""
        return [[(self.operations[i], glyphs(self.operations[i])) for i in col] for col in moments(self.operations)]

    def to_qasm(self, version: int = 2) -> str:
        """The circuit as OpenQASM text: version 2 (`qelib1.inc`, `qreg q[n];`) or 3 (`stdgates.inc`, `qubit[n] q;`).

        Gate names and matrices are those of Qiskit's `qelib1.inc` / `stdgates.inc` (see `_qasm_gates`); the
        qubit `q[j]` is wire j. Operations without a standard name are refused by position; `from_qasm` reads
        the text back.
        """
        return to_qasm(self.n_wires, self.operations, version)

    def statevector(self, psi0: ArrayLike | None = None, *, scan: bool = True) -> Array:
        """The final state vector (2ⁿ,) from `psi0` (default |0…0⟩); refuses circuits with channels.

        With `scan` (default), repeated identical layers run under one `jax.lax.scan` (see `_schedule`): the same
        result, traced and compiled once per layer instead of once per gate.
        """
        n = self.n_wires
        self._check_pure()
        psi = zero_state(n) if psi0 is None else _check_ket(psi0, n)
        return _final_state(_array_leaves(self.operations), psi, n, scan)

    def _check_pure(self) -> None:
        for i, op in enumerate(self.operations):
            if is_midcircuit(op):
                raise ValueError(
                    f"operations[{i}] is a {type(op).__name__}: simulate mid-circuit measurement "
                    "with density_matrix / branches (exact), sample_branches (shots) or deferred()"
                )
            if isinstance(op, AbstractQuantumChannel):
                raise ValueError(f"operations[{i}] is a noise channel ({type(op).__name__}): simulate a noisy "
                                 "circuit with density_matrix")  # fmt: skip

    def density_matrix(self, rho0: ArrayLike | None = None, *, scan: bool = True) -> Array:
        """The final density matrix (2ⁿ, 2ⁿ) from `rho0` (a density matrix or a ket; default |0…0⟩⟨0…0|).

        Runs of one-wire gates and channels on a wire are applied as one 4 × 4 superoperator on its row and
        column axes (`_density`); `scan` as in `statevector`. With mid-circuit measurements, the sum of the
        branches of `branches` (the classical record forgotten).
        """
        if self.midcircuit:
            return self.branches(rho0, scan=scan).density_matrix()
        n = self.n_wires
        rho = self._initial_density(rho0)
        return _final_density(_array_leaves(self.operations), rho.reshape(4**n), n, scan).reshape(2**n, 2**n)

    def branches(self, rho0: ArrayLike | None = None, *, scan: bool = True) -> Branches:
        r"""The exact branches $\rho_c$, one per value c of the classical register (see `_branching`).

        `rho0` as in `density_matrix`. Exact and differentiable: `Branches.weights` are the probabilities of the
        register values, `Branches.state(c)` the state given c, `Branches.density_matrix()` their sum.
        """
        n = self.n_wires
        rho = self._initial_density(rho0).reshape(4**n)
        return run_branches(_array_leaves(self.operations), rho, n, self.bits, scan)

    def sample_branches(self, shots: int, *, key: Array, psi0: ArrayLike | None = None) -> ShotRecord:
        """`shots` state-vector runs, each measurement's outcome drawn with its Born probability (`_sampled`).

        Returns each shot's bit values and final state; `ShotRecord.frequencies` and `ShotRecord.expectation` give
        estimates with standard errors. Not differentiable in the outcomes (see `_sampled`); refuses channels.
        Memory: one state vector per shot (shots × 2ⁿ), all kept for the record.
        """
        count = check_shots(shots)
        check_key(key)
        for i, op in enumerate(self.operations):
            if isinstance(op, AbstractQuantumChannel):
                raise ValueError(f"operations[{i}] is a noise channel ({type(op).__name__}): sample_branches "
                                 "runs state vectors; use branches")  # fmt: skip
        psi = zero_state(self.n_wires) if psi0 is None else _check_ket(psi0, self.n_wires)
        return sample_shots(_array_leaves(self.operations), psi, self.n_wires, self.bits, count, key)

    def deferred(self) -> Circuit:
        """The deferred-measurement circuit: `Measure`s dropped, `Conditional`s as gates controlled by the wires.

        Exact state vectors and gradients for circuits that do not touch a measured wire again (see `_deferred`);
        a bit's value is then the Z-basis value of its measured wire at the end.
        """
        return Circuit(self.n_wires, deferred_operations(self.operations))

    def _initial_density(self, rho0: ArrayLike | None) -> Array:
        n = self.n_wires
        if rho0 is None:
            psi = zero_state(n)
            rho = jnp.outer(psi, psi)
        elif np.ndim(rho0) == 1:
            psi = _check_ket(rho0, n)
            rho = jnp.outer(psi, jnp.conj(psi))
        else:
            rho = _check_density(rho0, n)
        return rho

    def unitary(self) -> Array:
        """The circuit's 2ⁿ × 2ⁿ matrix (for tests and small n: it costs 4ⁿ memory)."""
        n = self.n_wires
        for op in self.operations:
            if isinstance(op, AbstractQuantumChannel) or is_midcircuit(op):
                raise ValueError(f"a circuit with a channel or a measurement ({type(op).__name__}) has no unitary")

        def step(op, columns):
            return op.apply(columns.reshape((2,) * n + (2**n,))).reshape(2**n, 2**n)

        return run(self.operations, jnp.eye(2**n, dtype=complex), step)


# Called outside `jit`, a circuit ran gate by gate, each distinct operation compiled on its own (9.7 s for the first
# call of a 30-gate, 6-qubit random circuit on two busy cores); one compiled program per circuit structure takes
# 2.8 s there, and a circuit of the same structure with new angles reuses it. Inside a user's `jit` these are
# inlined. Angles given as Python numbers become arrays, so that they are arguments of the program, not constants.
@eqx.filter_jit
def _final_state(ops: tuple, psi: Array, n: int, scan: bool) -> Array:
    def step(op, flat):
        return op.apply(flat.reshape((2,) * n)).reshape(2**n)

    return run(ops, psi, step, scan=scan)


@eqx.filter_jit
def _final_density(ops: tuple, rho: Array, n: int, scan: bool) -> Array:
    return evolve_density(ops, rho, n, scan)


def _array_leaves(ops: Sequence) -> tuple:
    """The operations with Python float and complex leaves (angles) as arrays."""
    return jax.tree_util.tree_map(lambda x: jnp.asarray(x) if isinstance(x, float | complex) else x, tuple(ops))


def _check_ket(psi0, n: int) -> Array:
    if np.shape(psi0) != (2**n,):
        raise ValueError(f"psi0 must have shape ({2**n},) for {n} wires; got {np.shape(psi0)}")
    if is_concrete(psi0):
        if not np.all(np.isfinite(np.asarray(psi0))):
            raise ValueError("psi0 must be finite; got NaN/inf entries")
        norm = float(np.linalg.norm(np.asarray(psi0)))
        if not abs(norm - 1) <= STATE_ATOL:
            raise ValueError(f"psi0 must be normalised; got norm {norm:.12g}")
        return jnp.asarray(psi0, state_dtype())
    psi = as_complex(psi0).astype(state_dtype())  # traced: flagged when the compiled program runs (NaN fails too)
    norm = jnp.linalg.norm(psi)
    return eqx.error_if(psi, ~(jnp.abs(norm - 1) <= STATE_ATOL), "psi0 must be a finite, normalised ket")


def _check_density(rho0, n: int) -> Array:
    if np.shape(rho0) != (2**n, 2**n):
        raise ValueError(f"rho0 must have shape ({2**n}, {2**n}) for {n} wires; got {np.shape(rho0)}")
    if is_concrete(rho0):
        r = np.asarray(rho0, dtype=complex)
        if not np.all(np.isfinite(r)):
            raise ValueError("rho0 must be finite; got NaN/inf entries")
        trace = np.trace(r)
        if not abs(trace - 1) <= STATE_ATOL or not np.abs(r - r.conj().T).max() <= STATE_ATOL:
            raise ValueError(f"rho0 must be Hermitian with unit trace; got trace {trace:.12g}")
        lowest = float(np.linalg.eigvalsh(0.5 * (r + r.conj().T)).min())
        if lowest < -STATE_ATOL:  # a negative eigenvalue gives negative probabilities
            raise ValueError(f"rho0 must be positive semidefinite; its lowest eigenvalue is {lowest:.6g}")
        return jnp.asarray(r)
    rho = as_complex(rho0).astype(state_dtype())  # traced: flagged when the compiled program runs (NaN fails too)
    hermitian = 0.5 * (rho + rho.conj().T)
    ok = (jnp.abs(jnp.trace(rho) - 1) <= STATE_ATOL) & (jnp.max(jnp.abs(rho - rho.conj().T)) <= STATE_ATOL)
    ok = ok & (jnp.linalg.eigvalsh(hermitian).min() >= -STATE_ATOL)
    return eqx.error_if(rho, ~ok, "rho0 must be a finite density matrix (Hermitian, unit trace, positive)")
