"""The layout rules (`scripts/check_layout.py`): internal faces, imports at the top, no cycles, short signatures."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check_layout.py"


def _run(package: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHECK), str(package)], capture_output=True, text=True, timeout=120)


def test_difflab_follows_the_layout_rules():
    done = _run(ROOT / "src" / "difflab")
    assert done.returncode == 0, done.stdout
    assert "layout: 0 problem(s)" in done.stdout


@pytest.fixture
def broken_package(tmp_path):
    """A package with one breach of each rule."""
    pkg = tmp_path / "difflab"
    for folder in ("core", "neuron"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "_checks.py").write_text("def is_concrete(x):\n    return True\n")
    (pkg / "neuron" / "_cell.py").write_text(
        "from ..core._checks import is_concrete\nfrom ._channels import leak\n\n\n"
        "def build():\n    import numpy\n    return numpy\n"
    )
    (pkg / "neuron" / "_channels.py").write_text("from ._cell import build\n\nleak = 1\n")
    thirteen = ", ".join(f"p{i}" for i in range(11))
    (pkg / "neuron" / "_fit.py").write_text(
        f"def fit({thirteen}, *args, **kwargs):\n    pass\n\n\n"  # 13 with *args and **kwargs
        f"def _helper({thirteen}, a, b, c):\n    pass\n\n\n"  # private: not counted
        f"class Model:\n    def __init__(self, {thirteen}, a):\n        pass\n\n"  # 12 without self
        f"    def run(self, {thirteen}, a, b):\n        pass\n"  # 13 without self
    )
    return pkg


def test_checker_names_each_breach(broken_package):
    done = _run(broken_package)
    assert done.returncode == 1
    assert "neuron/_cell.py:1: imports difflab.core._checks, a private module of another folder" in done.stdout
    assert "neuron/_cell.py:6: imports numpy inside a function" in done.stdout
    assert "import cycle: difflab.neuron._cell -> difflab.neuron._channels -> difflab.neuron._cell" in done.stdout
    assert "neuron/_fit.py:1: fit has 13 parameters (at most 12)" in done.stdout
    assert "neuron/_fit.py:13: Model.run has 13 parameters (at most 12)" in done.stdout
    assert "layout: 5 problem(s)" in done.stdout
