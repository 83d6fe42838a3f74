"""Sections NEURON 9 builds from Neurolucida files (run in a separate environment with `neuron==9.0.2`).

    python datasets/neuron/generate_asc.py

Writes, for each `.asc` file below, `<stem>_import3d.nc`: the sections of `Import3d_Neurolucida3` +
`Import3d_GUI(reader, False).instantiate(None)` (names, parents, attachment x, 3-D point counts, L, and the
nseg that NEURON's d_lambda rule and BluePyOpt's nseg_frequency rule give), every segment's area, diam and ri
at nseg 1, and the soma's 3-D points. For the L5PC file also `C060114A7_bluepyopt.nc`: the sections after
BluePyOpt 1.14.26's `NrnFileMorphology(path, do_replace_axon=True).instantiate` (nseg 1 + 2 int(L/40), then
the axon replaced by its 60 um stub). Provenance: README.md here.
"""

from __future__ import annotations

from pathlib import Path

import bluepyopt
import neuron
import numpy as np
import xarray as xr
from bluepyopt import ephys
from neuron import h

HERE = Path(__file__).resolve().parent
FILES = ["C060114A7.asc", "asc_syntax.asc", "asc_soma_stack.asc"]
# the L5PC's passive parameters (Hay et al. 2011, BluePyOpt's l5pc example): Ra and cm by region
RA = 100.0  # ohm cm
CM = {"soma": 1.0, "axon": 1.0, "dend": 2.0, "apic": 2.0, "dend_0": 1.0}  # uF/cm2
h.load_file("stdrun.hoc")
h.load_file("import3d.hoc")


def _clear():
    for sec in list(h.allsec()):
        h.delete_section(sec=sec)


def _region(name):
    return name.split("[")[0].split(".")[-1]


def _short(sec):
    return sec.name().split(".")[-1]  # a section of a cell object is "<cell>.soma[0]"


def _sections_dataset(sections, extra_section_vars):
    """Per section: parent, parent_x, n3d, L, nseg; per segment: area, diam, ri."""
    rows, seg_names, area, diam, ri = [], [], [], [], []
    for sec in sections:
        parent = sec.parentseg()
        rows.append((_short(sec), _short(parent.sec) if parent else "", parent.x if parent else -1.0, sec.n3d(),
                     sec.L, sec.nseg))  # fmt: skip
        for seg in sec:
            seg_names.append(f"{_short(sec)}({seg.x:.6g})")
            area.append(seg.area())
            diam.append(seg.diam)
            ri.append(seg.ri())
    names, parents, xs, n3d, L, nseg = map(list, zip(*rows, strict=True))
    data = {
        "parent": ("section", parents, {"long_name": "parent section ('' for the root)"}),
        "parent_x": ("section", np.array(xs), {"long_name": "attachment point on the parent"}),
        "n3d": ("section", np.array(n3d), {"long_name": "number of 3-D points"}),
        "L": ("section", np.array(L), {"units": "um", "long_name": "section length"}),
        "nseg": ("section", np.array(nseg), {"long_name": "number of segments"}),
        "area": ("segment", np.array(area), {"units": "um^2", "long_name": "membrane area (seg.area())"}),
        "diam": ("segment", np.array(diam), {"units": "um", "long_name": "segment diameter (seg.diam)"}),
        "ri": ("segment", np.array(ri), {"units": "MOhm", "long_name": "axial resistance to the parent (seg.ri())"}),
        **extra_section_vars,
    }
    return xr.Dataset(data, coords={"section": names, "segment": seg_names})


def import3d(file):
    """The sections Import3d builds at nseg 1, the nseg of the two rules, and the soma's 3-D points."""
    _clear()
    reader = h.Import3d_Neurolucida3()
    reader.quiet = 1
    reader.input(str(HERE / file))
    h.Import3d_GUI(reader, False).instantiate(None)
    sections = list(h.allsec())
    d_lambda, length = [], []
    for sec in sections:
        sec.Ra, sec.cm = RA, CM[_region(sec.name())]
        d_lambda.append(int((sec.L / (0.1 * h.lambda_f(100, sec=sec)) + 0.9) / 2) * 2 + 1)
        length.append(1 + 2 * int(sec.L / 40.0))
    extra = {
        "nseg_d_lambda": ("section", np.array(d_lambda), {"long_name": "d_lambda rule: 0.1 lambda_f(100 Hz), Ra "
                                                          f"{RA} ohm cm, cm by region {CM} uF/cm2"}),
        "nseg_length_40": ("section", np.array(length), {"long_name": "1 + 2 int(L / 40 um)"}),
    }  # fmt: skip
    ds = _sections_dataset(sections, extra)
    soma = next(s for s in sections if s.name() == "soma[0]")
    points = np.array([[soma.x3d(i), soma.y3d(i), soma.z3d(i), soma.diam3d(i)] for i in range(soma.n3d())])
    ds["soma_points"] = (("soma_point", "xyzd"), points, {"units": "um", "long_name": "soma[0]'s x3d, y3d, z3d, "
                                                          "diam3d"})  # fmt: skip
    ds = ds.assign_coords(xyzd=["x", "y", "z", "diam"])
    ds.attrs.update(
        simulator="NEURON", simulator_version=neuron.__version__, source=file,
        reader="Import3d_Neurolucida3 (quiet) + Import3d_GUI(reader, False).instantiate(None); area, diam and ri "
               "at nseg 1",
    )  # fmt: skip
    return ds


def bluepyopt_l5pc():
    """C060114A7.asc through BluePyOpt's NrnFileMorphology with its axon replacement (nseg_frequency 40)."""
    _clear()
    sim = ephys.simulators.NrnSimulator()
    lists = ["somatic", "axonal", "apical", "basal", "myelinated", "all"]
    icell = ephys.models.CellModel.create_empty_cell(
        "L5PCMorph", sim, seclist_names=lists, secarray_names=["soma", "dend", "apic", "axon", "myelin"]
    )
    morph = ephys.morphologies.NrnFileMorphology(str(HERE / "C060114A7.asc"), do_replace_axon=True)
    morph.instantiate(sim=sim, icell=icell)
    ds = _sections_dataset(list(icell.all), {})
    ds.attrs.update(
        simulator="NEURON", simulator_version=neuron.__version__, source="C060114A7.asc",
        reader=f"BluePyOpt {bluepyopt.__version__} NrnFileMorphology(path, do_replace_axon=True).instantiate: "
               "Import3d, nseg = 1 + 2 int(L/40), axon replaced by two 30 um sections",
    )  # fmt: skip
    return ds


def main():
    for file in FILES:
        out = HERE / file.replace(".asc", "_import3d.nc")
        import3d(file).to_netcdf(out)
        print("wrote", out.name)
    bluepyopt_l5pc().to_netcdf(HERE / "C060114A7_bluepyopt.nc")
    print("wrote C060114A7_bluepyopt.nc")


if __name__ == "__main__":
    main()
