"""Quantum circuits: gates, state-vector and density-matrix simulation, noise, measurement, variational algorithms.

ħ = 1; angles in radians; wire 0 is the most significant bit / leftmost tensor factor (QuTiP order). Circuits are
Equinox modules, so `jax.grad`, `jax.jit` and `jax.vmap` work through them; gates are applied by contraction on their
own qubit axes (never a 2ⁿ × 2ⁿ matrix). Mid-circuit measurements write classical bits (`Measure`) that later gates
can be conditioned on (`Conditional`).
"""

import warnings

from . import _validation as _validation  # registers the circuit kinds of `difflab validate`
from ._adjoint import energy as energy
from ._ansatz import h2_ansatz as h2_ansatz
from ._ansatz import hardware_efficient as hardware_efficient
from ._ansatz import qaoa as qaoa
from ._branching import Branches as Branches
from ._channels import AbstractQuantumChannel as AbstractQuantumChannel
from ._channels import AmplitudeDamping as AmplitudeDamping
from ._channels import Dephasing as Dephasing
from ._channels import Depolarizing as Depolarizing
from ._channels import Kraus as Kraus
from ._channels import ReadoutError as ReadoutError
from ._channels import TwoQubitDepolarizing as TwoQubitDepolarizing
from ._chemistry import h2_vqe_curve as h2_vqe_curve
from ._circuit import Circuit as Circuit
from ._circuit import zero_state as zero_state
from ._fermion import FermionSum as FermionSum
from ._gates import AbstractGate as AbstractGate
from ._gates import Controlled as Controlled
from ._gates import Gate as Gate
from ._gates import PauliRotation as PauliRotation
from ._gates import PhaseShift as PhaseShift
from ._gates import Unitary as Unitary
from ._givens import DoubleExcitation as DoubleExcitation
from ._givens import SingleExcitation as SingleExcitation
from ._hamiltonians import h2_data as h2_data
from ._hamiltonians import h2_hamiltonian as h2_hamiltonian
from ._hamiltonians import maxcut_brute_force as maxcut_brute_force
from ._hamiltonians import maxcut_hamiltonian as maxcut_hamiltonian
from ._hamiltonians import tfim_hamiltonian as tfim_hamiltonian
from ._jordan_wigner import jordan_wigner as jordan_wigner
from ._jordan_wigner import jordan_wigner_matrix as jordan_wigner_matrix
from ._matrix_observables import Hermitian as Hermitian
from ._matrix_observables import Projector as Projector
from ._measure import probabilities as probabilities
from ._measure import sample as sample
from ._midcircuit import Conditional as Conditional
from ._midcircuit import Measure as Measure
from ._molecular import fermionic_hamiltonian as fermionic_hamiltonian
from ._molecular import molecular_hamiltonian as molecular_hamiltonian
from ._molecules import MolecularIntegrals as MolecularIntegrals
from ._molecules import molecular_integrals as molecular_integrals
from ._molecules import molecule_data as molecule_data
from ._molecules import pyscf_integrals as pyscf_integrals
from ._optimize import VariationalResult as VariationalResult
from ._optimize import minimize as minimize
from ._optimize import vqe as vqe
from ._pauli import PauliSum as PauliSum
from ._pauli import expectation as expectation
from ._pulse import PulseGate as PulseGate
from ._qasm import from_qasm as from_qasm
from ._relaxation import Reset as Reset
from ._relaxation import ThermalRelaxation as ThermalRelaxation
from ._results import measure as measure
from ._sampled import SampledEstimate as SampledEstimate
from ._sampled import ShotRecord as ShotRecord
from ._sector import fci_energy as fci_energy
from ._shots import ShotEstimate as ShotEstimate
from ._shots import estimate_expectation as estimate_expectation
from ._shots import qubitwise_groups as qubitwise_groups
from ._standard_gates import CH as CH
from ._standard_gates import CNOT as CNOT
from ._standard_gates import CRX as CRX
from ._standard_gates import CRY as CRY
from ._standard_gates import CRZ as CRZ
from ._standard_gates import CSWAP as CSWAP
from ._standard_gates import CY as CY
from ._standard_gates import CZ as CZ
from ._standard_gates import ISWAP as ISWAP
from ._standard_gates import RX as RX
from ._standard_gates import RY as RY
from ._standard_gates import RZ as RZ
from ._standard_gates import SWAP as SWAP
from ._standard_gates import SX as SX
from ._standard_gates import XX as XX
from ._standard_gates import YY as YY
from ._standard_gates import ZZ as ZZ
from ._standard_gates import CPhase as CPhase
from ._standard_gates import H as H
from ._standard_gates import I as I
from ._standard_gates import Phase as Phase
from ._standard_gates import S as S
from ._standard_gates import Sdg as Sdg
from ._standard_gates import SXdg as SXdg
from ._standard_gates import T as T
from ._standard_gates import Tdg as Tdg
from ._standard_gates import Toffoli as Toffoli
from ._standard_gates import X as X
from ._standard_gates import Y as Y
from ._standard_gates import Z as Z
from ._u3 import U3 as U3
from ._uccsd import excitations as excitations
from ._uccsd import hartree_fock_state as hartree_fock_state
from ._uccsd import uccsd as uccsd


def __getattr__(name: str):
    if name == "AbstractChannel":  # deprecated: difflab.neuron.AbstractChannel is an ion channel
        warnings.warn(
            "difflab.quantum.circuits.AbstractChannel is deprecated and goes at 0.3: it is now "
            "AbstractQuantumChannel (difflab.neuron.AbstractChannel is an ion channel)",
            DeprecationWarning,
            stacklevel=2,
        )
        return AbstractQuantumChannel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
