r"""Molecular integrals: shipped for H₂ and LiH (STO-3G) at several bond lengths, or computed by PySCF.

The shipped files (`datasets/quantum/circuits/molecule_*_sto3g.nc`, made by `generate_molecules.py` with PySCF
2.14.0) hold, per bond length, the restricted Hartree–Fock orbitals' integrals $h_{pq}$ and $(pq|rs)$ (chemists'
notation), the nuclear repulsion, and PySCF's RHF, full-CI and (LiH) CASCI energies as references, in hartree:

- H₂: atoms at $z = \pm R/2$, R = 0.5, 0.65, 0.7414, 0.9, 1.1, 1.5, 2.0, 3.0 Å (2 electrons, 2 orbitals);
- LiH: Li at the origin, H at $z = R$, R = 1.2, 1.5957, 2.0 Å (4 electrons, 6 orbitals); CASCI with 2 electrons in
  orbitals 1–4 above the frozen Li 1s (orbital 0).

`pyscf_integrals` computes the same for any closed-shell molecule and basis; it needs the optional extra
`pip install 'difflab[chemistry]'` (PySCF). Reference: Q. Sun et al., J. Chem. Phys. 153, 024109 (2020).
"""

from __future__ import annotations

import dataclasses
import numbers
import warnings
from collections.abc import Sequence

import numpy as np

from ... import datasets
from ...core.internal import optional_module
from ._molecular import check_integrals, molecular_hamiltonian
from ._pauli import PauliSum

MOLECULES = {"H2": "quantum/circuits/molecule_h2_sto3g.nc", "LiH": "quantum/circuits/molecule_lih_sto3g.nc"}
#: RHF convergence of `pyscf_integrals` (energy change, hartree); the orbitals converge to about its square root.
SCF_CONV_TOL = 1e-12


@dataclasses.dataclass(frozen=True)
class MolecularIntegrals:
    r"""The integrals of a molecule over restricted Hartree–Fock spatial orbitals, with reference energies.

    Attributes:
        one_body: $h_{pq}$, shape (n, n), hartree.
        two_body: $(pq|rs)$ in chemists' notation, shape (n, n, n, n), hartree.
        nuclear_repulsion: $E_{\rm nuc}$, hartree.
        n_electrons: number of electrons (even: a closed-shell reference).
        hf_energy: the RHF energy (hartree).
        fci_energy: PySCF's full-CI energy (hartree), or None where it was not computed.
    """

    one_body: np.ndarray
    two_body: np.ndarray
    nuclear_repulsion: float
    n_electrons: int
    hf_energy: float
    fci_energy: float | None = None

    @property
    def n_orbitals(self) -> int:
        """Number of spatial orbitals n (the qubit Hamiltonian has 2n wires)."""
        return self.one_body.shape[0]

    def hamiltonian(self, *, core: Sequence[int] = (), active: Sequence[int] | None = None) -> PauliSum:
        """The Jordan–Wigner qubit Hamiltonian (hartree), of an active space if asked (see `molecular_hamiltonian`)."""
        return molecular_hamiltonian(self.one_body, self.two_body, self.nuclear_repulsion, core=core, active=active)


def molecule_data(molecule: str):
    """The shipped integrals and references of `molecule` ("H2" or "LiH") as an `xarray.Dataset` over bond_length."""
    if molecule not in MOLECULES:
        raise ValueError(f"molecule must be one of {sorted(MOLECULES)}; got {molecule!r}")
    return datasets.load(MOLECULES[molecule])


def molecular_integrals(molecule: str, bond_length: float) -> MolecularIntegrals:
    """The shipped STO-3G integrals of `molecule` ("H2" or "LiH") at `bond_length` (Å), one of the stored values."""
    ds = molecule_data(molecule)
    lengths = ds.bond_length.values
    match = np.flatnonzero(np.isclose(lengths, bond_length, rtol=0, atol=1e-9))
    if match.size != 1:
        raise ValueError(f"bond_length must be one of the stored {molecule} bond lengths {lengths.tolist()} Å; got "
                         f"{bond_length!r} (pyscf_integrals computes any geometry)")  # fmt: skip
    row = ds.isel(bond_length=int(match[0]))
    return MolecularIntegrals(
        row.one_body.values, row.two_body.values, float(row.nuclear_repulsion), int(ds.attrs["n_electrons"]),
        float(row.hf_energy), float(row.fci_energy),
    )  # fmt: skip


