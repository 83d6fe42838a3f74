r"""Pauli sums as other tools write them, read into (coefficients, strings) for `PauliSum` and written back.

None of these tools is imported: each is read through its public interface (duck typing) or its text.

- Qiskit `SparsePauliOp.to_list()`: `[(label, coeff)]`, labels **little-endian**: the last character acts on qubit
  0, so `"ZIIX"` is X on qubit 0 and Z on qubit 3 (difflab's string `"XIIZ"`).
- OpenFermion `QubitOperator.terms`: `{((0, 'X'), (3, 'Z')): coeff}`, `()` the identity; its text
  `"0.5 [X0 Z3] +\n-0.2 [Y1]"` (`str(op)`).
- PennyLane `PauliSentence`: `{PauliWord({0: 'X', 'a': 'Z'}): coeff}` (also an operator's `.pauli_rep`); wire labels
  map to difflab wires by their position in `wire_order`, whose first wire is the most significant bit (PennyLane's
  `qml.matrix(op, wire_order=...)` order, and difflab's).
- Text terms `{"X0 Z3": 0.5, "": -1.0}`: letter and wire index, as inside OpenFermion's brackets.

Equal strings are summed. A complex coefficient is accepted only if, after summing, its imaginary part is at most
`IMAG_TOLERANCE` times the largest coefficient magnitude (round-off of a Hermitian operator); otherwise the
operator is not Hermitian and is refused.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

#: Largest imaginary part of a summed coefficient, relative to the largest input coefficient magnitude, read as 0.
IMAG_TOLERANCE = 1e-12
_TOKEN = re.compile(r"^([IXYZ])(\d+)$")
_OPENFERMION_TERM = re.compile(r"\s*(\([^()]*\)|[^\[\]()]*?)\s*\[([^\[\]]*)\]\s*(\+|$)")

#: A term: non-identity letters by wire, and its coefficient.
Term = tuple[dict[int, str], complex]


def coefficient(value, where: str) -> complex:
    """`value` as a complex number, refused by name unless it is a finite (real or complex) number."""
    if isinstance(value, bool | str | bytes) or not (isinstance(value, numbers.Number) or np.ndim(value) == 0):
        raise TypeError(f"{where} must be a real or complex number; got {type(value).__name__} {value!r}")
    try:
        c = complex(value)
    except (TypeError, ValueError):
        raise TypeError(f"{where} must be a real or complex number; got {type(value).__name__} {value!r}") from None
    if not (math.isfinite(c.real) and math.isfinite(c.imag)):
        raise ValueError(f"{where} must be finite; got {value!r}")
    return c


def combine(terms: list[Term], n_wires: int | None, arg: str) -> tuple[np.ndarray, list[str]]:
    """Real coefficients and difflab strings (character j on wire j) of `terms`, equal strings summed in order."""
    if not terms:
        raise ValueError(f"{arg} must hold at least one Pauli term; got none")
    top = max((max(w) for w, _ in terms if w), default=-1)
    if n_wires is None:
        if top < 0:
            raise ValueError(f"n_wires must be given when no term of {arg} acts on a wire (identity only)")
        n_wires = top + 1
    elif isinstance(n_wires, bool) or not isinstance(n_wires, numbers.Integral) or n_wires < 1:
        raise ValueError(f"n_wires must be a positive integer; got {n_wires!r}")
    elif top >= n_wires:
        raise ValueError(f"{arg} acts on wire {top}, beyond n_wires = {n_wires} (wires 0 to {n_wires - 1})")
    sums: dict[str, complex] = {}
    for letters, c in terms:
        string = "".join(letters.get(w, "I") for w in range(int(n_wires)))
        sums[string] = sums.get(string, 0.0) + c
    scale = max(abs(c) for _, c in terms)
    for string, c in sums.items():
        if abs(c.imag) > IMAG_TOLERANCE * scale:
            raise ValueError(f"{arg} is not Hermitian: the coefficient of {string!r} (wire 0 first) is {c}, "
                             f"with an imaginary part above {IMAG_TOLERANCE:g} of the largest coefficient; "
                             "a Pauli sum must have real coefficients")  # fmt: skip
    return np.array([c.real for c in sums.values()]), list(sums)


def _letter(value, where: str) -> str:
    if not isinstance(value, str) or value not in ("I", "X", "Y", "Z"):
        raise ValueError(f"{where} must be one of 'I', 'X', 'Y', 'Z'; got {value!r}")
    return value


def _wire_index(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{where} must be a non-negative integer wire index; got {value!r}")
    return int(value)


def _add(letters: dict[int, str], wire: int, letter: str, where: str) -> None:
    if wire in letters:
        raise ValueError(f"{where} names wire {wire} twice; give each wire one letter")
    if letter != "I":
        letters[wire] = letter


def qiskit_terms(op) -> tuple[np.ndarray, list[str]]:
    """From a Qiskit `SparsePauliOp` (through `.to_list()`) or its list `[(label, coeff)]`, little-endian labels."""
    pairs = op.to_list() if callable(getattr(op, "to_list", None)) else op
    if isinstance(pairs, str | bytes | Mapping) or not isinstance(pairs, Sequence):
        raise TypeError(f"op must be a Qiskit SparsePauliOp or a list of (label, coefficient) pairs; got "
                        f"{type(op).__name__}")  # fmt: skip
    terms: list[Term] = []
    n = None
    for k, pair in enumerate(pairs):
        if not isinstance(pair, Sequence) or isinstance(pair, str) or len(pair) != 2 or not isinstance(pair[0], str):
            raise TypeError(f"op[{k}] must be a (label, coefficient) pair such as ('ZIIX', 0.5); got {pair!r}")
        label = pair[0]
        n = len(label) if n is None else n
        if len(label) != n or not label:
            raise ValueError(f"op[{k}] has label {label!r} of length {len(label)}; every label must have the "
                             f"length of the first, {n} (one letter per qubit)")  # fmt: skip
        letters: dict[int, str] = {}
        for q, ch in enumerate(reversed(label)):  # Qiskit: the last character is qubit 0
            _add(letters, q, _letter(ch, f"op[{k}] label {label!r}, character for qubit {q},"), f"op[{k}]")
        terms.append((letters, coefficient(pair[1], f"op[{k}] coefficient")))
    return combine(terms, n, "op")


def openfermion_terms(op, n_wires: int | None) -> tuple[np.ndarray, list[str]]:
    """From an OpenFermion `QubitOperator` (its `.terms`) or its text form (`str(op)`)."""
    if isinstance(op, str):
        return combine(_parse_openfermion(op), n_wires, "op")
    terms_map = getattr(op, "terms", None)
    if not isinstance(terms_map, Mapping):
        raise TypeError(f"op must be an OpenFermion QubitOperator (with a .terms dict) or its text form; got "
                        f"{type(op).__name__}")  # fmt: skip
    terms: list[Term] = []
    for key, value in terms_map.items():
        if not isinstance(key, tuple):
            raise TypeError(f"op.terms key {key!r} must be a tuple of (wire, letter) pairs such as ((0, 'X'),)")
        letters: dict[int, str] = {}
        for factor in key:
            if not isinstance(factor, tuple) or len(factor) != 2:
                raise TypeError(f"op.terms key {key!r} must hold (wire, letter) pairs; got {factor!r}")
            wire = _wire_index(factor[0], f"wire of {factor!r} in op.terms key {key!r}")
            _add(letters, wire, _letter(factor[1], f"letter of {factor!r} in op.terms key {key!r}"), f"op.terms {key}")
        terms.append((letters, coefficient(value, f"op.terms[{key!r}]")))
    return combine(terms, n_wires, "op")


def _parse_openfermion(text: str) -> list[Term]:
    """Terms `coeff [X0 Z3] + coeff [Y1] + ...` (a missing coefficient is 1); anything else refused by position."""
    terms: list[Term] = []
    pos, stripped = 0, text.strip()
    while pos < len(stripped):
        m = _OPENFERMION_TERM.match(stripped, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"op text must be terms like '0.5 [X0 Z3] +\\n-0.2 [Y1]'; cannot read "
                             f"{stripped[pos:pos + 40]!r} at character {pos}")  # fmt: skip
        raw = m.group(1).replace(" ", "")
        try:
            c = complex(raw) if raw else 1.0
        except ValueError:
            raise ValueError(f"op text: coefficient {m.group(1)!r} before [{m.group(2)}] is not a number") from None
        where = f"op text term [{m.group(2)}]"
        terms.append((parse_word(m.group(2), where), coefficient(c, where)))
        pos = m.end()
        if m.group(3) == "+" and pos >= len(stripped):
            raise ValueError("op text must not end with '+'")
    return terms


def parse_word(word: str, where: str) -> dict[int, str]:
    """`"X0 Z3"` as {0: 'X', 3: 'Z'} (`I` letters dropped; `""` the identity)."""
    letters: dict[int, str] = {}
    for token in word.split():
        m = _TOKEN.match(token)
        if m is None:
            raise ValueError(f"{where}: {token!r} must be a letter I, X, Y or Z and a wire index, such as 'X0'")
        _add(letters, int(m.group(2)), m.group(1), where)
    return letters


def text_terms(terms, n_wires: int | None) -> tuple[np.ndarray, list[str]]:
    """From `{"X0 Z3": 0.5, "": -1.0}` or `[("X0 Z3", 0.5), ...]`."""
    if isinstance(terms, Mapping):
        pairs = list(terms.items())
    elif isinstance(terms, Sequence) and not isinstance(terms, str | bytes):
        pairs = list(terms)
    else:
        raise TypeError(f"terms must be a dict {{'X0 Z3': 0.5}} or a list of (text, coefficient) pairs; got "
                        f"{type(terms).__name__}")  # fmt: skip
    out: list[Term] = []
    for k, pair in enumerate(pairs):
        if not isinstance(pair, Sequence) or isinstance(pair, str) or len(pair) != 2 or not isinstance(pair[0], str):
            raise TypeError(f"terms[{k}] must be a (text, coefficient) pair such as ('X0 Z3', 0.5); got {pair!r}")
        out.append((parse_word(pair[0], f"terms[{k}] {pair[0]!r}"), coefficient(pair[1], f"terms[{pair[0]!r}]")))
    return combine(out, n_wires, "terms")


def pennylane_terms(op, n_wires: int | None, wire_order: Iterable | None) -> tuple[np.ndarray, list[str]]:
    """From a PennyLane `PauliSentence` or an operator with `.pauli_rep`; wire labels placed by `wire_order`."""
    sentence = op.pauli_rep if hasattr(op, "pauli_rep") else op
    if sentence is None:
        raise TypeError(f"op ({type(op).__name__}) has no Pauli representation (its pauli_rep is None); "
                        "give a sum of Pauli words")  # fmt: skip
    if not isinstance(sentence, Mapping):
        raise TypeError(f"op must be a PennyLane PauliSentence or an operator with .pauli_rep; got {type(op).__name__}")
    if wire_order is not None:
        # Any iterable of labels, so that a PennyLane `Wires` (`op.wires`) serves too.
        labels = list(wire_order) if isinstance(wire_order, Iterable) and not isinstance(wire_order, str) else None
        if labels is None or len(set(labels)) < len(labels):
            raise ValueError(f"wire_order must be a sequence of distinct wire labels; got {wire_order!r}")
        wire_order = labels
        n_wires = len(labels) if n_wires is None else n_wires
    position = {label: j for j, label in enumerate(wire_order)} if wire_order is not None else None
    terms: list[Term] = []
    for word, value in sentence.items():
        if not isinstance(word, Mapping):
            raise TypeError(f"op key {word!r} must be a PauliWord (a mapping of wire label to letter)")
        letters: dict[int, str] = {}
        for label, letter in word.items():
            if position is None:
                wire = _wire_index(label, f"wire label {label!r} (without wire_order)")
            elif label in position:
                wire = position[label]
            else:
                raise ValueError(f"wire label {label!r} is not in wire_order {list(wire_order or [])!r}")
            _add(letters, wire, _letter(letter, f"letter on wire {label!r}"), f"op word {dict(word)!r}")
        terms.append((letters, coefficient(value, f"op coefficient of {dict(word)!r}")))
    return combine(terms, n_wires, "op")


def to_openfermion_text(coefficients: np.ndarray, strings: Sequence[str]) -> str:
    """OpenFermion's `str(QubitOperator)` form; coefficients as `repr` floats, so they read back bit for bit."""
    words = [" ".join(f"{ch}{w}" for w, ch in enumerate(s) if ch != "I") for s in strings]
    return " +\n".join(f"{float(c)!r} [{word}]" for c, word in zip(coefficients, words, strict=True))
