"""docs/cli.md's command sections are what scripts/gen_cli_docs.py writes from the application's help."""

import difflib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts" / "gen_cli_docs.py")
assert _spec is not None and _spec.loader is not None
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


@pytest.fixture(scope="module")
def sections() -> str:
    return gen.command_sections()


def test_docs_cli_md_is_up_to_date(sections):
    page = gen.PAGE.read_text(encoding="utf-8")
    wanted = gen.render(page, sections)
    diff = "".join(difflib.unified_diff(page.splitlines(True), wanted.splitlines(True), "docs/cli.md", "generated"))
    assert wanted == page, f"docs/cli.md is out of date: run python scripts/gen_cli_docs.py\n{diff}"


def test_every_command_and_option_is_there(sections):
    headings = [line for line in sections.splitlines() if line.startswith("#")]
    assert headings == ["## difflab validate", "## difflab simulate", "## difflab fit", "## difflab sweep",
                        "## difflab fast", "### difflab fast solve", "### difflab fast check"]  # fmt: skip
    assert "| `-o, --out <path>` | Report folder." in sections
    assert (
        "| `--t-end <float>` | End time of the simulation (model time units, e.g. ms). [default: 150.0] |" in sections
    )
    assert "--help" not in sections.replace("`--help`", "")  # the help option itself is left out


def test_a_stale_section_is_replaced_and_the_hand_written_parts_kept(sections):
    page = f"# Title\nintro\n{gen.BEGIN}\n## difflab simulate\nold text\n{gen.END}\n## Exit codes\ntail\n"
    got = gen.render(page, sections)
    assert got.startswith(f"# Title\nintro\n{gen.BEGIN}\n\n## difflab validate")
    assert got.endswith(f"{gen.END}\n## Exit codes\ntail\n") and "old text" not in got
    assert gen.render(got, sections) == got
    with pytest.raises(ValueError, match=r"cli\.md must hold the markers"):
        gen.render("# Title\nno markers\n", sections)
