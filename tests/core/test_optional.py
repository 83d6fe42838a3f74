"""Optional dependencies: a missing one names the feature and the extra that installs it."""

import pytest

from difflab.core.internal import optional_module


def test_an_installed_module_is_returned():
    assert optional_module("json.decoder", "none", "a test").JSONDecodeError.__name__ == "JSONDecodeError"


def test_a_missing_module_names_the_feature_and_the_extra():
    with pytest.raises(ImportError, match=r"reading NWB files needs no_such_pkg: pip install 'difflab\[nwb\]'"):
        optional_module("no_such_pkg.sub", "nwb", "reading NWB files")