def pyscf_integrals(
    atom, *, basis: str = "sto-3g", charge: int = 0, unit: str = "angstrom", fci: bool = False
) -> MolecularIntegrals:
    """Integrals of a closed-shell molecule from PySCF: RHF orbitals, `ao2mo`, nuclear repulsion (optional extra).

    Args:
        atom: PySCF's geometry, text `"H 0 0 0; H 0 0 0.74"` or a list `[["H", (0, 0, 0)], ...]`, or a built
            `pyscf.gto.Mole` (then `basis`, `charge` and `unit` are its own).
        basis: a basis PySCF knows ("sto-3g", "6-31g", "cc-pvdz", ...).
        charge: total charge; the electron count must be even (restricted Hartree–Fock).
        unit: of the coordinates, "angstrom" or "bohr" (PySCF converts with its own bohr, 0.52917721092 Å).
        fci: also compute PySCF's full-CI energy (`pyscf.fci`; exponential cost, small molecules only).

    Raises:
        ImportError: PySCF is missing (`pip install 'difflab[chemistry]'`).
        ValueError: unknown basis, unreadable geometry, an odd number of electrons, or no SCF convergence.
    """
    gto = optional_module("pyscf.gto", "chemistry", "pyscf_integrals")
    mol = atom if isinstance(atom, gto.Mole) else _build(gto, atom, basis, charge, unit)
    if mol.nelectron % 2:
        raise ValueError(f"the molecule must have an even number of electrons for a restricted (closed-shell) "
                         f"reference; atom and charge = {mol.charge} give {mol.nelectron}")  # fmt: skip
    scf = optional_module("pyscf.scf", "chemistry", "pyscf_integrals")
    ao2mo = optional_module("pyscf.ao2mo", "chemistry", "pyscf_integrals")
    mf = scf.RHF(mol)
    mf.verbose = 0
    mf.conv_tol = SCF_CONV_TOL
    mf.kernel()
    if not mf.converged:
        raise ValueError(f"PySCF's RHF did not converge for atom = {atom!r} (basis {mol.basis!r})")
    c = mf.mo_coeff
    n = c.shape[1]
    h, eri, e_nuc = check_integrals(c.T @ mf.get_hcore() @ c, ao2mo.restore(1, ao2mo.kernel(mol, c), n),
                                    float(mol.energy_nuc()))  # fmt: skip
    e_fci = float(optional_module("pyscf.fci", "chemistry", "pyscf_integrals").FCI(mf).kernel()[0]) if fci else None
    return MolecularIntegrals(h, eri, e_nuc, int(mol.nelectron), float(mf.e_tot), e_fci)


def _build(gto, atom, basis, charge, unit):
    if not isinstance(basis, str) or not basis:
        raise ValueError(f"basis must be the name of a basis set such as 'sto-3g'; got {basis!r}")
    if isinstance(charge, bool) or not isinstance(charge, numbers.Integral):
        raise ValueError(f"charge must be an integer; got {charge!r}")
    if not isinstance(unit, str) or unit.lower() not in ("angstrom", "bohr"):
        raise ValueError(f"unit must be 'angstrom' or 'bohr'; got {unit!r}")
    errors = optional_module("pyscf.lib.exceptions", "chemistry", "pyscf_integrals")
    with warnings.catch_warnings():
        # PySCF suggests basis-set-exchange for a basis it lacks; the error below says what was wrong.
        warnings.filterwarnings("ignore", message="Basis may be available in basis-set-exchange")
        try:
            mol = gto.Mole(atom=atom, basis=basis, charge=int(charge), unit=unit, verbose=0)
            if mol.nelectron % 2:  # before `build`, which refuses an odd count with spin 0 less clearly
                raise _OddElectrons(mol.nelectron)
            return mol.build()
        except errors.BasisNotFoundError:
            raise ValueError(f"basis {basis!r} is unknown to PySCF (e.g. 'sto-3g', '6-31g', 'cc-pvdz')") from None
        except _OddElectrons as odd:
            raise ValueError(
                f"the molecule must have an even number of electrons for a restricted (closed-shell) "
                f"reference; atom and charge = {charge} give {odd.args[0]}"
            ) from None
        except (RuntimeError, ValueError, KeyError, TypeError, IndexError) as err:
            raise ValueError(
                f"atom must be a geometry PySCF reads, e.g. 'H 0 0 0; H 0 0 0.74'; got {atom!r} "
                f"({type(err).__name__}: {err})"
            ) from None


class _OddElectrons(Exception):
    """An odd electron count, found before PySCF builds the molecule."""
