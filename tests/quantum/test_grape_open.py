r"""Open-system GRAPE: `piecewise_channel`, `channel_fidelity`, `channel_leakage`, `optimize_gate(..., jump_ops=...)`.

Systems (ħ = 1, ns, rad/ns, rates in 1/ns):
- the three-level transmon of test_grape.py (α/2π = −200 MHz, rotating frame, x and y quadratures), with
  $T_1$ decay $L = \sqrt{\gamma}\,a$;
- a qubit held idle for $T$ (zero controls). Amplitude damping $L = \sqrt{\gamma}\,\sigma_-$ has Kraus operators
  $K_0 = \mathrm{diag}(1, \sqrt p)$, $K_1 = \sqrt{1 - p}\,|0\rangle\langle 1|$, $p = e^{-\gamma T}$, so
  $F_\text{pro} = |\mathrm{Tr} K_0|^2/4 = (1 + \sqrt p)^2/4$ and $F_\text{avg} = (2F_\text{pro} + 1)/3
  = (3 + p + 2\sqrt p)/6$. Pure dephasing $L = \sqrt{\gamma/2}\,\sigma_z$ damps the coherence by $c = e^{-\gamma T}$:
  $\rho \mapsto \tfrac{1+c}{2}\rho + \tfrac{1-c}{2}\sigma_z\rho\sigma_z$, $F_\text{pro} = (1 + c)/2$,
  $F_\text{avg} = (2 + c)/3$;
- a qutrit idle for $T$ with $L = \sqrt{\gamma}\,|2\rangle\langle 1|$ (pumping out of the subspace {0, 1}):
  $P\mathcal{E}(\rho)P$ has the one Kraus operator $\mathrm{diag}(1, \sqrt p)$, so the leakage is
  $1 - (1 + p)/2 = (1 - p)/2$ and $F_\text{avg} = ((1 + \sqrt p)^2/2 + (1 + p)/2)/3 = (1 + \sqrt p + p)/3$.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum as q
from difflab.quantum._grape_objective import GateProblem, amplitudes, figures, loss
from difflab.quantum._piecewise_channel import dissipator

TWO_PI = 2 * np.pi
U_MAX = TWO_PI * 0.1  # rad/ns
GAMMA_T1 = 1 / 20_000  # 1/ns: T1 = 20 µs


def transmon():
    a = np.asarray(q.destroy(3))
    ad = a.conj().T
    H0 = 0.5 * (TWO_PI * -0.2) * ad @ ad @ a @ a
    return H0, [0.5 * (a + ad), 0.5j * (ad - a)], a


def idle(jump_ops, T, n=2):
    """The channel of n levels left alone for T ns (one control with zero amplitude, three slices)."""
    controls = q.PiecewiseControls(np.zeros((1, 3)), T)
    return q.piecewise_channel(np.zeros((n, n)), [np.diag(np.arange(n, dtype=float))], controls, jump_ops)


def test_zero_rates_give_the_unitary_objective_and_gradient():
    # The same problem (detuning ensemble, amplitude and slew bounds) with no dissipator and with a zero one.
    H0, ops, a = transmon()
    dtype = jnp.result_type(complex)
    common = {
        "H0": jnp.asarray(H0).astype(dtype), "operators": jnp.asarray(np.stack(ops)).astype(dtype),
        "target": jnp.asarray(q.X_GATE).astype(dtype), "dt": jnp.full(8, 2.5),
        "detunings": TWO_PI * jnp.array([-2e-3, 0.0, 2e-3]),
        "detuning_operator": jnp.diag(jnp.arange(3.0)).astype(dtype),
        "scale": jnp.full((2, 1), U_MAX), "slew_step": jnp.full((2, 1), 0.5), "leakage_weight": jnp.asarray(1.0),
        "subspace": (0, 1), "bounded": True,
    }  # fmt: skip
    closed = GateProblem(**common, dissipation=None)
    open_ = GateProblem(**common, dissipation=dissipator([0.0 * jnp.asarray(a).astype(dtype)], 3))
    rng = np.random.default_rng(7)
    params = {"z0": jnp.asarray(rng.normal(size=(2, 1))), "y": jnp.asarray(rng.normal(size=(2, 7)))}
    value_and_grad = jax.jit(jax.value_and_grad(loss, has_aux=True))
    (value_c, _), grad_c = value_and_grad(params, closed)
    (value_o, _), grad_o = value_and_grad(params, open_)
    infidelity_c, leakage_c = figures(amplitudes(params, closed), closed)
    infidelity_o, leakage_o = figures(amplitudes(params, open_), open_)
    assert 0.05 < float(value_c) < 1.0 and float(jnp.min(leakage_c)) > 1e-3  # a generic point: leaky, far from F = 1
    np.testing.assert_allclose(infidelity_o, infidelity_c, rtol=0, atol=1e-12)
    np.testing.assert_allclose(leakage_o, leakage_c, rtol=0, atol=1e-12)
    assert abs(float(value_o) - float(value_c)) < 1e-12
    for key in params:
        np.testing.assert_allclose(grad_o[key], grad_c[key], rtol=0, atol=1e-10)


def test_channel_figures_of_a_unitary_are_the_unitary_ones():
    H0, ops, a = transmon()
    controls = q.PiecewiseControls(np.random.default_rng(3).uniform(-0.4, 0.4, (2, 7)), 5.0)
    S = q.piecewise_channel(H0, ops, controls, [0.0 * a])
    U = q.piecewise_propagator(H0, ops, controls)
    np.testing.assert_allclose(S, np.kron(U.conj(), U), atol=1e-13)  # vec(U ρ U†) = (Ū ⊗ U) vec ρ
    F, leak = q.gate_fidelity(U, q.X_GATE, (0, 1)), q.leakage(U, (0, 1))
    assert float(leak) > 0.01  # a leaky block, where Horodecki's (d F_pro + 1)/(d + 1) alone would differ
    assert float(q.channel_fidelity(S, q.X_GATE, (0, 1))) == pytest.approx(float(F), abs=1e-14)
    assert float(q.channel_leakage(S, (0, 1))) == pytest.approx(float(leak), abs=1e-14)


def test_channel_matches_mepropagator():
    H0, ops, a = transmon()
    jump_ops = [np.sqrt(0.01) * a, np.sqrt(0.02) * a.conj().T @ a]  # decay and dephasing, 1/ns
    controls = q.PiecewiseControls(np.random.default_rng(3).uniform(-0.4, 0.4, (2, 7)), 5.0)
    S = q.piecewise_channel(H0, ops, controls, jump_ops)
    reference = q.mepropagator(
        H0, jnp.array([0.0, 5.0]), jump_ops=jump_ops, drives=controls.drives(ops), rtol=1e-12, atol=1e-14
    )
    np.testing.assert_allclose(S, reference.propagators[-1], atol=1e-8)


@pytest.mark.parametrize("gamma", [0.01, 0.2])
def test_idle_qubit_under_amplitude_damping_and_dephasing(gamma):
    T = 30.0
    p = np.exp(-gamma * T)
    sm = np.asarray(q.sigmam())  # |0><1|
    S = idle([np.sqrt(gamma) * sm], T)
    assert float(q.channel_fidelity(S, np.eye(2))) == pytest.approx((3 + p + 2 * np.sqrt(p)) / 6, abs=1e-10)
    assert abs(float(q.channel_leakage(S, (0, 1)))) < 1e-12  # trace preserving on the whole space
    S = idle([np.sqrt(gamma / 2) * np.asarray(q.sigmaz())], T)
    assert float(q.channel_fidelity(S, np.eye(2))) == pytest.approx((2 + p) / 3, abs=1e-10)

    # dF/dγ = −T (p + √p)/6, through the jump operator's rate
    def fidelity(rate):
        return q.channel_fidelity(idle([jnp.sqrt(rate) * sm], T), np.eye(2))

    grad = float(jax.grad(fidelity)(jnp.asarray(gamma)))
    assert grad == pytest.approx(-T * (p + np.sqrt(p)) / 6, rel=1e-9)


def test_leakage_of_a_pump_out_of_the_subspace():
    gamma, T = 0.05, 10.0
    p = np.exp(-gamma * T)
    L = np.sqrt(gamma) * np.outer(np.eye(3)[2], np.eye(3)[1])  # |2><1|
    S = idle([L], T, n=3)
    assert float(q.channel_leakage(S, (0, 1))) == pytest.approx((1 - p) / 2, abs=1e-10)
    assert float(q.channel_fidelity(S, np.eye(2), (0, 1))) == pytest.approx((1 + np.sqrt(p) + p) / 3, abs=1e-10)


def test_x_gate_with_t1_reaches_the_coherence_limit():
    # 20 ns, 20 slices, |Ω| < 2π × 100 MHz, T1 = 20 µs. Both runs go through the channel (the first at zero rate,
    # which is the unitary objective: test above), so the second reuses the first one's compiled step.
    H0, ops, a = transmon()
    T, arguments = 20.0, {"subspace": (0, 1), "u_max": U_MAX}
    closed = q.optimize_gate(H0, ops, q.X_GATE, T, 20, jump_ops=[0.0 * a], **arguments)
    U = q.piecewise_propagator(H0, ops, closed.controls)
    assert closed.fidelity == pytest.approx(float(q.gate_fidelity(U, q.X_GATE, (0, 1))), abs=1e-12)
    assert closed.fidelity > 1 - 1e-8

    jump_ops = [np.sqrt(GAMMA_T1) * a]
    options = q.GrapeOptions(steps=30)
    result = q.optimize_gate(
        H0, ops, q.X_GATE, T, 20, jump_ops=jump_ops, initial=closed.controls, options=options, **arguments
    )
    S = q.piecewise_channel(H0, ops, result.controls, jump_ops)
    assert result.fidelity == pytest.approx(float(q.channel_fidelity(S, q.X_GATE, (0, 1))), abs=1e-12)
    assert result.leakage == pytest.approx(float(q.channel_leakage(S, (0, 1))), abs=1e-12)
    assert result.open_system and result.to_xarray().attrs["system"] == "open: Lindblad channel"

    # The coherence limit: a qubit decaying for the whole gate, 1 − F = 1 − (3 + p + 2√p)/6 = 3.332e-4 (≈ γT/3).
    # The unitary optimum loses 3.367e-4 under the decay (its passage through |2>, which decays at 2γ); the
    # open-system optimum 3.334e-4 after 30 steps.
    p = np.exp(-GAMMA_T1 * T)
    limit = (3 + p + 2 * np.sqrt(p)) / 6
    S_closed = q.piecewise_channel(H0, ops, closed.controls, jump_ops)
    closed_under_decay = float(q.channel_fidelity(S_closed, q.X_GATE, (0, 1)))
    assert 1 - closed_under_decay > 1 - limit + 2e-6
    assert abs(result.fidelity - limit) < 1e-6
    assert result.fidelity - closed_under_decay > 2e-6


@pytest.mark.parametrize(
    ("jump_ops", "error", "match"),
    [
        (np.asarray(q.destroy(3)), TypeError, r"jump_ops must be a list of jump operators .* pass a single operator"),
        ([np.eye(2)], ValueError, r"jump_ops\[0\] must be one jump operator of the shape of H0 \(3, 3\); got \(2, 2\)"),
        ([np.zeros((2, 3, 3))], ValueError, r"jump_ops\[0\] must be one jump operator .* got \(2, 3, 3\)"),
        ([np.sqrt(np.nan) * np.eye(3)], ValueError, r"jump_ops\[0\] must be finite"),
        ([np.eye(3), np.diag([0.0, np.inf, 0.0])], ValueError, r"jump_ops\[1\] must be finite"),
        ([np.zeros((9, 9))], ValueError, r"jump_ops\[0\] has shape \(9, 9\), that of a superoperator on 3 levels"),
        (["a"], TypeError, r"jump_ops\[0\] must be a jump operator"),
    ],
)
def test_bad_jump_operators_are_refused_by_name(jump_ops, error, match):
    H0, ops, _ = transmon()
    with pytest.raises(error, match=match):
        q.optimize_gate(H0, ops, q.X_GATE, 20.0, 4, subspace=(0, 1), jump_ops=jump_ops)
    with pytest.raises(error, match=match):
        q.piecewise_channel(H0, ops, q.PiecewiseControls(np.zeros((2, 4)), 20.0), jump_ops)


def test_bad_channel_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match=r"S must be a superoperator \(\.\.\., n², n²\)"):
        q.channel_fidelity(np.eye(3), np.eye(2))
    with pytest.raises(ValueError, match=r"target must be a \(2, 2\) gate on the subspace of S"):
        q.channel_fidelity(np.eye(9), np.eye(3), (0, 1))
    with pytest.raises(ValueError, match=r"subspace must be distinct level indices in \[0, 3\)"):
        q.channel_leakage(np.eye(9), (0, 3))
    with pytest.raises(ValueError, match=r"GrapeOptions\.detuning_operator must be Hermitian"):
        q.GrapeOptions(detuning_operator=np.triu(np.ones((3, 3))))
