import pytest

from difflab.validation import _runner

from ._exact import RELAXATION


@pytest.fixture(autouse=True)
def relaxation_kind(monkeypatch):
    """Register the exact test kind for the duration of a test."""
    monkeypatch.setitem(_runner._RUNNERS, "test.relaxation", RELAXATION)
