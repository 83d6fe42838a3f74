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
