"""Installed versions of difflab and its stack, as recorded in provenance attributes."""

from __future__ import annotations

import functools
import importlib.metadata


@functools.cache  # simulate records versions on every call; metadata lookups read files
def package_version(dist: str) -> str:
    """The installed version of the distribution `dist`, or `"not installed"`."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"
