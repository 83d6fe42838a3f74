"""Bad input raises clear errors that name the argument."""

import numpy as np
import pytest

import difflab.quantum as q

TS = np.linspace(0.0, 1.0, 3)


def test_non_hermitian_hamiltonian():
    with pytest.raises(ValueError, match=r"H must be Hermitian"):
        q.mesolve(q.sigmam(), q.basis(2, 0), TS)
    with pytest.raises(ValueError, match=r"H0 must be Hermitian"):
        q.SchrodingerModel(q.sigmap())


def test_non_hermitian_drive_operator():
    with pytest.raises(ValueError, match=r"drives\[0\].operator must be Hermitian"):
        q.LindbladModel(q.sigmaz(), [q.Drive(1.0, q.sigmam())])


def test_state_of_wrong_dimension():
    with pytest.raises(ValueError, match=r"psi0 must be a state vector of dimension 2"):
        q.sesolve(q.sigmaz(), q.basis(3, 0), TS)
    with pytest.raises(ValueError, match=r"rho0 must be a density matrix of dimension 4"):
        q.mesolve(q.tensor(q.sigmaz(), q.sigmaz()), q.ket2dm(q.basis(2, 0)), TS)


def test_density_matrix_trace():
    with pytest.raises(ValueError, match=r"rho0 must have trace 1; got trace 2"):
        q.mesolve(q.sigmaz(), 2 * q.ket2dm(q.basis(2, 0)), TS)
    with pytest.raises(ValueError, match=r"psi0 must have unit norm"):
        q.sesolve(q.sigmaz(), 2 * q.basis(2, 0), TS)


def test_mismatched_operator_dimensions():
    with pytest.raises(ValueError, match=r"jump_ops\[0\] has shape \(3, 3\) but H acts on dimension 2"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), TS, jump_ops=[q.destroy(3)])
    with pytest.raises(ValueError, match=r"exp_ops\['n'\] has shape \(3, 3\)"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), TS, exp_ops={"n": q.number(3)})
    with pytest.raises(ValueError, match=r"drives\[0\].operator has shape \(3, 3\) but H0"):
        q.SchrodingerModel(q.sigmaz(), [q.Drive(1.0, q.number(3))])


def test_bad_time_grid_and_batch_mode():
    with pytest.raises(ValueError, match="ts must be strictly increasing"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), np.array([0.0, 1.0, 0.5]))
    with pytest.raises(ValueError, match=r"strategy must be one of \('vmap', 'map', 'chunked'\); got 'pool'"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), TS, batching=q.Batching(strategy="pool"))
    with pytest.warns(DeprecationWarning, match=r"pass batching=difflab.quantum.Batching\(strategy=...\)"):
        with pytest.raises(ValueError, match=r"strategy must be one of \('vmap', 'map', 'chunked'\); got 'pool'"):
            q.mesolve(q.sigmaz(), q.basis(2, 0), TS, batch="pool")


def test_nan_operators_and_unphysical_states_are_refused():
    import numpy as np

    import difflab.quantum as q

    ts = np.linspace(0.0, 1.0, 3)
    with pytest.raises(ValueError, match=r"H must be finite; found 2 NaN/inf entries"):
        q.sesolve(np.array([[0.0, np.nan], [np.nan, 0.0]]), q.basis(2, 0), ts)
    with pytest.raises(ValueError, match=r"jump_ops\[0\] must be finite"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), ts, jump_ops=[np.sqrt(-0.1 + 0j).real * complex(np.nan) * q.sigmam()])
    rho = np.array([[1.5, 0.0], [0.0, -0.5]])  # trace 1, Hermitian, but a negative probability
    with pytest.raises(ValueError, match=r"must be positive semidefinite .* lowest eigenvalue is -0.5"):
        q.mesolve(q.sigmaz(), rho, ts)


def test_nan_drive_operator_and_bad_tolerances_are_refused_by_name():
    import difflab

    # a NaN off-diagonal entry was dropped by the sparse-layout detection, and the drive ran as zero
    with pytest.raises(ValueError, match=r"Drive.operator must be finite; found 2 NaN/inf entries"):
        q.Drive(difflab.Constant(1.0), np.array([[0.0, np.nan], [np.nan, 0.0]]))
    for name, bad, shown in [("rtol", -1.0, "-1.0"), ("atol", float("nan"), "nan")]:
        with pytest.raises(ValueError, match=rf"{name} must be a finite number >= 0; got {shown}"):
            q.sesolve(q.sigmaz(), q.basis(2, 0), TS, **{name: bad})


