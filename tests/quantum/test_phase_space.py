r"""Wigner and Husimi Q functions against exact formulas and QuTiP 5.3.1.

Exact forms in QuTiP's coordinates, α = g (x + iy)/2, densities in (x, y) (W_xy = (g²/4) W_α, Q likewise),
written for g = √2 (so |α|² = r²/2, r² = x² + y²) unless stated:

- Fock |n⟩: W = (−1)ⁿ/π · Lₙ(2r²) · e^{−r²} (vacuum: e^{−r²}/π).
- coherent |β⟩: W = e^{−2|α−β|²}/π; Q = e^{−|α−β|²}/(2π); for general g, W = g²/(2π) e^{−2|α−β|²} and
  Q = g²/(4π) e^{−|α−β|²}.
- cat (|β⟩ ± |−β⟩)/√(2(1 ± e^{−2β²})), β real: W = [e^{−2|α−β|²} + e^{−2|α+β|²}
  ± 2 e^{−2|α|²} cos(4β Im α)] / (2π (1 ± e^{−2β²})); the parity ±1 gives W(0) = ±1/π, and the fringes of the
  even cat dip to negative values at Im α = π/(4β).
- thermal of mean photon number n̄: W = e^{−r²/(2n̄+1)} / (π (2n̄+1)).

Tolerances: 1e-12 max abs against the closed forms (values ≤ 1/π; round-off ~1e-15; the states are truncated
where that changes W by < 1e-15: the cats and coherent states need N = 40, at N = 30 their far tails differ by
1e-12 and 1e-13), 1e-9 for Fock N = 60 (scipy's Laguerre values at degree 59), 1e-12 against QuTiP (measured
2e-16), normalisation on a grid 1e-9.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.special import eval_laguerre

import difflab.datasets
import difflab.quantum as q

EXACT = 1e-12
X = np.linspace(-4.0, 4.0, 33)
XX, YY = np.meshgrid(X, X)
R2 = XX**2 + YY**2
ALPHA = (XX + 1j * YY) / np.sqrt(2)


def _fock_exact(n: int) -> np.ndarray:
    return (-1) ** n / np.pi * eval_laguerre(n, 2 * R2) * np.exp(-R2)


def _cat(beta: float, sign: int, n: int = 40):
    psi = np.asarray(q.coherent(n, beta) + sign * q.coherent(n, -beta))
    return psi / np.linalg.norm(psi)


def _cat_exact(beta: float, sign: int) -> np.ndarray:
    a = ALPHA
    fringes = 2 * np.exp(-2 * abs(a) ** 2) * np.cos(4 * beta * a.imag)
    top = np.exp(-2 * abs(a - beta) ** 2) + np.exp(-2 * abs(a + beta) ** 2) + sign * fringes
    return top / (2 * np.pi * (1 + sign * np.exp(-2 * beta**2)))


@pytest.mark.parametrize("n", [0, 1, 3, 10])
def test_fock_wigner_is_a_laguerre_polynomial(n):
    W = q.wigner(q.fock_dm(30, n), X, X)
    assert W.shape == (X.size, X.size)
    assert np.abs(np.asarray(W) - _fock_exact(n)).max() <= EXACT


def test_fock_60_levels_stays_finite_and_exact():
    x = np.linspace(-12.0, 12.0, 49)
    xx, yy = np.meshgrid(x, x)
    r2 = xx**2 + yy**2
    for n in (40, 59):
        W = np.asarray(q.wigner(q.fock(60, n), x, x))
        exact = (-1) ** n / np.pi * eval_laguerre(n, 2 * r2) * np.exp(-r2)
        assert np.all(np.isfinite(W))
        assert np.abs(W - exact).max() <= 1e-9


def test_coherent_state_is_a_shifted_gaussian():
    beta = 1.2 - 0.7j
    W = np.asarray(q.wigner(q.coherent(40, beta), X, X))
    assert np.abs(W - np.exp(-2 * abs(ALPHA - beta) ** 2) / np.pi).max() <= EXACT
    # g = 2: α = x + iy and W = g²/(2π) e^{−2|α−β|²}
    W2 = np.asarray(q.wigner(q.coherent(40, beta), X, X, g=2.0))
    assert np.abs(W2 - 2 / np.pi * np.exp(-2 * abs(XX + 1j * YY - beta) ** 2)).max() <= EXACT


def test_cat_states_fringes_parity_and_negativity():
    beta = 1.5
    even = np.asarray(q.wigner(_cat(beta, +1), X, X))
    odd = np.asarray(q.wigner(_cat(beta, -1), X, X))
    assert np.abs(even - _cat_exact(beta, +1)).max() <= EXACT
    assert np.abs(odd - _cat_exact(beta, -1)).max() <= EXACT
    origin = np.asarray(q.wigner(_cat(beta, +1), [0.0], [0.0, np.sqrt(2) * np.pi / (4 * beta)]))
    assert abs(origin[0, 0] - 1 / np.pi) <= EXACT  # parity +1
    assert abs(float(q.wigner(_cat(beta, -1), [0.0], [0.0])[0, 0]) + 1 / np.pi) <= EXACT  # parity −1
    # the even cat's first fringe minimum, Im α = π/(4β) (y = √2 π/(4β)), is negative
    a = 1j * np.pi / (4 * beta)
    top = np.exp(-2 * abs(a - beta) ** 2) + np.exp(-2 * abs(a + beta) ** 2) - 2 * np.exp(-2 * abs(a) ** 2)
    dip = top / (2 * np.pi * (1 + np.exp(-2 * beta**2)))
    assert dip < -0.1
    assert abs(origin[1, 0] - dip) <= EXACT


def test_thermal_state_is_a_wider_gaussian():
    nbar = 0.5
    levels = np.arange(60)
    rho = np.diag(nbar**levels / (1 + nbar) ** (levels + 1))
    W = np.asarray(q.wigner(rho, X, X))
    width = 2 * nbar + 1
    assert np.abs(W - np.exp(-R2 / width) / (np.pi * width)).max() <= EXACT


def test_husimi_q_of_a_coherent_state():
    beta = -0.8 + 1.1j
    Q = np.asarray(q.qfunc(q.coherent(40, beta), X, X))
    assert np.abs(Q - np.exp(-(abs(ALPHA - beta) ** 2)) / (2 * np.pi)).max() <= EXACT
    Q1 = np.asarray(q.qfunc(q.ket2dm(q.coherent(40, beta)), X, X, g=1.0))
    assert np.abs(Q1 - np.exp(-(abs(0.5 * (XX + 1j * YY) - beta) ** 2)) / (4 * np.pi)).max() <= EXACT


def test_both_integrate_to_one():
    x = np.linspace(-10.0, 10.0, 161)  # Q of the cat falls to 1e-14 by |x| = 10
    area = (x[1] - x[0]) ** 2
    psi = _cat(1.5, +1)
    assert abs(float(q.wigner(psi, x, x).sum()) * area - 1) <= 1e-9
    assert abs(float(q.qfunc(psi, x, x).sum()) * area - 1) <= 1e-9


def test_ket_column_and_density_matrix_agree():
    psi = _cat(1.1, -1) * np.exp(0.3j)
    xs, ys = X[::2], X[1::3]  # a non-square grid: rows follow yvec
    W = np.asarray(q.wigner(psi, xs, ys))
    assert W.shape == (ys.size, xs.size)
    for other in (psi[:, None], q.ket2dm(psi)):
        assert np.abs(np.asarray(q.wigner(other, xs, ys)) - W).max() <= 1e-14
        assert np.abs(np.asarray(q.qfunc(other, xs, ys)) - np.asarray(q.qfunc(psi, xs, ys))).max() <= 1e-14


def test_jit_vmap_and_gradient_against_finite_differences():
    x = np.array([0.3, -0.5])

    levels = np.arange(20.0)
    root_factorial = np.sqrt([math.factorial(k) for k in range(20)])

    def value(b):  # W at (x, y) = (-0.5, 0.3) of the coherent state |b⟩, b real (weight lost above 20 levels: 1e-30)
        ket = jnp.exp(-(b**2) / 2) * b**levels / root_factorial
        return q.wigner(ket.astype(complex), x, x[:1])[0, 1]

    b0 = 0.7
    grad = float(jax.grad(value)(b0))
    h = 1e-5
    fd = (float(value(b0 + h)) - float(value(b0 - h))) / (2 * h)
    a = (-0.5 + 0.3j) / np.sqrt(2)
    exact = 4 * (a.real - b0) * np.exp(-2 * abs(a - b0) ** 2) / np.pi  # d/dβ of e^{−2|α−β|²}/π, β real
    assert abs(grad - exact) <= 1e-12
    assert abs(grad - fd) <= 1e-8

    rhos = jnp.stack([q.fock_dm(8, k) for k in range(3)])
    batch = jax.jit(jax.vmap(lambda r: q.wigner(r, x, x)))(rhos)
    for k in range(3):
        assert np.abs(np.asarray(batch[k]) - np.asarray(q.wigner(rhos[k], x, x))).max() <= 1e-15


def test_matches_qutip_reference():
    ref = difflab.datasets.load("quantum/phase_space_qutip")
    assert ref.attrs["qutip"] == "5.3.1"
    for state in ref.state.values:
        d = ref.sel(state=state)
        rho = d.rho_re.values + 1j * d.rho_im.values
        x, y = ref.x.values, ref.y.values
        assert np.abs(np.asarray(q.wigner(rho, x, y)) - d.wigner.values).max() <= 1e-12, state
        assert np.abs(np.asarray(q.qfunc(rho, x, y)) - d.qfunc.values).max() <= 1e-12, state


@pytest.mark.parametrize(
    ("state", "xvec", "g", "match"),
    [
        (np.zeros((3, 2)), X, 1.0, r"wigner: state must be a ket \(N,\) .* got shape \(3, 2\)"),
        (np.zeros((2, 2, 2)), X, 1.0, r"state must be a ket .* got shape \(2, 2, 2\)"),
        (np.array([1.0, np.nan]), X, 1.0, r"state must be finite; found 1 NaN/inf"),
        (np.diag([0.5, 0.3]), X, 1.0, r"must have trace 1; got trace 0\.8"),
        (np.array([[0.5, 0.2], [0.0, 0.5]]), X, 1.0, r"must be Hermitian; max \|ρ − ρ†\| = 0\.2"),
        (np.array([1.0, 1.0]), X, 1.0, r"must have unit norm; got norm² 2"),
        (np.eye(2) / 2, np.zeros((2, 2)), 1.0, r"xvec must be a non-empty 1-D array .* got shape \(2, 2\)"),
        (np.eye(2) / 2, np.array([0.0, np.inf]), 1.0, r"xvec must be finite; found 1 NaN/inf"),
        (np.eye(2) / 2, X, 0.0, r"g must be a finite real scale > 0 .* got 0\.0"),
        (np.eye(2) / 2, X, -1.0, r"g must be a finite real scale > 0"),
    ],
)
def test_bad_inputs_are_refused_by_name(state, xvec, g, match):
    with pytest.raises(ValueError, match=match):
        q.wigner(state, xvec, X, g=g)


def test_bad_inputs_are_refused_by_qfunc_too():
    with pytest.raises(ValueError, match=r"qfunc: yvec must be finite"):
        q.qfunc(q.fock(3, 0), X, np.array([np.nan]))
    with pytest.raises(TypeError, match=r"state must be a ket \(N,\)"):
        q.qfunc("vacuum", X, X)
