r"""Fermionic operators: sums of products of creation and annihilation operators on spin orbitals (modes).

A `FermionSum` is $\sum_t c_t\, w_t$ with complex $c_t$ and words $w_t$, products of ladder operators
$a_p^\dagger$ and $a_p$ that obey $\{a_p, a_q^\dagger\} = \delta_{pq}$, $\{a_p, a_q\} = 0$. A word is written as
OpenFermion writes it, a tuple of `(mode, action)` pairs with action 1 for $a^\dagger$ and 0 for $a$ (leftmost
factor first), or as text, `"3^ 1"` for $a_3^\dagger a_1$; `""` and `()` are the identity. For molecules, mode
$2p$ is spatial orbital $p$ with spin up and $2p + 1$ the same orbital with spin down (OpenFermion's and
PennyLane's interleaving).

The algebra is symbolic and runs on the host (plain Python and NumPy): build an operator once, then map it to
qubits with `jordan_wigner`, whose `PauliSum` coefficients are the arrays that JAX traces. `normal_ordered` puts
creation operators left of annihilation operators, each group by descending mode (OpenFermion's
`normal_ordered`), using the anticommutation relations; equal operators have equal normal-ordered terms.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping

import numpy as np

from ._pauli_formats import coefficient

#: A product of ladder operators: ((mode, action), ...) with action 1 = creation, 0 = annihilation.
Word = tuple[tuple[int, int], ...]
_TOKEN = re.compile(r"^(\d+)(\^?)$")


class FermionSum:
    r"""A linear combination $\sum_t c_t\, w_t$ of products of fermionic ladder operators (immutable).

    Args:
        terms: a mapping from words to complex coefficients. A word is a tuple of `(mode, action)` pairs (action 1
            for $a^\dagger_{\rm mode}$, 0 for $a_{\rm mode}$) or its text, `"2^ 0"` for $a_2^\dagger a_0$;
            `()` / `""` is the identity. Equal words are summed.

    Example:
        ```python
        from difflab.quantum import circuits as qc
        hop = qc.FermionSum({"0^ 2": 0.5, "2^ 0": 0.5})
        n0 = qc.FermionSum.creation(0) * qc.FermionSum.annihilation(0)
        ```

    `+`, `-`, scalar `*` and the operator product `*` combine sums; `adjoint()` is the Hermitian conjugate. The
    coefficients carry the units of the operator (hartree for a molecular Hamiltonian).
    """

    __slots__ = ("_terms",)
    _terms: dict[Word, complex]

    def __init__(self, terms: Mapping | None = None):
        if terms is None:
            terms = {}
        if not isinstance(terms, Mapping):
            raise TypeError(f"terms must be a mapping from words to coefficients, e.g. {{'0^ 1': 0.5}}; "
                            f"got {type(terms).__name__}")  # fmt: skip
        out: dict[Word, complex] = {}
        for key, value in terms.items():
            word = _as_word(key)
            out[word] = out.get(word, 0.0) + coefficient(value, f"terms[{key!r}]")
        self._terms = out

    @classmethod
    def creation(cls, mode: int) -> FermionSum:
        r"""$a^\dagger_{\rm mode}$."""
        return cls({((_as_mode(mode, "mode"), 1),): 1.0})

    @classmethod
    def annihilation(cls, mode: int) -> FermionSum:
        r"""$a_{\rm mode}$."""
        return cls({((_as_mode(mode, "mode"), 0),): 1.0})

    @classmethod
    def from_openfermion(cls, op) -> FermionSum:
        """From an OpenFermion `FermionOperator` (read through its `.terms`, the same words as here)."""
        terms = getattr(op, "terms", None)
        if not isinstance(terms, Mapping):
            raise TypeError(f"op must be an OpenFermion FermionOperator (with a .terms mapping); got "
                            f"{type(op).__name__}")  # fmt: skip
        return cls(terms)

    @property
    def terms(self) -> dict[Word, complex]:
        """A copy of the words and their coefficients."""
        return dict(self._terms)

    @property
    def n_modes(self) -> int:
        """One past the highest mode named (0 for a multiple of the identity)."""
        return 1 + max((p for word in self._terms for p, _ in word), default=-1)

    def adjoint(self) -> FermionSum:
        r"""The Hermitian conjugate: $(c\, a_p^\dagger a_q)^\dagger = \bar c\, a_q^\dagger a_p$."""
        return FermionSum(
            {tuple((p, 1 - action) for p, action in reversed(word)): c.conjugate() for word, c in self._terms.items()}
        )

    def normal_ordered(self) -> FermionSum:
        """The same operator with every word normal ordered (creations left, each group by descending mode).

        Words that vanish ($a_p a_p$) and coefficients that cancel to exactly zero are dropped.
        """
        out: dict[Word, complex] = {}
        for word, c in self._terms.items():
            _normal_order(list(word), c, out)
        return FermionSum({w: c for w, c in out.items() if c != 0})

    def __add__(self, other) -> FermionSum:
        other = _as_sum(other)
        if other is None:
            return NotImplemented
        out = dict(self._terms)
        for word, c in other._terms.items():
            out[word] = out.get(word, 0.0) + c
        return FermionSum(out)

    __radd__ = __add__

    def __neg__(self) -> FermionSum:
        return FermionSum({w: -c for w, c in self._terms.items()})

    def __sub__(self, other) -> FermionSum:
        other = _as_sum(other)
        return NotImplemented if other is None else self + (-other)

    def __rsub__(self, other) -> FermionSum:
        other = _as_sum(other)
        return NotImplemented if other is None else other + (-self)

    def __mul__(self, other) -> FermionSum:
        if _is_scalar(other):
            c = coefficient(other, "the scalar factor")
            return FermionSum({w: c * v for w, v in self._terms.items()})
        if not isinstance(other, FermionSum):
            return NotImplemented
        out: dict[Word, complex] = {}
        for w1, c1 in self._terms.items():
            for w2, c2 in other._terms.items():
                out[w1 + w2] = out.get(w1 + w2, 0.0) + c1 * c2
        return FermionSum(out)

    def __rmul__(self, other) -> FermionSum:
        return self * other if _is_scalar(other) else NotImplemented

    def __repr__(self) -> str:
        if not self._terms:
            return "FermionSum({})"
        body = " +\n".join(f"{c} [{_word_text(w)}]" for w, c in self._terms.items())
        return f"FermionSum(\n{body})"


def _normal_order(word: list[tuple[int, int]], c: complex, out: dict[Word, complex]) -> None:
    r"""Add the normal-ordered form of $c\,$`word` to `out` (insertion sort by anticommutation).

    Each exchange of two neighbours flips the sign; bringing $a_p$ past $a_p^\dagger$ also leaves the contracted
    word, $a_p a_p^\dagger = 1 - a_p^\dagger a_p$, which is ordered in turn.
    """
    for i in range(1, len(word)):
        for j in range(i, 0, -1):
            (p, left), (q, right) = word[j - 1], word[j]
            if left == right and p == q:
                return  # a_p a_p = a_p† a_p† = 0
            if right > left or (right == left and q > p):
                if p == q:  # a_p a_p† = 1 - a_p† a_p
                    _normal_order(word[: j - 1] + word[j + 1 :], c, out)
                word[j - 1], word[j] = word[j], word[j - 1]
                c = -c
            else:
                break
    key = tuple(word)
    out[key] = out.get(key, 0.0) + c


def _is_scalar(x) -> bool:
    return (isinstance(x, numbers.Number) and not isinstance(x, bool)) or (isinstance(x, np.ndarray) and x.ndim == 0)


def _as_sum(x) -> FermionSum | None:
    """`x` as a FermionSum (a number is that multiple of the identity), or None if it is neither."""
    if isinstance(x, FermionSum):
        return x
    return FermionSum({(): x}) if _is_scalar(x) else None


def _as_mode(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{where} must be a non-negative integer mode index; got {value!r}")
    return int(value)


def _as_word(key) -> Word:
    """A word from its text (`"2^ 0"`) or its tuple of (mode, action) pairs, refused by name otherwise."""
    if isinstance(key, str):
        word = []
        for token in key.split():
            match = _TOKEN.match(token)
            if match is None:
                raise ValueError(f"term {key!r}: {token!r} must be a mode index, followed by ^ for a creation "
                                 "operator (as in '2^ 0')")  # fmt: skip
            word.append((int(match.group(1)), int(bool(match.group(2)))))
        return tuple(word)
    if not isinstance(key, tuple):
        raise TypeError(f"a term's word must be text such as '2^ 0' or a tuple of (mode, action) pairs; got {key!r}")
    word = []
    for factor in key:
        if not (isinstance(factor, tuple) and len(factor) == 2 and factor[1] in (0, 1)):
            raise ValueError(f"term {key!r}: each factor must be a (mode, action) pair with action 1 (creation) "
                             f"or 0 (annihilation); got {factor!r}")  # fmt: skip
        word.append((_as_mode(factor[0], f"the mode of factor {factor!r}"), int(factor[1])))
    return tuple(word)


def _word_text(word: Word) -> str:
    return " ".join(f"{p}^" if action else str(p) for p, action in word)
