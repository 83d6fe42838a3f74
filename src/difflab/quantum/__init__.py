"""Quantum state evolution: operators, states, Schrödinger and Lindblad models, drives, solvers.

Units: ħ = 1; time in ns or µs (a model's `time_units`); Hamiltonian coefficients and drive amplitudes are angular
frequencies in rad per time unit; jump operators carry the square root of a rate (1/time unit).
"""

# Validation runners join difflab.validation's registry (kinds "quantum.*").
from . import _validation as _validation
from . import circuits as circuits
from ._batching import Batching as Batching
from ._channel_fidelity import channel_fidelity as channel_fidelity
from ._channel_fidelity import channel_leakage as channel_leakage
from ._control import X_GATE as X_GATE
from ._control import optimize_drag as optimize_drag
from ._dataset import QuantumResult as QuantumResult
from ._drives import Controls as Controls
from ._drives import Drive as Drive
from ._fidelity import gate_fidelity as gate_fidelity
from ._fidelity import leakage as leakage
from ._grape import GrapeOptions as GrapeOptions
from ._grape import optimize_gate as optimize_gate
from ._grape_result import GateOptimization as GateOptimization
from ._lindblad import LindbladModel as LindbladModel
from ._mcsolve import MCResult as MCResult
from ._mcsolve import mcsolve as mcsolve
from ._mesolve import mesolve as mesolve
from ._mesolve import sesolve as sesolve
from ._operator import Operator as Operator
from ._operator import as_operator as as_operator
from ._operator import dense as dense
from ._operator import dia as dia
from ._phase_space import qfunc as qfunc
from ._phase_space import wigner as wigner
from ._piecewise_channel import piecewise_channel as piecewise_channel
from ._piecewise_controls import PiecewiseControls as PiecewiseControls
from ._piecewise_controls import piecewise_propagator as piecewise_propagator
from ._propagator import PropagatorResult as PropagatorResult
from ._propagator import mepropagator as mepropagator
from ._propagator import sepropagator as sepropagator
from ._pulses import GaussianPulse as GaussianPulse
from ._pulses import PiecewiseConstant as PiecewiseConstant
from ._pulses import feature_time as feature_time
from ._qutip import from_qutip as from_qutip
from ._qutip import to_qutip as to_qutip
from ._rabi import RabiQubit as RabiQubit
from ._rabi import readout_observer as readout_observer
from ._rabi_fit import fit_rabi as fit_rabi
from ._rabi_fit import measure_rabi as measure_rabi
from ._rabi_fit import rabi_summary as rabi_summary
from ._readout import Readout as Readout
from ._schrodinger import SchrodingerModel as SchrodingerModel
from ._smesolve import smesolve as smesolve
from ._smesolve_result import SMEResult as SMEResult
from ._smesolve_rouchon import Rouchon as Rouchon
from ._solve import solve_model as solve_model
from ._standard_operators import create as create
from ._standard_operators import destroy as destroy
from ._standard_operators import eye as eye
from ._standard_operators import number as number
from ._standard_operators import sigmam as sigmam
from ._standard_operators import sigmap as sigmap
from ._standard_operators import sigmax as sigmax
from ._standard_operators import sigmay as sigmay
from ._standard_operators import sigmaz as sigmaz
from ._standard_operators import tensor as tensor
from ._states import basis as basis
from ._states import coherent as coherent
from ._states import fock as fock
from ._states import fock_dm as fock_dm
from ._states import ket2dm as ket2dm
from ._steadystate import liouvillian as liouvillian
from ._steadystate import steadystate as steadystate
from ._transmon import drag_pulses as drag_pulses
from ._transmon import subspace_propagator as subspace_propagator
from ._transmon import transmon as transmon
