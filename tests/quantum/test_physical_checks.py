"""Unphysical quantum input is refused by name: time units, T1/T2 of the Rabi qubit, non-PSD states."""

import numpy as np
import pytest

import difflab.quantum as q


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1.0, 0.0, 1.0, 3.0), r"T2 must be <= 2 T1 \(pure dephasing rate >= 0\); got 3.0"),
        ((1.0, 0.0, -1.0, 1.0), "T1 must be > 0 us; got -1.0"),
        ((1.0, 0.0, 1.0, -0.5), "T2 must be > 0 us; got -0.5"),
        ((np.nan, 0.0, 1.0, 1.0), "Omega must be finite; got nan"),
        ((1.0, 0.0, 0.0, 1.0), "T1 must be > 0 us; got 0.0"),  # not "t2_ratio must be finite; got inf"
        ((1.0, 0.0, 10.0, np.nan), "T2 must be > 0 us; got nan"),
    ],
)
def test_rabi_qubit_refuses_unphysical_parameters(args, message):
    with pytest.raises(ValueError, match=message):
        q.RabiQubit(*args)


def test_rabi_qubit_accepts_the_limit_t2_equal_2t1():
    qubit = q.RabiQubit(1.0, 0.0, 1.0, 2.0)
    assert float(qubit.t2) == pytest.approx(2.0, rel=1e-15)


@pytest.mark.parametrize("model", [q.SchrodingerModel, q.LindbladModel])
def test_unknown_time_units_are_refused(model):
    state = {"psi0": q.basis(2, 0)} if model is q.SchrodingerModel else {"rho0": q.fock_dm(2, 0)}
    with pytest.raises(ValueError, match=r"time_units must be one of \('ns', 'us'\).*got 'parsecs'"):
        model(q.sigmaz(), time_units="parsecs", **state)


def test_a_non_positive_density_matrix_with_unit_trace_is_refused():
    rho = np.array([[1.5, 0.0], [0.0, -0.5]])
    with pytest.raises(ValueError, match=r"rho0 must be positive semidefinite.*lowest eigenvalue is -0.5"):
        q.LindbladModel(q.sigmaz(), (), [q.sigmam()], rho0=rho)
