"""Run-level provenance: versions, platform, time and (in a checkout) the git commit."""

from __future__ import annotations

import datetime
import platform
import subprocess
import sys
from pathlib import Path

import jax

from ..core.internal import package_version
from ..data.internal import resource_dir

_PACKAGES = ("difflab", "jax", "jaxlib", "diffrax", "equinox", "numpy", "xarray", "matplotlib")


def run_provenance() -> dict[str, str]:
    """Versions of difflab and its numerical stack, Python, platform, JAX backend, UTC time, git commit."""
    info = {f"{name}_version": package_version(name) for name in _PACKAGES}
    info["python_version"] = sys.version.split()[0]
    info["platform"] = platform.platform()
    info["jax_backend"] = jax.default_backend()
    info["jax_x64"] = str(bool(jax.config.read("jax_enable_x64")))
    info["created_utc"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    info["git_commit"] = git_commit() or "not a git checkout"
    return info


def git_commit() -> str | None:
    """`<sha>` (`+dirty` with uncommitted changes) of the checkout difflab runs from, else `None`."""
    root = checkout_root()
    if root is None:
        return None
    try:
        sha = _git(root, "rev-parse", "HEAD")
        dirty = _git(root, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return sha + ("+dirty" if dirty else "")


def checkout_root() -> Path | None:
    """The repository root when difflab runs from a source checkout (not from a wheel)."""
    try:
        folder = resource_dir("validation")
    except FileNotFoundError:
        return None
    if folder.parent.name == "_data":  # package data inside an installed wheel
        return None
    return folder.parent


def _git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10, check=True)
    return out.stdout.strip()
