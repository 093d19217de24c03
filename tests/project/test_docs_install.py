"""One install story everywhere: every ``pip install`` line of the README, the parts'
READMEs, the docs and the package's messages works from a clone or the wheels given (the
package is not on a package index yet: docs/installation.md), every page that states the
oldest Scrapy, Twisted, w3lib or Python agrees with the parts' pyproject.toml files, and
the deployment page says how to run and check the shared Redis cache."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import PACKAGES, PARTS, project

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", *ROOT.glob("rep-*/README.md"), *DOCS.glob("*.md"),
                *DOCS.glob("contributing/*.md")])  # fmt: skip

#: A ``pip install`` and its arguments, up to the end of the command (a shell comment,
#: ``&&``, a closing backquote or the end of the line).
PIP_INSTALL = re.compile(r"pip install ([^`#&\n]*)")


def unreachable_requirements(line: str) -> list[str]:
    """The requirements of a ``pip install`` that name one of the four distributions, by
    its name or an earlier one (``rep-audit``), rather than a path or a wheel: pip would
    look them up on a package index, where they are not, and where anyone may register
    such a name. Options (``-q``, ``-e``) are skipped; a path starts with ``.`` or ``/``
    (or holds one)."""
    found = []
    for arguments in PIP_INSTALL.findall(line):
        for argument in arguments.split():
            requirement = argument.strip("\"'")
            if requirement.startswith("-") or "/" in requirement or requirement.startswith("."):
                continue
            if re.fullmatch(
                r"(scrapy[_-])?rep([_-](engine|audit|recheck))?(\[[\w,]+\])?", requirement
            ):
                found.append(requirement)
    return found


def test_the_rule_tells_a_clone_from_an_index() -> None:
    assert unreachable_requirements('pip install "scrapy_rep[redis]"') == ["scrapy_rep[redis]"]
    assert unreachable_requirements("`pip install 'scrapy_rep[media]'`. Without") == [
        "scrapy_rep[media]"
    ]
    assert unreachable_requirements("pip install scrapy-rep  # later") == ["scrapy-rep"]
    assert unreachable_requirements('pip install "/path/to/scrapy_rep[redis]"') == []
    assert unreachable_requirements('.venv/bin/pip install -q -e ".[test]" && pytest') == []
    assert unreachable_requirements("pip install /path/to/scrapy_rep   # the add-on") == []
    assert unreachable_requirements("`pip install rep-audit` fails") == ["rep-audit"]
    assert unreachable_requirements("pip install scrapy-rep-audit") == ["scrapy-rep-audit"]
    assert unreachable_requirements("pip install rep_engine[signing]") == ["rep_engine[signing]"]
    wheels = "scrapy_rep_engine-0.1.0-py3-none-any.whl scrapy_rep_audit-0.1.0-py3-none-any.whl"
    assert unreachable_requirements(f"pip install {wheels}") == []


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_install_line_works_from_a_clone(page: Path) -> None:
    """The README's form, ``pip install "/path/to/scrapy_rep[redis]"``, everywhere: on a
    line, and in a span of prose code wrapped over two (``pip install`` at a line's end)."""
    text = page.read_text(encoding="utf-8")
    wrong = [
        f"{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if unreachable_requirements(line)
    ]
    wrong += [span for span in re.findall(r"`(pip install[^`]*)`", text)
              if unreachable_requirements(" ".join(span.split()))]  # fmt: skip
    assert wrong == []


def test_every_install_hint_of_the_package_works_from_anywhere() -> None:
    """The messages (a missing ``redis`` or ``c2pa-python``) and docstrings of the package
    name what pip can install: the dependency itself, not ``scrapy_rep[extra]``."""
    import ast

    wrong = []
    for path in sorted(path for package in PACKAGES for path in package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                wrong += [f"{path.name}: {r}" for r in unreachable_requirements(node.value)]
    assert wrong == []


def lowest_versions() -> dict[str, str]:
    """The lower bounds of the four parts' dependencies and of the add-on's Python."""
    bounds = {
        match.group(1): match.group(2)
        for package in PARTS
        for requirement in project(package)["dependencies"]
        if (match := re.fullmatch(r"([\w-]+)>=([\d.]+)", requirement))
    }
    bounds["python"] = project()["requires-python"].removeprefix(">=")
    return {name.lower(): version for name, version in bounds.items()}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_stated_oldest_version_is_the_declared_one(page: Path) -> None:
    """``Scrapy 2.13 or newer`` (Twisted, w3lib, Python): the version the parts require."""
    lowest = lowest_versions()
    assert {"scrapy", "twisted", "w3lib", "python"} <= set(lowest)
    text = " ".join(page.read_text(encoding="utf-8").split())
    stated = re.findall(r"(Scrapy|Twisted|w3lib|Python)\]?(?:\([^)]*\))? ([\d.]+) or newer", text)
    wrong = [f"{name} {version}" for name, version in stated if lowest[name.lower()] != version]
    assert wrong == []


def test_the_deployment_page_says_how_to_run_and_check_the_shared_cache() -> None:
    """The Redis section: the extra as the installation page installs it, a server to
    start, the setting, and the stat that shows a second process read the shared copy."""
    text = (DOCS / "deployment.md").read_text(encoding="utf-8")
    section = text.split("## Several processes: the shared cache on Redis\n", 1)[1]
    section = section.split("\n## ", 1)[0].split("\n### ", 1)[0]
    assert 'pip install /path/to/scrapy_rep/rep-* "/path/to/scrapy_rep[redis]"' in section
    assert "redis-server" in section
    assert 'REP_ROBOTSTXT_CACHE = "redis://' in section
    assert "`rep/robotstxt/store_hits`" in section
