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
import gc
import os
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
    """Leave out shell blocks, and `long` blocks and tests (worked examples) unless the marker expression names them."""
    run_long = "long" in (config.option.markexpr or "")
    dropped = [
        item
        for item in items
        if (_is_docs_block(item) and _is_shell_block(item)) or (not run_long and item.get_closest_marker("long"))
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


# A worker keeps every program it compiled, so that later tests of the same problem reuse it. Over the whole suite
# that outgrows the process: each program holds about 3 memory maps (XLA's CPU code is mapped executable), and
# past the kernel's limit on maps per process (vm.max_map_count, 65530 by default) the next compilation
# crashes the worker with a segmentation fault; a small fit also holds about 100 MB. So between two groups of
# tests (a file, or the files of one `xdist_group`), a worker that holds more than half the map limit, or more
# than its share of the memory, drops JAX's caches.
WORKER_MEMORY_BYTES = 4 * 2**30
DEFAULT_MAX_MAP_COUNT = 65530


def _group(item: pytest.Item) -> str:
    marker = item.get_closest_marker("xdist_group")
    return str(marker.args[0]) if marker is not None and marker.args else item.nodeid.split("::")[0]


def _read(path: str) -> str | None:
    try:
        with open(path) as file:
            return file.read()
    except OSError:
        return None


def _resident_bytes() -> int:
    """This process's resident memory (Linux; 0 where /proc is absent)."""
    statm = _read("/proc/self/statm")
    return int(statm.split()[1]) * os.sysconf("SC_PAGE_SIZE") if statm else 0


def _memory_maps() -> int:
    """The number of this process's memory maps (Linux; 0 where /proc is absent)."""
    maps = _read("/proc/self/maps")
    return maps.count("\n") if maps else 0


def _max_map_count() -> int:
    limit = _read("/proc/sys/vm/max_map_count")
    return int(limit) if limit and limit.strip().isdigit() else DEFAULT_MAX_MAP_COUNT


def _worker_share_bytes() -> int:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError):
        return WORKER_MEMORY_BYTES
    return min(WORKER_MEMORY_BYTES, physical // (3 * workers))


# The resident memory just after the last drop: the allocator keeps freed pages, so the process stays near its
# peak, and only growth past that (new programs) says the caches are full again.
_after_last_drop = {"resident": 0}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """After a test's fixtures are torn down: drop caches if need be, collect the test's garbage, freeze the rest.

    The compiled programs are dropped at the end of a group if this worker holds too many maps or too much memory;
    within a group the caches are kept (its tests share programs) unless the maps near the kernel's limit.
    """
    result = yield
    jax = sys.modules.get("jax")
    if jax is None:
        return result
    maps, limit = _memory_maps(), _max_map_count()
    group_ends = nextitem is None or _group(nextitem) != _group(item)
    resident = _resident_bytes()
    grown = resident > _worker_share_bytes() and resident > _after_last_drop["resident"] + 2**30
    if maps > 0.8 * limit or (group_ends and (maps > limit // 2 or grown)):
        jax.clear_caches()
        gc.unfreeze()  # the dropped programs and traces are frozen objects: the collection must see them
        gc.collect()
        _after_last_drop["resident"] = _resident_bytes()
    _collect_and_freeze()
    return result


# Python's cyclic garbage collector, told where the long-lived objects are. A worker accumulates millions of
# objects that stay to the end (JAX's traces, jaxprs and compiled programs, which later tests reuse), and every
# full collection walks all of them: about 20 collections of 0.1-0.8 s each per file set, 14 % of the time of
# test_calibrate.py + test_simulate.py + test_cell.py run together (GC 7.7 s of 61 s). After each test the garbage
# it left is collected (a walk over the objects made since the last test only) and the survivors are moved to
# the permanent generation (`gc.freeze`), which later collections skip; the first generation's threshold is
# raised so that tracing a large program does not stop every 700 allocations. The same files then take 54 s
# (GC 1.1 s), at the same peak memory; the whole suite, cold, 10:20 instead of 10:37 (1323 tests; most files
# hold fewer long-lived objects). A drop of the caches (above) unfreezes first, so that nothing is kept.
gc.set_threshold(10_000, 10, 10)


def _collect_and_freeze() -> None:
    gc.collect()
    gc.freeze()
