"""The documentation as tests: the Python blocks of README.md and docs/*.md run with the suite.

pytest-codeblocks (`--codeblocks` in pyproject's addopts) turns every fenced Python block into a test; a block
preceded by `<!--pytest-codeblocks:cont-->` is appended to the block before it, so an example spread over a page
runs as one test with shared names. Marks go in a comment before a block, in the plugin's syntax:

- `<!--pytest.mark.skip(reason="...")-->`: a block that is deliberately partial (a signature, a cluster address,
  `...` for arguments shown above); the page says why in its prose too.
- `<!--pytest.mark.long-->`: a block that takes minutes (full fits, the reflector solve). These run only when
  selected, `pytest -m long`, so that the docs add about two minutes to the default run, not twenty.

Every block runs as a user would run it: in its own empty temporary folder (examples write `hh_step.nc`, figures,
sweep folders) and with JAX's default rank promotion (tests/conftest.py makes it strict for the tests); the pyplot
figures a block opened are closed after it. A block still shares its worker process with the other tests:
the plugin cannot start a process per page, so a block must not change process-wide JAX settings (the device
count example in docs/quantum.md is skipped for that reason; tests/layout/test_import_side_effects.py runs it in
a fresh interpreter).
"""

import contextlib
import sys
import tempfile

import pytest

# Shell blocks are for the reader (installing, the command line, clusters): the command line has its own tests
# in tests/cli, and running `pip install` or `pytest` from a test would be wrong.
SHELL_BLOCKS = {"bash", "sh", "zsh"}


def _is_docs_block(item: pytest.Item) -> bool:
    return item.path.suffix == ".md"


def _is_shell_block(item: pytest.Item) -> bool:
    return getattr(getattr(item, "obj", None), "syntax", None) in SHELL_BLOCKS


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out shell blocks, and `long` blocks unless the marker expression names them."""
    run_long = "long" in (config.option.markexpr or "")
    dropped = [
        item
        for item in items
        if _is_docs_block(item) and (_is_shell_block(item) or (not run_long and item.get_closest_marker("long")))
    ]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        kept = set(map(id, items)) - set(map(id, dropped))
        items[:] = [item for item in items if id(item) in kept]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """Run a docs block in an empty temporary folder, with JAX's default rank promotion; close its figures."""
    if not _is_docs_block(item):
        return (yield)
    # imported here, not at the top: tests/conftest.py sets JAX's cache variables before JAX is first imported
    import jax

    with (
        tempfile.TemporaryDirectory(prefix="difflab-docs-") as folder,
        contextlib.chdir(folder),
        jax.numpy_rank_promotion("allow"),
    ):
        try:
            return (yield)
        finally:
            if "matplotlib.pyplot" in sys.modules:
                sys.modules["matplotlib.pyplot"].close("all")