# ---------------------------------------------------------------- issue 35: nothing silent in quantum inputs
NAN_X = np.array([[np.nan, 1.0], [1.0, 0.0]])  # ran as sigma_x: the sparsity scan dropped the NaN diagonal


def test_nan_entries_of_sparse_operators_are_refused_by_name():
    with pytest.raises(ValueError, match=r"operator must be finite; found 1 NaN/inf entries, first at index \[0, 0\]"):
        q.dia(NAN_X)
    with pytest.raises(ValueError, match=r"H must be finite; found 1 NaN/inf entries, first at index \[1, 0\]"):
        q.as_operator(np.array([[0.0, 1.0], [np.inf, 0.0]]), name="H")
    with pytest.raises(ValueError, match=r"exp_ops\['e0'\] must be finite"):  # was dropped: <E> came out 0
        q.sesolve(q.sigmaz(), q.basis(2, 0), TS, exp_ops=[NAN_X])
    # a NaN factor fills the stored diagonals (no check in the product: it also runs in every step's u(t) H_j);
    # the operator is refused where it enters a model
    with pytest.raises(ValueError, match=r"H must be finite; found 2 NaN/inf entries"):
        q.sesolve(np.nan * q.dia(q.sigmax()), q.basis(2, 0), TS)
    with pytest.raises(ValueError, match=r"H0 must be finite; found 2 NaN/inf entries"):
        q.SchrodingerModel(np.nan * q.dia(q.sigmax()))


def test_nan_entries_of_traced_operators_are_flagged():
    import equinox as eqx
    import jax.numpy as jnp

    @eqx.filter_jit
    def coupled(g):  # the spelling docs/quantum.md recommends for a traced coupling
        return q.SchrodingerModel(g * q.dia(q.sigmax())).H0.to_dense()

    assert np.allclose(coupled(jnp.asarray(0.5)), 0.5 * np.asarray(q.sigmax()), atol=1e-15)
    # a traced NaN factor is kept on the stored diagonals (it reaches the solution; nothing is dropped)
    assert np.isnan(np.asarray(coupled(jnp.asarray(np.nan)))[[0, 1], [1, 0]]).all()
    with pytest.raises(Exception, match=r"H0 must be finite; got NaN/inf entries"):
        eqx.filter_jit(lambda x: q.SchrodingerModel(x).H0.to_dense())(jnp.asarray(NAN_X))
    with pytest.raises(Exception, match=r"H must be finite; got NaN/inf entries"):
        eqx.filter_jit(lambda x: q.as_operator(x, name="H").to_dense())(jnp.asarray(NAN_X))


def _controllers():
    import diffrax

    pid = diffrax.PIDController
    return [
        (pid(rtol=-1.0, atol=1e-8), r"stepsize_controller\.rtol must be finite and >= 0 \(a tolerance\); got -1\.0"),
        (pid(rtol=0.0, atol=0.0), r"stepsize_controller\.rtol and stepsize_controller\.atol must not both be 0"),
        (pid(rtol=1e-6, atol=np.nan), r"stepsize_controller\.atol must be finite and >= 0 \(a tolerance\); got nan"),
        (pid(rtol=1e-6, atol=1e-8, dtmax=-1.0), r"stepsize_controller\.dtmax must be > 0 \(or None\); got -1\.0"),
        (pid(rtol=1e-6, atol=1e-8, dtmin=1.0, dtmax=0.1), r"stepsize_controller\.dtmin must be <= .*dtmax"),
        (pid(rtol=1e-6, atol=1e-8, factormax=0.5), r"stepsize_controller\.factormax must be >= 1"),
        (pid(rtol=1e-6, atol=1e-8, pcoeff=0.0, icoeff=0.0), r"stepsize_controller\.pcoeff \+ icoeff \+ dcoeff"),
        (diffrax.ClipStepSizeController(pid(rtol=-1.0, atol=1e-8), jump_ts=[0.5]), r"controller\.controller\.rtol"),
        ("pid", r"stepsize_controller must be a diffrax step-size controller instance.*got str 'pid'"),
    ]


@pytest.mark.parametrize("controller, message", _controllers())
def test_bad_stepsize_controllers_are_refused_by_sesolve_and_mesolve(controller, message):
    # PIDController(rtol=-1) ran and returned <sigma_z> off by far (3.73 in the report) as a success
    error = TypeError if isinstance(controller, str) else ValueError
    with pytest.raises(error, match=message):
        q.sesolve(q.sigmax(), q.basis(2, 0), TS, exp_ops=[q.sigmaz()], stepsize_controller=controller)
    with pytest.raises(error, match=message):
        q.mesolve(q.sigmax(), q.basis(2, 0), TS, exp_ops=[q.sigmaz()], stepsize_controller=controller)


