"""Where the shipped data lives: the repository in a checkout, package data in a wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # the difflab package folder


def resource_dir(kind: str) -> Path:
    """Folder of shipped `kind` files: `"datasets"`, `"models"` or `"validation"`.

    A wheel carries them under `difflab/_data/<kind>` (hatch force-include); an editable
    install reads the top-level folders of the checkout.
    """
    packaged = _PACKAGE / "_data" / kind
    if packaged.is_dir():
        return packaged
    checkout = _PACKAGE.parent.parent / kind
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"no shipped {kind!r} folder at {packaged} or {checkout}")
