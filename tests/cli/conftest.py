import pytest
from validation._exact import RELAXATION  # tests/validation/_exact.py

from difflab.validation import _runner


@pytest.fixture(autouse=True)
def relaxation_kind(monkeypatch):
    monkeypatch.setitem(_runner._RUNNERS, "test.relaxation", RELAXATION)
