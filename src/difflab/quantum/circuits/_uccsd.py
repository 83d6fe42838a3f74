r"""The Hartree–Fock state and a unitary coupled-cluster singles-and-doubles (UCCSD) ansatz on spin orbitals.

Spin orbitals are wires (Jordan–Wigner, `_jordan_wigner`): wire $2p$ is spatial orbital p with spin up, $2p+1$ with
spin down, and the Hartree–Fock state of N electrons fills the N lowest, $|1\cdots10\cdots0\rangle$.

The excitations are those that conserve spin: singles $r \to p$ (r occupied, p virtual, same spin) and doubles
$(s, r) \to (q, p)$ (s < r occupied, q < p virtual, equal total spin projection), in PennyLane's
`qml.qchem.excitations(electrons, orbitals)` order. Each gets one angle. The circuit is one Trotter step:
$$|\psi(\theta)\rangle = \prod_{k \in \rm singles} G^{(1)}_k(\theta_k) \prod_{l \in \rm doubles}
    G^{(2)}_l(\theta_{n_s + l})\, |\mathrm{HF}\rangle,$$
the doubles applied first, as PennyLane's `AllSinglesDoubles`, with the Givens rotations `SingleExcitation`
and `DoubleExcitation` (PennyLane's conventions: $|10\rangle \to \cos\frac\theta2|10\rangle - \sin\frac\theta2
|01\rangle$ on wires (r, p), and the same for $|1100\rangle$ on (s, r, q, p)). These are the exponentials
$e^{\theta(\tau^\dagger - \tau)/2}$ of the excitation operators ($\tau = a_p^\dagger a_r$,
$a_p^\dagger a_q^\dagger a_r a_s$) without the Jordan–Wigner parity strings between the wires
("qubit excitations", Yordanov, Arvidsson-Shukur and Barnes, Phys. Rev. A 102, 062612 (2020)); they conserve the
number of electrons and the spin projection, and reach the same chemical accuracy on small molecules
(Arrazola et al., Quantum 6, 742 (2022)). Angles in radians; parameters are array leaves, so `jax.grad` and
`vqe` differentiate through them.
"""

from __future__ import annotations

import numbers

import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike

from ._circuit import Circuit
from ._gates import AbstractGate
from ._givens import DoubleExcitation, SingleExcitation
from ._standard_gates import X


def hartree_fock_state(n_electrons: int, n_qubits: int) -> np.ndarray:
    """Occupation numbers of the Hartree–Fock state: `n_electrons` ones, then zeros (PennyLane's `hf_state`)."""
    n_electrons, n_qubits = _check_counts(n_electrons, n_qubits)
    return (np.arange(n_qubits) < n_electrons).astype(int)


def excitations(n_electrons: int, n_qubits: int) -> tuple[list[tuple[int, int]], list[tuple[int, int, int, int]]]:
    """The spin-conserving single (r, p) and double (s, r, q, p) excitations from the Hartree–Fock state.

    Occupied wires r, s < `n_electrons` go to virtual wires p, q; even wires are spin up, odd wires spin down.
    The same lists, in the same order, as PennyLane's `qml.qchem.excitations(n_electrons, n_qubits)`.
    """
    n_electrons, n_qubits = _check_counts(n_electrons, n_qubits)
    occupied, virtual = range(n_electrons), range(n_electrons, n_qubits)
    singles = [(r, p) for r in occupied for p in virtual if p % 2 == r % 2]
    doubles = [(s, r, q, p) for s in occupied for r in occupied if s < r for q in virtual for p in virtual
               if q < p and (s % 2) + (r % 2) == (q % 2) + (p % 2)]  # fmt: skip
    return singles, doubles


def uccsd(params: ArrayLike, n_electrons: int, n_qubits: int) -> Circuit:
    """The UCCSD circuit from |HF⟩: one `DoubleExcitation` per double, then one `SingleExcitation` per single.

    Args:
        params: angles (rad), shape (n_singles + n_doubles,): the singles' first, then the doubles', each in the
            order of `excitations` (as PennyLane's `AllSinglesDoubles` weights).
        n_electrons: number of electrons, even (closed-shell reference), at most `n_qubits`.
        n_qubits: number of spin orbitals (wires), even.

    For `vqe`, fix the counts once, `functools.partial(uccsd, n_electrons=2, n_qubits=4)`, so that a later call
    with the same partial object reuses the compiled program.
    """
    singles, doubles = excitations(n_electrons, n_qubits)
    n_params = len(singles) + len(doubles)
    if np.shape(params) != (n_params,):
        raise ValueError(f"params must have shape ({n_params},): {len(singles)} singles and {len(doubles)} "
                         f"doubles for {n_electrons} electrons in {n_qubits} spin orbitals; "
                         f"got {np.shape(params)}")  # fmt: skip
    theta = jnp.asarray(params)
    ops: list[AbstractGate] = [X(w) for w in range(n_electrons)]
    ops += [DoubleExcitation(theta[len(singles) + k], d) for k, d in enumerate(doubles)]
    ops += [SingleExcitation(theta[k], s) for k, s in enumerate(singles)]
    return Circuit(n_qubits, ops)


def _check_counts(n_electrons, n_qubits) -> tuple[int, int]:
    if isinstance(n_qubits, bool) or not isinstance(n_qubits, numbers.Integral) or n_qubits < 2 or n_qubits % 2:
        raise ValueError(f"n_qubits must be an even integer >= 2 (spin orbitals: up and down per spatial orbital); "
                         f"got {n_qubits!r}")  # fmt: skip
    if isinstance(n_electrons, bool) or not isinstance(n_electrons, numbers.Integral) or n_electrons < 2:
        raise ValueError(f"n_electrons must be a positive even integer; got {n_electrons!r}")
    if n_electrons % 2:
        raise ValueError(f"n_electrons must be even (a closed-shell Hartree-Fock reference); got {n_electrons}")
    if n_electrons > n_qubits:
        raise ValueError(f"n_electrons = {n_electrons} exceeds the {n_qubits} spin orbitals (n_qubits)")
    return int(n_electrons), int(n_qubits)
