"""`warn_caller` attributes a warning to the first frame outside difflab, whatever the depth it is raised at."""

import warnings

import pytest

from difflab.core import _warn_caller
from difflab.core.internal import warn_caller


def test_the_warning_names_the_first_frame_outside_the_package(monkeypatch, tmp_path):
    # frames of a file under the package folder count as difflab's own: put a two-deep "library" there
    monkeypatch.setattr(_warn_caller, "_PACKAGE", str(tmp_path))
    library = tmp_path / "library.py"
    library.write_text(
        "from difflab.core.internal import warn_caller\n"
        "def inner():\n    warn_caller('deep', UserWarning)\n"
        "def outer():\n    inner()\n"
    )
    namespace: dict = {}
    exec(compile(library.read_text(), str(library), "exec"), namespace)
    with pytest.warns(UserWarning, match="deep") as record:
        namespace["outer"]()  # this line, two library frames below
    assert record[0].filename == __file__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_caller("here", RuntimeWarning)  # called from outside the package: this line itself
    assert caught[0].filename == __file__ and caught[0].category is RuntimeWarning
