"""Old keyword spellings kept for one deprecation period: they go at 0.3.

`legacy_keywords(names, handler)` wraps a public function: a call that uses none of the old `names` runs the
function itself, with its documented signature; a call that uses one goes to `handler`, which warns with
`warn_moved` (naming the new spelling) and calls the function with the new one. The function's own signature thus
holds only the current parameters, and the translation of the old ones lives in one place per function (as
matplotlib's `rename_parameter` does).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: The version in which the deprecated spellings are removed.
REMOVAL = "0.3"


def warn_moved(where: str, old: str, new: str, stacklevel: int = 4) -> None:
    """DeprecationWarning: `where(old=...)` goes at 0.3; pass `new` instead.

    The default `stacklevel` points at the user's call through `handler` and the wrapper of `legacy_keywords`.
    """
    warnings.warn(
        f"{where}({old}=...) is deprecated and goes at {REMOVAL}: pass {new}", DeprecationWarning, stacklevel=stacklevel
    )


def gather_moved(where: str, kwargs: dict[str, Any], group: str, kind: type, fields: tuple[str, ...]) -> None:
    """Move the old keywords `fields` of `kwargs` into `kwargs[group] = kind(...)`, warning once for each.

    For a `legacy_keywords` handler: `where(field=...)` became `where(group=difflab.kind(field=...))`. Giving a
    field both ways is refused.
    """
    given = {name: kwargs.pop(name) for name in fields if name in kwargs}
    if not given:
        return
    for name in given:  # the user's call is one frame further out than `warn_moved`'s default assumes
        warn_moved(where, name, f"{group}=difflab.{kind.__name__}({name}=...)", stacklevel=5)
    if kwargs.get(group) is not None:
        raise TypeError(f"{where}(): {', '.join(given)} given both as keywords and through {group}=; give them once")
    kwargs[group] = kind(**given)


def legacy_keywords(names: frozenset[str], handler: Callable[..., Any]) -> Callable[[F], F]:
    """Send calls that use any keyword of `names` to `handler(*args, **kwargs)`; others to the function."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if names.isdisjoint(kwargs):
                return fn(*args, **kwargs)
            return handler(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