def test_simulate_refuses_bad_controllers_and_a_fixed_step_without_dt0():
    import diffrax

    import difflab

    model = q.SchrodingerModel(q.sigmax())
    with pytest.raises(ValueError, match=r"stepsize_controller\.rtol must be finite and >= 0"):
        difflab.simulate(model, None, TS, stepsize_controller=diffrax.PIDController(rtol=-1.0, atol=1e-8))
    with pytest.raises(ValueError, match=r"dt0 must be given \(a step > 0 in ns\) with diffrax.ConstantStepSize"):
        q.sesolve(q.sigmax(), q.basis(2, 0), TS, stepsize_controller=diffrax.ConstantStepSize())
    with pytest.raises(ValueError, match=r"dt0 must be a finite step > 0"):
        q.sesolve(q.sigmax(), q.basis(2, 0), TS, stepsize_controller=diffrax.ConstantStepSize(), dt0=-0.1)


def test_coherent_state_that_truncation_empties_is_refused():
    # coherent(5, 10) kept 1.6e-37 of the weight and was renormalised to nearly |4> without a word
    with pytest.raises(ValueError, match=r"coherent\(N=5, alpha=10\.0\).*max_lost_weight=1e-06 \(it keeps 1\.61e-37"):
        q.coherent(5, 10.0)
    with pytest.raises(ValueError, match=r"coherent\(N=10, alpha=2\.0\).*drops 0\.00813"):
        q.coherent(10, 2.0)
    psi = q.coherent(10, 2.0, max_lost_weight=1e-2)  # a deliberate truncation (the reference data's)
    assert abs(np.linalg.norm(psi) - 1.0) < 1e-12
    with pytest.raises(ValueError, match=r"alpha must be finite; got nan"):
        q.coherent(5, np.nan)


def test_coherent_truncation_is_flagged_for_a_traced_alpha():
    import equinox as eqx
    import jax

    state = eqx.filter_jit(lambda a: q.coherent(20, a))
    assert abs(float(jax.numpy.abs(state(jax.numpy.asarray(1.0))[0])) - np.exp(-0.5)) < 1e-12
    with pytest.raises(Exception, match=r"coherent\(N=20, alpha=traced\): truncating"):
        state(jax.numpy.asarray(10.0))


def test_obscure_inputs_are_refused_with_what_was_expected():
    with pytest.raises(TypeError, match=r"H must be a Hamiltonian: a numeric \(n, n\) array.*got str 'sigmax'"):
        q.sesolve("sigmax", q.basis(2, 0), TS)
    with pytest.raises(ValueError, match=r"psi0 must be a ket of shape \(2,\) or \(2, 1\).*looks like a density"):
        q.sesolve(q.sigmax(), q.fock_dm(2, 0), TS)
    with pytest.raises(TypeError, match=r"Drive.operator must be a numeric array or an Operator; got str"):
        q.Drive(1.0, "sigmax")
    with pytest.raises(TypeError, match=r"Drive.protocol must be a difflab protocol or a number"):
        q.Drive("abc", q.sigmax())
    with pytest.raises(TypeError, match=r"drives must be a list of Drive terms; got a single Drive"):
        q.sesolve(q.sigmaz(), q.basis(2, 0), TS, drives=q.Drive(1.0, q.sigmax()))
    with pytest.raises(TypeError, match=r"jump_ops must be a list of operators; got a single operator"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), TS, jump_ops=q.sigmam())
    with pytest.raises(ValueError, match=r"index must be an integer level in \[0, 1\]; got bool True"):
        q.basis(2, True)  # made [1, 1]: a ket of norm sqrt(2)
    with pytest.raises(TypeError, match=r"psi0 must be a numeric array"):
        q.sesolve(q.sigmaz(), "g", TS)


def test_column_kets_are_accepted_as_kets():
    column = np.array([[1.0], [0.0]])
    model = q.SchrodingerModel(q.sigmaz(), psi0=column)
    assert np.array_equal(model.y0["psi"], q.SchrodingerModel(q.sigmaz()).y0["psi"])
    rho = q.LindbladModel(q.sigmaz(), rho0=column).y0["rho"]
    assert np.array_equal(rho, q.LindbladModel(q.sigmaz()).y0["rho"])
    result = q.sesolve(q.sigmaz(), column, TS, exp_ops=[q.sigmaz()])  # one ket, not two of dimension 1
    assert result.expects.shape == (3, 1)
    assert np.abs(np.asarray(result.expects) - 1.0).max() < 1e-6  # the default rtol


