"""Bad input raises clear errors that name the argument."""

import numpy as np
import pytest

import difflab.quantum as q

TS = np.linspace(0.0, 1.0, 3)


def test_non_hermitian_hamiltonian():
    with pytest.raises(ValueError, match=r"`H` must be Hermitian"):
        q.mesolve(q.sigmam(), q.basis(2, 0), TS)
    with pytest.raises(ValueError, match=r"`H0` must be Hermitian"):
        q.SchrodingerModel(q.sigmap())


def test_non_hermitian_drive_operator():
    with pytest.raises(ValueError, match=r"`drives\[0\].operator` must be Hermitian"):
        q.LindbladModel(q.sigmaz(), [q.Drive(1.0, q.sigmam())])


def test_state_of_wrong_dimension():
    with pytest.raises(ValueError, match=r"`psi0` must be a state vector of dimension 2"):
        q.sesolve(q.sigmaz(), q.basis(3, 0), TS)
    with pytest.raises(ValueError, match=r"`rho0` must be a density matrix of dimension 4"):
        q.mesolve(q.tensor(q.sigmaz(), q.sigmaz()), q.ket2dm(q.basis(2, 0)), TS)


def test_density_matrix_trace():
    with pytest.raises(ValueError, match=r"`rho0` must have trace 1; got trace 2"):
        q.mesolve(q.sigmaz(), 2 * q.ket2dm(q.basis(2, 0)), TS)
    with pytest.raises(ValueError, match=r"`psi0` must have unit norm"):
        q.sesolve(q.sigmaz(), 2 * q.basis(2, 0), TS)


def test_mismatched_operator_dimensions():
    with pytest.raises(ValueError, match=r"`jump_ops\[0\]` has shape \(3, 3\) but `H` acts on dimension 2"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), TS, jump_ops=[q.destroy(3)])
    with pytest.raises(ValueError, match=r"`exp_ops\['n'\]` has shape \(3, 3\)"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), TS, exp_ops={"n": q.number(3)})
    with pytest.raises(ValueError, match=r"`drives\[0\].operator` has shape \(3, 3\) but `H0`"):
        q.SchrodingerModel(q.sigmaz(), [q.Drive(1.0, q.number(3))])


def test_bad_time_grid_and_batch_mode():
    with pytest.raises(ValueError, match="ts must be strictly increasing"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), np.array([0.0, 1.0, 0.5]))
    with pytest.raises(ValueError, match=r"strategy must be one of \('vmap', 'map', 'chunked'\); got 'pool'"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), TS, strategy="pool")
    with pytest.warns(DeprecationWarning, match="pass strategy='pool'"):
        with pytest.raises(ValueError, match=r"batch must be one of \('vmap', 'map', 'chunked'\); got 'pool'"):
            q.mesolve(q.sigmaz(), q.basis(2, 0), TS, batch="pool")


def test_nan_operators_and_unphysical_states_are_refused():
    import numpy as np

    import difflab.quantum as q

    ts = np.linspace(0.0, 1.0, 3)
    with pytest.raises(ValueError, match=r"`H` must be finite; found 2 NaN/inf entries"):
        q.sesolve(np.array([[0.0, np.nan], [np.nan, 0.0]]), q.basis(2, 0), ts)
    with pytest.raises(ValueError, match=r"`jump_ops\[0\]` must be finite"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), ts, jump_ops=[np.sqrt(-0.1 + 0j).real * np.nan * q.sigmam()])
    rho = np.array([[1.5, 0.0], [0.0, -0.5]])  # trace 1, Hermitian, but a negative probability
    with pytest.raises(ValueError, match=r"must be positive semidefinite .* lowest eigenvalue is -0.5"):
        q.mesolve(q.sigmaz(), rho, ts)


def test_nan_drive_operator_and_bad_tolerances_are_refused_by_name():
    import difflab

    # a NaN off-diagonal entry was dropped by the sparse-layout detection, and the drive ran as zero
    with pytest.raises(ValueError, match=r"`Drive.operator` must be finite; found 2 NaN/inf entries"):
        q.Drive(difflab.Constant(1.0), np.array([[0.0, np.nan], [np.nan, 0.0]]))
    for name, bad, shown in [("rtol", -1.0, "-1.0"), ("atol", float("nan"), "nan")]:
        with pytest.raises(ValueError, match=rf"{name} must be a finite number >= 0; got {shown}"):
            q.sesolve(q.sigmaz(), q.basis(2, 0), TS, **{name: bad})
