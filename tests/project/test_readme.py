"""Executable docs: every ```python block of the README runs without error."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


def test_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("source", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(source: str) -> None:
    exec(compile(source, str(README), "exec"), {"__name__": "readme_example"})


# --------------------------------------------------------------------------- its shape

TEXT = README.read_text(encoding="utf-8")
ROOT = README.parent


def quick_start_commands() -> list[str]:
    """The command lines of the README's "Quick start" block, comments left out."""
    match = re.search(r"## Quick start\n.*?```sh\n(.*?)```", TEXT, re.DOTALL)
    assert match, "README has no Quick start block"
    return [line for line in match.group(1).splitlines() if line and not line.startswith("#")]


def test_readme_fits_on_a_few_screens() -> None:
    assert len(TEXT.splitlines()) <= 250


def test_readme_sections_come_in_a_newcomers_order() -> None:
    headings = re.findall(r"^## (.+)$", TEXT, re.MULTILINE)
    assert headings == [
        "Quick start",
        "Install into your own project",
        "Enable it: one line",
        "What it does, in short",
        "Purposes, in five lines",
        "Documentation",
    ]
    # Scrapy's project template already has the dict to edit.
    assert "already has an empty `ADDONS = {}`" in TEXT
    assert re.search(r'^ADDONS = \{"scrapy_rep\.Addon": 0\}$', TEXT, re.MULTILINE)
    purposes = TEXT.split("## Purposes, in five lines\n", 1)[1].split("\n## ", 1)[0]
    assert len(re.findall(r"^- ", purposes, re.MULTILINE)) == 5


def test_scrapy_project_template_has_the_addons_dict() -> None:
    import scrapy

    template = Path(scrapy.__file__).parent / "templates/project/module/settings.py.tmpl"
    assert re.search(r"^ADDONS = \{\}$", template.read_text(), re.MULTILINE)


def test_ci_runs_the_readmes_test_command() -> None:
    """.ci/run's first step is the README's command 2, verbatim."""
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    step = run.split('echo "== 1/4', 1)[1].splitlines()[1]
    assert step == quick_start_commands()[1]


def test_quick_start_commands_work_pasted_into_one_shell(tmp_path: Path) -> None:
    """Both commands, verbatim, in one shell from the repository root: each program runs
    where it must (command 1 does not leave the shell in example_project). A light run:
    ``python3``, pip, scrapy and the venv's python are stand-ins that record where and
    with what arguments they ran."""
    (tmp_path / "example_project").mkdir()
    bin_dir = tmp_path / ".venv" / "bin"
    stubs = tmp_path / "stubs"
    bin_dir.mkdir(parents=True)
    stubs.mkdir()
    log = tmp_path / "ran.log"
    record = f'#!/bin/sh\necho "$(basename "$0") $PWD $*" >> {log}\n'
    for stub in (bin_dir / "pip", bin_dir / "scrapy", bin_dir / "python", stubs / "python3"):
        stub.write_text(record)
        stub.chmod(0o755)
    script = "set -e\n" + "\n".join(quick_start_commands()) + "\n"
    env = {"PATH": f"{stubs}:/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    ran = log.read_text().splitlines()
    project = tmp_path / "example_project"
    assert ran == [
        f"python3 {tmp_path} -m venv .venv",
        f"pip {tmp_path} install -q -e ./rep-engine -e ./rep-audit -e ./rep-recheck -e .",
        f"scrapy {project} crawl demo -O items.jsonl",
        f"python3 {tmp_path} -m venv .venv",
        f"pip {tmp_path} install -q -e ./rep-engine -e ./rep-audit -e ./rep-recheck -e .[test]",
        f"python {tmp_path} -m pytest -rs",
    ]


# --------------------------------------------------------------------------- as PyPI shows it


def test_the_readme_is_the_long_description() -> None:
    """The add-on's README is its long description, and each part's its own."""
    from tests.support.paths import PARTS, project

    for package, folder in PARTS.items():
        assert project(package)["readme"] == "README.md"
        text = (folder / "README.md").read_text(encoding="utf-8")
        assert [link for link in re.findall(r"\]\(([^)\s]*)", text) if "://" not in link] == []


def test_the_long_description_has_no_relative_link() -> None:
    """On PyPI a relative link (``docs/settings.md``) leads nowhere, and the docs have no
    address yet (docs/release.md: the package names none until one exists): the README
    names the pages instead. A link it keeps goes to an absolute http(s) address."""
    targets = re.findall(r"\]\(([^)\s]*)", TEXT)  # Markdown links and images
    targets += re.findall(r"\b(?:href|src)=[\"']([^\"']*)", TEXT)  # and HTML ones
    assert [target for target in targets if not re.match(r"https?://", target)] == []


def test_every_page_the_readme_names_exists_in_the_source_distribution() -> None:
    """Each ``docs/….md`` the README names is a page of the repository, which the sdist
    ships whole (pyproject.toml's sdist), and each section it names is a heading of that
    page."""
    from tests.support.paths import tomllib

    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]
    assert "/docs" in build["build"]["targets"]["sdist"]["include"]
    named = re.findall(r"`((?:docs/[\w/-]+|CHANGELOG|ARCHITECTURE)\.md)`", TEXT)
    assert len(set(named)) >= 15
    assert [page for page in named if not (ROOT / page).is_file()] == []
    for page, heading in re.findall(r"`(docs/[\w/-]+\.md)`, section \"([^\"]+)\"", TEXT):
        headings = re.findall(r"^#{1,6} (.+)$", (ROOT / page).read_text(encoding="utf-8"), re.M)
        assert heading in headings, (page, heading)
