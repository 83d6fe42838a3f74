"""Fingerprints of whole problems, so that a resumed fit or sweep can refuse to continue a different one.

A checkpoint or a chunk on disk is only valid for the problem that wrote it. Names alone do not
say that (a rerun with another protocol, solver or fixed parameter under the same names would
silently reuse old results), so the stored attributes carry a sha256 of every array and every
static setting of the problem.
"""

from __future__ import annotations

import functools
import hashlib
import re
import types
from typing import Any

import equinox as eqx
import jax
import numpy as np

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


#: Packages whose functions are identified by name (their code is the installed version's): a user's function is
#: followed into what it calls, a library's is not (it would walk the whole library).
_LIBRARIES = frozenset({"jax", "jaxlib", "numpy", "scipy", "equinox", "diffrax", "optax", "optimistix", "lineax",
                        "xarray", "pandas", "difflab", "builtins", "math", "functools", "operator"})  # fmt: skip
_DEPTH = 12


def callable_identity(fn: Any) -> str:
    """A stable description of a function: its qualified name and a hash of everything its result depends on.

    The hash covers the code (bytecode, constants and the names it reads, nested functions included), the values
    of its closure cells and default arguments, and the globals it reads: numbers, strings and arrays by value,
    library functions and modules by name (`jnp.max` and `jnp.min` differ), the user's own functions followed
    recursively, `functools.partial` by its function and arguments, Equinox modules by their fields. So an
    observable whose result could change (another reducer, another window captured in a closure) gets another
    identity, and a rerun refuses the old chunks or checkpoint instead of reusing them. An object with no stable
    description (its representation is a memory address) is described by that address: in a new process it
    never matches, so reuse is refused rather than guessed.
    """
    name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', type(fn).__name__)}"
    digest = hashlib.sha256()
    _describe(fn, digest, set(), 0)
    return f"{name}:{digest.hexdigest()[:16]}"


def _describe(obj: Any, digest, seen: set[int], depth: int) -> None:
    """Feed `obj`'s stable description into `digest` (see `callable_identity`)."""
    if depth > _DEPTH or id(obj) in seen:
        digest.update(f"<seen {_qualified(obj)}>".encode())
        return
    if obj is None or isinstance(obj, bool | int | float | complex | str | bytes):
        digest.update(f"{type(obj).__name__}:{obj!r};".encode())
    elif eqx.is_array(obj) or isinstance(obj, np.ndarray | np.generic):
        arr = np.asarray(obj)
        digest.update(f"array{arr.dtype}{arr.shape}".encode())
        digest.update(np.ascontiguousarray(arr).tobytes())
    elif isinstance(obj, list | tuple | set | frozenset):
        items = sorted(obj, key=repr) if isinstance(obj, set | frozenset) else obj
        digest.update(f"{type(obj).__name__}[{len(items)}]".encode())
        for item in items:
            _describe(item, digest, seen, depth + 1)
    elif isinstance(obj, dict):
        digest.update(f"dict[{len(obj)}]".encode())
        for key in sorted(obj, key=repr):
            _describe(key, digest, seen, depth + 1)
            _describe(obj[key], digest, seen, depth + 1)
    elif isinstance(obj, types.ModuleType):
        digest.update(f"module:{obj.__name__};".encode())
    elif isinstance(obj, functools.partial):
        seen.add(id(obj))
        digest.update(b"partial")
        for part in (obj.func, obj.args, obj.keywords):
            _describe(part, digest, seen, depth + 1)
    elif isinstance(obj, types.MethodType):
        seen.add(id(obj))
        _describe(obj.__func__, digest, seen, depth + 1)
        _describe(obj.__self__, digest, seen, depth + 1)
    elif isinstance(obj, types.FunctionType) and not _is_library(obj):
        seen.add(id(obj))
        _describe_function(obj, digest, seen, depth)
    elif isinstance(obj, eqx.Module):  # before the library callables: a protocol is one, with its own numbers
        seen.add(id(obj))
        digest.update(f"module:{_qualified(type(obj))}".encode())
        leaves, treedef = jax.tree.flatten(obj)
        digest.update(_ADDRESS.sub("", str(treedef)).encode())
        for leaf in leaves:
            _describe(leaf, digest, seen, depth + 1)
    elif isinstance(obj, type) or (callable(obj) and _is_library(obj)):
        digest.update(f"named:{_qualified(obj)};".encode())
    else:  # an object of the user's: its representation, or its address when that is all it has (never reused)
        digest.update(f"{_qualified(type(obj))}:{obj!r};".encode())


def _describe_function(fn: types.FunctionType, digest, seen: set[int], depth: int) -> None:
    code = fn.__code__
    _describe_code(code, digest)
    for cell in fn.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell (a name assigned later in the enclosing function)
            value = "<empty cell>"
        _describe(value, digest, seen, depth + 1)
    _describe(fn.__defaults__, digest, seen, depth + 1)
    _describe(fn.__kwdefaults__, digest, seen, depth + 1)
    for name in sorted(_global_names(code)):
        if name in fn.__globals__:
            digest.update(f"global {name}=".encode())
            _describe(fn.__globals__[name], digest, seen, depth + 1)


def _describe_code(code: types.CodeType, digest) -> None:
    digest.update(code.co_code)
    digest.update(repr(code.co_names).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _describe_code(const, digest)
        else:
            digest.update(repr(const).encode())


def _global_names(code: types.CodeType) -> set[str]:
    """Names a code object (and the code nested in it) may read from its globals."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _is_library(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module.split(".")[0] in _LIBRARIES


def _qualified(obj: Any) -> str:
    module = getattr(obj, "__module__", "?")
    return f"{module}.{getattr(obj, '__qualname__', getattr(obj, '__name__', type(obj).__name__))}"


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