def test_same_classes_elsewhere_in_quantum_are_refused_by_name():

    nan = float("nan")
    with pytest.raises(ValueError, match=r"GaussianPulse\.amplitude must be finite"):
        q.GaussianPulse(nan, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"GaussianPulse\.sigma must be finite"):
        q.GaussianPulse(1.0, 1.0, nan)  # NaN passed the `sigma <= 0` test
    with pytest.raises(ValueError, match=r"width must be > 0 \(time units\); got nan"):
        q.GaussianPulse(1.0, 1.0, 1.0, nan)
    with pytest.raises(ValueError, match=r"times must be finite"):
        q.PiecewiseConstant([0.0, nan, 2.0], [1.0, 1.0])  # NaN edges passed the increasing test
    with pytest.raises(ValueError, match=r"values must be finite"):
        q.PiecewiseConstant([0.0, 1.0, 2.0], [1.0, nan])
    with pytest.raises(ValueError, match=r"shots must be a positive integer"):
        q.Readout().sample(0.5, 0, np.random.default_rng(0))  # gave NaN fractions (0 / 0)
    with pytest.raises(ValueError, match=r"pulses must be the pair"):
        q.transmon(-1.0, (q.GaussianPulse(1.0, 1.0, 1.0),))
    with pytest.raises(ValueError, match=r"steps must be a positive integer; got 0"):
        q.optimize_drag(steps=0)  # was an IndexError on an empty history
    with pytest.raises(ValueError, match=r"anharmonicity must be finite and non-zero"):
        q.optimize_drag(anharmonicity=0.0)
    with pytest.raises(ValueError, match=r"duration must be a finite time > 0 \(ns\); got -1"):
        q.subspace_propagator(q.transmon(-1.0, q.drag_pulses(1.0, 0.0, 10.0, 2.5)), -1.0)
    with pytest.raises(ValueError, match=r"rtol must be a finite number >= 0; got -1"):
        q.subspace_propagator(q.transmon(-1.0, q.drag_pulses(1.0, 0.0, 10.0, 2.5)), 10.0, rtol=-1.0)
    with pytest.raises(ValueError, match=r"n must lie in \[0, 1\] for dim=2; got 5"):
        q.fock(2, 5)
    with pytest.raises(TypeError, match=r"tensor factor 0 must be a numeric matrix or vector; got str"):
        q.tensor("a", q.sigmax())
    with pytest.raises(ValueError, match=r"H must act on at least one level"):
        q.sesolve(np.zeros((0, 0)), np.zeros(0), TS)


def test_solver_options_and_batch_coords_are_refused_by_name():
    import diffrax

    H2 = np.stack([q.sigmaz(), 2 * q.sigmaz()])
    with pytest.raises(ValueError, match=r"batch_coords\['g'\] must be 1-D with 2 values .* got shape \(3,\)"):
        q.sesolve(
            H2, q.basis(2, 0), TS, batching=q.Batching(coords={"g": [1, 2, 3]})
        )  # was xarray's "conflicting sizes"
    with pytest.raises(TypeError, match=r"solver must be a diffrax AbstractSolver instance.*got 'tsit5'"):
        q.sesolve(q.sigmaz(), q.basis(2, 0), TS, solver="tsit5")  # was an AttributeError inside diffrax
    with pytest.raises(TypeError, match=r"adjoint must be a diffrax AbstractAdjoint instance"):
        q.mesolve(q.sigmaz(), q.basis(2, 0), TS, adjoint=diffrax.Tsit5())
    with pytest.raises(ValueError, match=r"max_steps must be a positive integer or None; got -1"):
        q.sesolve(q.sigmaz(), q.basis(2, 0), TS, max_steps=-1)  # was "math domain error"
    with pytest.raises(ValueError, match=r"batching dim must be a name other than .*got 'time'"):
        q.sesolve(
            H2, q.basis(2, 0), TS, batching=q.Batching(dim="time")
        )  # was xarray's "conflicting sizes for dimension 'time'"
    with pytest.raises(TypeError, match=r"save_states must be True or False; got str 'yes'"):
        q.sesolve(q.sigmaz(), q.basis(2, 0), TS, save_states="yes")  # was KeyError: 'expect_re'
    with pytest.raises(ValueError, match=r"Drive.protocol must be finite"):
        q.Drive(np.nan, q.sigmax())
