"""Fingerprints of whole problems, so that a resumed fit or sweep can refuse to continue a different one.

A checkpoint or a chunk on disk is only valid for the problem that wrote it. Names alone do not
say that (a rerun with another protocol, solver or fixed parameter under the same names would
silently reuse old results), so the stored attributes carry a sha256 of every array and every
static setting of the problem.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import equinox as eqx
import jax
import numpy as np

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def callable_identity(fn: Any) -> str:
    """A stable description of a function: its qualified name and a hash of its code and constants."""
    code = getattr(fn, "__code__", None)
    name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', type(fn).__name__)}"
    if code is None:
        return _ADDRESS.sub("", name + repr(fn))
    body = hashlib.sha256(code.co_code + repr(code.co_consts).encode()).hexdigest()[:16]
    return f"{name}:{body}"


def tree_fingerprint(*trees: Any) -> str:
    """sha256 of the structure, the array values (with dtype and shape) and the other leaves of `trees`.

    Memory addresses in representations are removed, so the fingerprint is the same in a new process.
    """
    leaves, treedef = jax.tree.flatten(trees)
    digest = hashlib.sha256(_ADDRESS.sub("", str(treedef)).encode())
    for leaf in leaves:
        if eqx.is_array(leaf) or isinstance(leaf, np.ndarray):
            arr = np.asarray(leaf)
            digest.update(f"{arr.dtype}{arr.shape}".encode())
            digest.update(np.ascontiguousarray(arr).tobytes())
        elif callable(leaf):
            digest.update(callable_identity(leaf).encode())
        else:
            digest.update(_ADDRESS.sub("", repr(leaf)).encode())
    return digest.hexdigest()


def dataset_checksum(ds) -> str:
    """sha256 of every data variable of an xarray Dataset (name, dtype, shape and bytes), in name order.

    Stored in a file's `checksum` attribute when it is written and recomputed when it is read back,
    it catches a file that is readable but not what was written (a flipped bit, a partial copy).
    """
    digest = hashlib.sha256()
    for name in sorted(map(str, ds.data_vars)):
        arr = np.asarray(ds[name].values)
        digest.update(f"{name}{arr.dtype}{arr.shape}".encode())
        digest.update(np.ascontiguousarray(arr).tobytes())
    return digest.hexdigest()
