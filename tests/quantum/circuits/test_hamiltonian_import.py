"""Pauli sums from Qiskit, OpenFermion and PennyLane (datasets/quantum/circuits/hamiltonian_import.nc, made by
generate_hamiltonian_import.py): each stored term list, rebuilt through small stand-ins with the libraries'
interfaces, gives `PauliSum.matrix()` equal to the library's own dense matrix (converted to difflab's basis order:
Qiskit's bits reversed) to 1e-12; and bad input is refused by name."""

import json

import numpy as np
import pytest

import difflab.quantum.circuits as qc
from difflab import datasets

REF = datasets.load("quantum/circuits/hamiltonian_import.nc")
TOL = 1e-12


class SparsePauliOp:
    """Qiskit's interface: `to_list()` gives `[(little-endian label, complex coefficient)]`."""

    def __init__(self, pairs):
        self.pairs = pairs

    def to_list(self):
        return list(self.pairs)


class QubitOperator:
    """OpenFermion's interface: `.terms` maps ((qubit, letter), ...) to a coefficient; `str` is its text."""

    def __init__(self, terms):
        self.terms = terms


class PauliWord(dict):
    """PennyLane's PauliWord: a hashable dict of wire label to letter."""

    def __hash__(self):
        return hash(frozenset(self.items()))


class PauliSentence(dict):
    """PennyLane's PauliSentence: a dict of PauliWord to coefficient; operators give one as `.pauli_rep`."""

    @property
    def pauli_rep(self):
        return self


class Operator:
    def __init__(self, sentence):
        self.pauli_rep = sentence


def library_matrix(case: str) -> np.ndarray:
    """The library's stored matrix in difflab's order (wire 0 the most significant bit)."""
    m = REF[f"matrix_re_{case}"].values + 1j * REF[f"matrix_im_{case}"].values
    if str(REF.library.sel(case=case).item()) != "qiskit":
        return m  # OpenFermion's qubit 0 and PennyLane's wire_order[0] are the most significant bit, as in difflab
    n = round(np.log2(m.shape[0]))
    axes = list(range(n))[::-1]
    return m.reshape((2,) * 2 * n).transpose(axes + [n + a for a in axes]).reshape(m.shape)


def rebuild(case: str):
    """The stored operator through the stand-in with its library's interface, and the PauliSum read from it."""
    terms = json.loads(str(REF.terms.sel(case=case).item()))
    library = str(REF.library.sel(case=case).item())
    n = int(REF.n_wires.sel(case=case))
    if library == "qiskit":
        return qc.PauliSum.from_qiskit(SparsePauliOp([(label, complex(re, im)) for label, re, im in terms]))
    if library == "openfermion":
        op = QubitOperator({tuple(tuple(f) for f in key): complex(re, im) for key, re, im in terms})
        return qc.PauliSum.from_openfermion(op, n_wires=n)
    sentence = PauliSentence({PauliWord(dict(map(tuple, word))): complex(re, im) for word, re, im in terms})
    wire_order = json.loads(str(REF.wire_order.sel(case=case).item()))
    return qc.PauliSum.from_pennylane(Operator(sentence), wire_order=wire_order)


@pytest.mark.parametrize("case", [str(c) for c in REF.case.values])
def test_matrix_equals_the_librarys(case):
    h = rebuild(case)
    assert h.n_wires == int(REF.n_wires.sel(case=case))
    np.testing.assert_allclose(np.asarray(h.matrix()), library_matrix(case), rtol=0, atol=TOL)


def test_qiskit_duplicates_and_cancelling_imaginary_parts_are_combined():
    h = rebuild("qiskit_sparse6")  # to_list() holds 'IIIZII' twice, 'IIIIII' twice, 'IIIYII' with -0.3i and +0.3i
    assert len(h.strings) == len(set(h.strings)) == 5
    coefficients = dict(zip(h.strings, np.asarray(h.coefficients), strict=True))
    assert coefficients["IIZIII"] == pytest.approx(-0.6, abs=1e-15)  # Z on qubit 2; labels reversed
    assert coefficients["IIYIII"] == 0.0
    assert coefficients["XIIIIY"] == 0.4


@pytest.mark.parametrize("case", ["openfermion_h2like", "openfermion_sparse6"])
def test_openfermion_text_form_reads_the_same(case):
    text = str(REF.text.sel(case=case).item())  # str(QubitOperator), e.g. '(0.0225+0j) [X0 X1 X2 X3] +\n...'
    h = qc.PauliSum.from_openfermion(text, n_wires=int(REF.n_wires.sel(case=case)))
    np.testing.assert_allclose(np.asarray(h.matrix()), library_matrix(case), rtol=0, atol=TOL)


def test_pennylane_plain_dicts_and_sentences_without_operator():
    sentence = PauliSentence({PauliWord({"a": "X", 1: "Z"}): 0.5, PauliWord({}): -1.0})
    h = qc.PauliSum.from_pennylane(sentence, wire_order=(w for w in (1, "a")))  # any iterable, as PennyLane's Wires
    assert h.strings == ("ZX", "II")
    np.testing.assert_array_equal(np.asarray(h.coefficients), [0.5, -1.0])
    assert qc.PauliSum.from_pennylane({PauliWord({2: "Y"}): 1.0}).strings == ("IIY",)


