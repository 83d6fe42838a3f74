"""Make the shipped molecular integrals with PySCF: H2 and LiH in STO-3G at several bond lengths.

    pip install "pyscf==2.14.0" xarray netCDF4
    python datasets/quantum/circuits/generate_molecules.py   # ~5 s

Writes `molecule_h2_sto3g.nc` and `molecule_lih_sto3g.nc` next to this script. For each bond length: the restricted
Hartree-Fock molecular orbitals (PySCF `scf.RHF`, conv_tol 1e-13), the one-electron integrals h_pq and the
two-electron integrals (pq|rs) in chemists' notation over those spatial orbitals (`ao2mo.restore(1, ...)`, all
n^4 entries), the nuclear repulsion, the orbital energies, and PySCF's reference energies: RHF, full CI
(`fci.FCI`, the lowest state with as many alpha as beta electrons) and, for LiH, CASCI with 2 electrons in 4
orbitals above a frozen Li 1s core (`mcscf.CASCI(mf, 4, 2)`). Everything in hartree; bond lengths in angstrom,
given to PySCF in bohr with 1 bohr = 0.529177210903 angstrom (CODATA 2018, as `generate.py`).
"""

from __future__ import annotations

import platform
from pathlib import Path

import numpy as np
import pyscf
import xarray as xr
from pyscf import ao2mo, fci, gto, mcscf, scf

HERE = Path(__file__).parent
BOHR = 0.529177210903  # angstrom, CODATA 2018
CONV_TOL = 1e-13
MOLECULES = {
    # name: (file, symbols, bond lengths in angstrom, CASCI (n_active_orbitals, n_active_electrons) or None)
    "H2": ("molecule_h2_sto3g.nc", ("H", "H"), [0.5, 0.65, 0.7414, 0.9, 1.1, 1.5, 2.0, 3.0], None),
    "LiH": ("molecule_lih_sto3g.nc", ("Li", "H"), [1.2, 1.5957, 2.0], (4, 2)),
}


def geometry(symbols, r: float) -> list:
    """Atoms on the z axis (bohr): H2 at +-R/2, LiH with Li at the origin and H at z = R."""
    z = [-r / 2, r / 2] if symbols == ("H", "H") else [0.0, r]
    return [[s, (0.0, 0.0, zi / BOHR)] for s, zi in zip(symbols, z, strict=True)]


def one_geometry(symbols, r: float, cas) -> dict:
    mol = gto.M(atom=geometry(symbols, r), unit="Bohr", basis="sto-3g", verbose=0)
    mf = scf.RHF(mol)
    mf.conv_tol = CONV_TOL
    mf.kernel()
    assert mf.converged
    c = mf.mo_coeff
    n = c.shape[1]
    out = {
        "one_body": c.T @ mf.get_hcore() @ c,
        "two_body": ao2mo.restore(1, ao2mo.kernel(mol, c), n),
        "nuclear_repulsion": mol.energy_nuc(),
        "mo_energy": mf.mo_energy,
        "hf_energy": mf.e_tot,
        "fci_energy": fci.FCI(mf).kernel()[0],
        "n_electrons": mol.nelectron,
    }
    if cas is not None:
        casci = mcscf.CASCI(mf, *cas)
        casci.verbose = 0
        out["casci_energy"] = casci.kernel()[0]
    return out


def dataset(name: str) -> xr.Dataset:
    _, symbols, lengths, cas = MOLECULES[name]
    rows = [one_geometry(symbols, r, cas) for r in lengths]
    ha = {"units": "hartree"}
    orb = ("orbital_p", "orbital_q", "orbital_r", "orbital_s")
    data = {
        "one_body": (("bond_length", *orb[:2]), np.stack([x["one_body"] for x in rows]),
                     {**ha, "long_name": "one-electron integrals h_pq over RHF spatial orbitals"}),
        "two_body": (("bond_length", *orb), np.stack([x["two_body"] for x in rows]),
                     {**ha, "long_name": "two-electron integrals (pq|rs), chemists' notation, RHF spatial orbitals"}),
        "nuclear_repulsion": ("bond_length", [x["nuclear_repulsion"] for x in rows],
                              {**ha, "long_name": "nuclear repulsion energy"}),
        "mo_energy": (("bond_length", "orbital_p"), np.stack([x["mo_energy"] for x in rows]),
                      {**ha, "long_name": "RHF orbital energies"}),
        "hf_energy": ("bond_length", [x["hf_energy"] for x in rows], {**ha, "long_name": "PySCF RHF energy"}),
        "fci_energy": ("bond_length", [x["fci_energy"] for x in rows], {**ha, "long_name": "PySCF full-CI energy"}),
    }  # fmt: skip
    if cas is not None:
        data["casci_energy"] = ("bond_length", [x["casci_energy"] for x in rows],
                                {**ha, "long_name": f"PySCF CASCI energy, {cas[1]} electrons in {cas[0]} orbitals "
                                                    "above the lowest (frozen) orbitals"})  # fmt: skip
    ds = xr.Dataset(data, coords={"bond_length": ("bond_length", np.asarray(lengths), {"units": "angstrom"})})
    ds.attrs.update({
        "generator": "datasets/quantum/circuits/generate_molecules.py",
        "molecule": name, "symbols": " ".join(symbols), "n_electrons": rows[0]["n_electrons"], "basis": "sto-3g",
        "geometry": "H2: atoms at z = -R/2 and +R/2; LiH: Li at the origin, H at z = R (angstrom, converted to bohr "
                    "with 1 bohr = 0.529177210903 angstrom)",
        "method": f"pyscf scf.RHF (conv_tol {CONV_TOL:g}), ao2mo.kernel + ao2mo.restore(1), fci.FCI(mf)",
        "pyscf_version": pyscf.__version__, "numpy_version": np.__version__,
        "python_version": platform.python_version(), "platform": f"{platform.system()} {platform.machine()}",
        "units": "energies and integrals in hartree; bond_length in angstrom",
    })  # fmt: skip
    if cas is not None:
        ds.attrs.update({"casci_n_orbitals": cas[0], "casci_n_electrons": cas[1]})
    return ds


def main() -> None:
    for name, (file, *_) in MOLECULES.items():
        ds = dataset(name)
        ds.to_netcdf(HERE / file, engine="netcdf4", encoding={"two_body": {"zlib": True}})
        print(ds)


if __name__ == "__main__":
    main()
