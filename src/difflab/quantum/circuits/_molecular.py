r"""Electronic Hamiltonians of molecules from molecular-orbital integrals, as fermionic and qubit operators.

With spatial orbitals p, q, r, s, the one-electron integrals $h_{pq}$ and the two-electron integrals $(pq|rs)$ in
chemists' notation (real orbitals, $(pq|rs) = \int \phi_p(1)\phi_q(1)\, r_{12}^{-1}\, \phi_r(2)\phi_s(2)$),
$$H = E_{\rm nuc} + \sum_{pq\sigma} h_{pq}\, a^\dagger_{p\sigma} a_{q\sigma}
      + \tfrac12 \sum_{pqrs}\sum_{\sigma\tau} (pq|rs)\, a^\dagger_{p\sigma} a^\dagger_{r\tau} a_{s\tau} a_{q\sigma},$$
with spin orbital $2p$ = $p\!\uparrow$ and $2p+1$ = $p\!\downarrow$ (OpenFermion's and PennyLane's interleaving),
hence wire $2p$ / $2p+1$ after `jordan_wigner`. Energies and integrals in hartree. Reference: T. Helgaker,
P. Jørgensen and J. Olsen, *Molecular Electronic-Structure Theory* (Wiley, 2000), eq. 2.2.18.

**Active space.** Orbitals in `core` stay doubly occupied (frozen); only those in `active` are kept. The core adds
the constant $E_{\rm core} = \sum_{i} 2h_{ii} + \sum_{ij} [2(ii|jj) - (ij|ji)]$ and the one-electron term
$h'_{uv} = h_{uv} + \sum_i [2(uv|ii) - (ui|iv)]$ (sums over core orbitals i, j), as in PySCF's CASCI and
OpenFermion's `get_active_space_integrals`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
from jaxtyping import ArrayLike

from ._fermion import FermionSum
from ._jordan_wigner import jordan_wigner
from ._pauli import PauliSum

#: Largest asymmetry of the integrals accepted, relative to their largest magnitude (round-off of a real basis).
SYMMETRY_TOLERANCE = 1e-10


def molecular_hamiltonian(
    one_body: ArrayLike,
    two_body: ArrayLike,
    nuclear_repulsion: float = 0.0,
    *,
    core: Sequence[int] = (),
    active: Sequence[int] | None = None,
) -> PauliSum:
    r"""The qubit Hamiltonian (hartree) of a molecule: `fermionic_hamiltonian` mapped by `jordan_wigner`.

    Args:
        one_body: $h_{pq}$, shape (n, n), real symmetric (hartree).
        two_body: $(pq|rs)$ in chemists' notation, shape (n, n, n, n), real with the 8-fold symmetry of real
            orbitals (hartree). PySCF's `ao2mo.restore(1, eri, n)` gives this layout.
        nuclear_repulsion: $E_{\rm nuc}$ (hartree), added to the identity term.
        core: spatial orbitals kept doubly occupied (frozen core).
        active: spatial orbitals kept (default: all orbitals not in `core`), in this order.

    Returns:
        A `PauliSum` on 2 × len(active) wires; wire 2k is active orbital k with spin up, 2k + 1 with spin down.
        The same operator as PennyLane's `qml.qchem.molecular_hamiltonian` and OpenFermion's
        `jordan_wigner(get_fermion_operator(molecule.get_molecular_hamiltonian()))` in that wire order.
    """
    op = fermionic_hamiltonian(one_body, two_body, nuclear_repulsion, core=core, active=active)
    n_active = len(active) if active is not None else np.shape(one_body)[0] - len(core)
    return jordan_wigner(op, 2 * n_active)


def fermionic_hamiltonian(
    one_body: ArrayLike,
    two_body: ArrayLike,
    nuclear_repulsion: float = 0.0,
    *,
    core: Sequence[int] = (),
    active: Sequence[int] | None = None,
) -> FermionSum:
    """The electronic Hamiltonian as a `FermionSum` over spin orbitals (arguments as `molecular_hamiltonian`)."""
    h, eri, e_nuc = check_integrals(one_body, two_body, nuclear_repulsion)
    constant, h, eri = active_space(h, eri, core, active)
    terms: dict = {(): e_nuc + constant}
    for p, q in zip(*np.nonzero(h)):
        for s in (0, 1):
            terms[((2 * p + s, 1), (2 * q + s, 0))] = h[p, q]
    for p, q, r, t in zip(*np.nonzero(eri)):
        for s1 in (0, 1):
            for s2 in (0, 1):
                i, j, k, m = 2 * p + s1, 2 * q + s1, 2 * r + s2, 2 * t + s2
                if i != k and j != m:  # a†_i a†_i = a_j a_j = 0
                    terms[((i, 1), (k, 1), (m, 0), (j, 0))] = 0.5 * eri[p, q, r, t]
    return FermionSum(terms)


def active_space(
    h: np.ndarray, eri: np.ndarray, core: Sequence[int], active: Sequence[int] | None
) -> tuple[float, np.ndarray, np.ndarray]:
    r"""The core energy and the active-space integrals ($E_{\rm core}$, $h'$, $(uv|wx)$) of checked integrals."""
    n = h.shape[0]
    core = _orbitals("core", core, n, allow_empty=True)
    active = _orbitals("active", [p for p in range(n) if p not in core] if active is None else active, n)
    both = set(core) & set(active)
    if both:
        raise ValueError(f"core and active must not share orbitals; both hold {sorted(both)}")
    c, a = list(core), list(active)
    coulomb = np.einsum("pqii->pq", eri[:, :, c][:, :, :, c])
    exchange = np.einsum("piiq->pq", eri[:, c][:, :, c])
    constant = np.sum(2 * h[c, c] + 2 * coulomb[c, c] - exchange[c, c])
    h_active = (h + 2 * coulomb - exchange)[np.ix_(a, a)]
    return float(constant), h_active, eri[np.ix_(a, a, a, a)]


def check_integrals(one_body, two_body, nuclear_repulsion) -> tuple[np.ndarray, np.ndarray, float]:
    """The integrals as float arrays, refused by name unless real, finite, of matching shapes and symmetric."""
    h = _real_array("one_body", one_body)
    eri = _real_array("two_body", two_body)
    n = h.shape[0] if h.ndim == 2 else 0
    if h.ndim != 2 or n < 1 or h.shape != (n, n):
        raise ValueError(f"one_body must be a square matrix h_pq of shape (n, n); got shape {h.shape}")
    if eri.shape != (n, n, n, n):
        raise ValueError(f"two_body must have shape {(n, n, n, n)}, (pq|rs) over the {n} orbitals of one_body; "
                         f"got shape {eri.shape}")  # fmt: skip
    scale = SYMMETRY_TOLERANCE * max(1.0, float(np.abs(h).max()), float(np.abs(eri).max()))
    if np.abs(h - h.T).max() > scale:
        raise ValueError(f"one_body must be symmetric (h_pq = h_qp for real orbitals); largest |h - h.T| is "
                         f"{np.abs(h - h.T).max():.3g}")  # fmt: skip
    for name, swapped in (("(qp|rs)", eri.transpose(1, 0, 2, 3)), ("(pq|sr)", eri.transpose(0, 1, 3, 2)),
                          ("(rs|pq)", eri.transpose(2, 3, 0, 1))):  # fmt: skip
        if np.abs(eri - swapped).max() > scale:
            raise ValueError(f"two_body must be (pq|rs) in chemists' notation with (pq|rs) = {name} (real "
                             f"orbitals); largest difference {np.abs(eri - swapped).max():.3g}. Physicists' "
                             "<pq|rs> is (pr|qs): pass np.transpose(g, (0, 2, 1, 3))")  # fmt: skip
    if isinstance(nuclear_repulsion, bool) or not isinstance(nuclear_repulsion, numbers.Real | np.floating):
        if not (isinstance(nuclear_repulsion, np.ndarray) and nuclear_repulsion.shape == ()):
            raise TypeError(f"nuclear_repulsion must be a real number (hartree); got {nuclear_repulsion!r}")
    e_nuc = float(nuclear_repulsion)
    if not np.isfinite(e_nuc):
        raise ValueError(f"nuclear_repulsion must be finite (hartree); got {nuclear_repulsion!r}")
    return h, eri, e_nuc


def _real_array(name: str, value) -> np.ndarray:
    x = np.asarray(value)
    if not (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.integer)):
        raise TypeError(f"{name} must be a real array (hartree); got dtype {x.dtype}")
    x = x.astype(float)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must be finite; got NaN or infinite values")
    return x


def _orbitals(name: str, value, n: int, allow_empty: bool = False) -> tuple[int, ...]:
    items = list(value) if isinstance(value, Sequence | np.ndarray) and not isinstance(value, str) else None
    if items is None or not all(isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in items):
        raise ValueError(f"{name} must be a sequence of spatial-orbital indices; got {value!r}")
    out = tuple(int(p) for p in items)
    if not out and not allow_empty:
        raise ValueError(f"{name} must hold at least one orbital; got none")
    if len(set(out)) != len(out) or any(p < 0 or p >= n for p in out):
        raise ValueError(f"{name} must hold distinct orbitals in range(0, {n}); got {out!r}")
    return out