def test_from_terms_and_round_trips():
    h = qc.PauliSum.from_terms({"X0 Z3": 0.5, "": -1.0, "Z3 X0": 0.25, "Y1": 1e-300}, n_wires=5)
    assert h.strings == ("XIIZI", "IIIII", "IYIII")
    np.testing.assert_array_equal(np.asarray(h.coefficients), [0.75, -1.0, 1e-300])
    assert h.to_qiskit_list() == [("IZIIX", 0.75), ("IIIII", -1.0), ("IIIYI", 1e-300)]
    assert h.to_openfermion_string() == "0.75 [X0 Z3] +\n-1.0 [] +\n1e-300 [Y1]"
    again = qc.PauliSum.from_openfermion(h.to_openfermion_string(), n_wires=5)
    assert again.strings == h.strings
    np.testing.assert_array_equal(np.asarray(again.coefficients), np.asarray(h.coefficients))
    back = qc.PauliSum.from_qiskit(h.to_qiskit_list())
    assert back.strings == h.strings
    assert qc.PauliSum.from_openfermion("[X0] + 2 [Y1]").strings == ("XI", "IY")  # a missing coefficient is 1


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: qc.PauliSum.from_qiskit([("XY", 0.5), ("XY", 0.1j)]), ValueError, "op is not Hermitian.*'YX'"),
        (lambda: qc.PauliSum.from_openfermion({}), TypeError, "op must be an OpenFermion QubitOperator"),
        (lambda: qc.PauliSum.from_openfermion(QubitOperator({})), ValueError, "op must hold at least one Pauli"),
        (lambda: qc.PauliSum.from_openfermion("0"), ValueError, "op text must be terms like"),
        (lambda: qc.PauliSum.from_openfermion("0.5 [X0] +"), ValueError, "must not end with"),
        (lambda: qc.PauliSum.from_openfermion("abc [X0]"), ValueError, "coefficient 'abc' before \\[X0\\]"),
        (lambda: qc.PauliSum.from_openfermion("0.5 [X0 Z4]", n_wires=4), ValueError, "acts on wire 4, beyond n_wires"),
        (lambda: qc.PauliSum.from_openfermion(QubitOperator({((0, "W"),): 1.0})), ValueError, "one of 'I', 'X'"),
        (lambda: qc.PauliSum.from_openfermion(QubitOperator({((0, "X"),): np.nan})), ValueError, "must be finite"),
        (lambda: qc.PauliSum.from_openfermion(QubitOperator({((0, "X"),): "1"})), TypeError, "real or complex"),
        (lambda: qc.PauliSum.from_openfermion(QubitOperator({((-1, "X"),): 1.0})), ValueError, "non-negative"),
        (lambda: qc.PauliSum.from_openfermion(QubitOperator({((0, "X"), (0, "Z")): 1.0})), ValueError, "twice"),
        (lambda: qc.PauliSum.from_qiskit("XZ"), TypeError, "op must be a Qiskit SparsePauliOp"),
        (lambda: qc.PauliSum.from_qiskit([("XZ", 1.0), ("X", 1.0)]), ValueError, "op\\[1\\] has label 'X' of length 1"),
        (lambda: qc.PauliSum.from_qiskit([("XQ", 1.0)]), ValueError, "character for qubit 0"),
        (lambda: qc.PauliSum.from_qiskit([("XZ",)]), TypeError, "op\\[0\\] must be a \\(label, coefficient\\) pair"),
        (lambda: qc.PauliSum.from_qiskit([("XZ", True)]), TypeError, "op\\[0\\] coefficient must be a real"),
        (lambda: qc.PauliSum.from_qiskit([]), ValueError, "op must hold at least one Pauli term"),
        (lambda: qc.PauliSum.from_terms({"X0": 1, "": 2.0}, n_wires=0), ValueError, "n_wires must be a positive"),
        (lambda: qc.PauliSum.from_terms({"": 1.0}), ValueError, "n_wires must be given when no term"),
        (lambda: qc.PauliSum.from_terms({"X0 Q1": 1.0}), ValueError, "'Q1' must be a letter I, X, Y or Z"),
        (lambda: qc.PauliSum.from_terms("X0"), TypeError, "terms must be a dict"),
        (lambda: qc.PauliSum.from_terms({"X0": float("inf")}), ValueError, "terms\\['X0'\\] must be finite"),
        (lambda: qc.PauliSum.from_pennylane({PauliWord({"a": "X"}): 1.0}), ValueError, "wire label 'a'.*wire_order"),
        (
            lambda: qc.PauliSum.from_pennylane({PauliWord({"a": "X"}): 1.0}, wire_order=["b"]),
            ValueError,
            "wire label 'a' is not in wire_order",
        ),
        (
            lambda: qc.PauliSum.from_pennylane({PauliWord({0: "X"}): 1.0}, wire_order="ab"),
            ValueError,
            "wire_order must be a sequence of distinct",
        ),
        (lambda: qc.PauliSum.from_pennylane(Operator(None)), TypeError, "has no Pauli representation"),
        (lambda: qc.PauliSum.from_pennylane([1.0]), TypeError, "op must be a PennyLane PauliSentence"),
        (lambda: qc.PauliSum.from_pennylane({PauliWord({0: "Y"}): 2j}), ValueError, "not Hermitian"),
    ],
)
def test_bad_input_is_refused_by_name(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_round_off_imaginary_parts_are_accepted():
    h = qc.PauliSum.from_qiskit([("XY", 0.5 + 4e-13j), ("ZZ", -1.0)])  # 4e-13 of the largest coefficient, 1.0
    np.testing.assert_array_equal(np.asarray(h.coefficients), [0.5, -1.0])
    with pytest.raises(ValueError, match="not Hermitian"):
        qc.PauliSum.from_qiskit([("XY", 0.5 + 2e-12j), ("ZZ", -1.0)])
