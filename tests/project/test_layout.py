"""The suite's layout, kept (docs/decisions.md, 'The tests mirror the package'):

- tests/ mirrors the four parts' packages (tests/audit/ is rep_audit/, tests/recheck/ is
  rep_recheck/, every other folder a subpackage of rep_engine/ or scrapy_rep/, and
  tests/ itself the top modules of scrapy_rep/ and rep_engine/: ``tests/test_records.py``
  tests ``rep-engine/rep_engine/records.py``): a unit-test module sits in its module's
  floor folder, named after the module it tests
  (``tests/robotstxt/test_profiles_body_bytes.py`` tests
  ``rep-engine/rep_engine/robotstxt/profiles.py``; a package's ``__init__.py`` goes by
  the package's name: ``tests/directives/test_directives.py``); beside them only
  tests/integration/ (real crawls, local sites, processes), tests/project/ (docs,
  packaging, layering) and tests/support/ (the helpers);
- no helper (a module-level function, fixture or class that is not a test) is defined
  in two modules of tests/: one definition, imported from tests/support/ or given by a
  conftest.py;
- no module imports a test module: what two modules share is in tests/support/;
- a unit-test module runs no crawl and no process (no ``subprocess``, no local site,
  no scrapy project, worker, redis-server or browser): those are tests/integration/'s.
- a test of the engine (a module of a folder that mirrors a package of
  rep-engine/rep_engine/, or a top-level test module named after one of its top modules)
  imports nothing of Scrapy, Twisted, the add-on, the audit tools or the re-check, itself
  or through the helpers of tests/support/ it imports: CI runs them where the engine alone
  is installed (.ci/run, job 1c), and runs them all there.

Each rule is a function of a checkout's root that returns what breaks it, run on this
checkout and on small trees that break it.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections import defaultdict
from pathlib import Path

import pytest

from tests.support.paths import ROOT

#: The folders of tests/ that mirror no part of the package.
OWN_FOLDERS = ("integration", "project", "support")
#: The folders of tests/ that mirror a part's package itself: tests/audit/ is rep_audit/.
PART_FOLDERS = {"audit": "rep-audit/rep_audit", "recheck": "rep-recheck/rep_recheck"}
#: Where every other folder of tests/ finds the package it mirrors, in this order
#: (tests/ itself: scrapy_rep/).
PACKAGE_ROOTS = ("scrapy_rep", "rep-engine/rep_engine")


def package_folder(root: Path, parts: tuple[str, ...]) -> Path:
    """The package folder that the folder ``tests/<parts>`` mirrors (where its package
    would be, when no part has one)."""
    if parts and parts[0] in PART_FOLDERS:
        return root / PART_FOLDERS[parts[0]] / Path(*parts[1:])
    for base in PACKAGE_ROOTS:
        if (root / base / Path(*parts) / "__init__.py").is_file():
            return root / base / Path(*parts)
    return root / PACKAGE_ROOTS[0] / Path(*parts)


#: What a unit-test module may not import: processes, crawls and local sites, and the
#: helpers that start them (module, or (module, name)).
HEAVY_MODULES = {
    "subprocess",
    "tests.support.scrapyproject",
    "tests.support.workers",
    "tests.support.worker",
    "tests.support.redisserver",
    "tests.support.wholecrawl",
    "tests.support.browser",
    "tests.support.faultsite",
}
HEAVY_NAMES = {
    ("tests.support.robotsite", "crawl"),
    ("tests.support.robotsite", "Sites"),
    ("tests.support.robotsite", "ScriptedOrigin"),
    ("tests.support.audittrail", "paused_and_resumed"),
    ("twisted.internet.utils", "getProcessOutputAndValue"),
    ("asyncio", "create_subprocess_exec"),
}


def modules_of(root: Path) -> list[Path]:
    return sorted(
        path for path in (root / "tests").rglob("*.py") if "__pycache__" not in path.parts
    )


def is_test_module(path: Path) -> bool:
    return path.name.startswith("test_")


def folder_of(root: Path, path: Path) -> tuple[str, ...]:
    """The folders between tests/ and ``path``."""
    return path.parent.relative_to(root / "tests").parts


def is_unit_module(root: Path, path: Path) -> bool:
    parts = folder_of(root, path)
    return is_test_module(path) and not (parts and parts[0] in OWN_FOLDERS)


def stems_of(package_folder: Path) -> set[str]:
    """The names a test module of ``package_folder`` may start with: its modules (without
    a leading underscore, ``__main__`` as ``main``) and the package's own name."""
    stems = {package_folder.name}
    for module in package_folder.glob("*.py"):
        if module.name != "__init__.py":
            stems.add(module.stem.strip("_"))
    return stems


def misplaced_unit_modules(root: Path) -> list[str]:
    """Unit-test modules outside their module's floor folder: in a folder that mirrors no
    package folder, or named after no module of their folder."""
    found = []
    for path in modules_of(root):
        if not is_unit_module(root, path):
            continue
        relative = path.relative_to(root).as_posix()
        mirrored = package_folder(root, folder_of(root, path))
        if not (mirrored / "__init__.py").is_file():
            found.append(f"{relative}: no part has a package {mirrored.name!r} here")
            continue
        name = path.stem.removeprefix("test_")
        stems = stems_of(mirrored)
        if not folder_of(root, path):  # tests/ itself: the top modules of every root
            stems |= {stem for base in PACKAGE_ROOTS for stem in stems_of(root / base)}
        if not any(name == stem or name.startswith(stem + "_") for stem in stems):
            where = mirrored.relative_to(root).as_posix()
            found.append(
                f"{relative}: named after no module of {where}/ "
                f"(test_<module>[_<theme>].py, <module> one of {sorted(stems)})"
            )
    return found


def stray_folders(root: Path) -> list[str]:
    """Folders of tests/ that mirror no package folder of a part and are not one of
    :data:`OWN_FOLDERS`."""
    found = []
    for folder in sorted((root / "tests").rglob("*")):
        if not folder.is_dir() or folder.name == "__pycache__":
            continue
        parts = folder.relative_to(root / "tests").parts
        if parts[0] in OWN_FOLDERS:
            continue
        if not (package_folder(root, parts) / "__init__.py").is_file():
            found.append(f"{folder.relative_to(root).as_posix()}/: no part has {'/'.join(parts)}/")
    return found


def helpers_defined_twice(root: Path) -> list[str]:
    """Module-level functions, fixtures and classes (other than tests) of the same name in
    two or more modules of tests/."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in modules_of(root):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if node.name.startswith(("test_", "Test", "pytest_")):  # tests, pytest's hooks
                continue
            where[node.name].append(path.relative_to(root).as_posix())
    return [
        f"{name} is defined in {', '.join(paths)}"
        for name, paths in sorted(where.items())
        if len(paths) > 1
    ]


def imports_of(path: Path) -> list[tuple[str, str | None]]:
    """(module, name) of each import of ``path``, those inside functions too (name
    ``None`` for ``import module``)."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.extend((node.module, alias.name) for alias in node.names)
    return found


def imported_test_modules(root: Path) -> list[str]:
    """Imports of a test module (``tests.x.test_y``) by another module."""
    found = []
    for path in modules_of(root):
        for module, name in imports_of(path):
            dotted = module if name is None else f"{module}.{name}"
            parts = dotted.split(".")
            in_tests = parts[0] == "tests" and any(part.startswith("test_") for part in parts[1:])
            if in_tests or parts[0].startswith("test_"):  # tests.x.test_y, or test_y on the path
                found.append(f"{path.relative_to(root).as_posix()} imports {dotted}")
    return found


def heavy_unit_modules(root: Path) -> list[str]:
    """Unit-test modules that import what starts a process, a crawl or a local site."""
    found = []
    for path in modules_of(root):
        if not is_unit_module(root, path):
            continue
        for module, name in imports_of(path):
            if module in HEAVY_MODULES or (module, name) in HEAVY_NAMES:
                what = module if name is None else f"{module}.{name}"
                found.append(
                    f"{path.relative_to(root).as_posix()} imports {what}: "
                    "a test that runs a crawl or a process belongs in tests/integration/"
                )
    return found


#: The engine's package, which the other parts depend on and which depends on none of them.
ENGINE = "rep-engine/rep_engine"
#: What the engine's tests import nothing of (the top-level names of the packages).
OTHER_PARTS = ("scrapy", "twisted", "scrapy_rep", "rep_audit", "rep_recheck")
#: Tests of the engine that still import another part: the trail contract's tests of the
#: crawl's records and of the re-check's ``item`` records, which build them with the add-on
#: and the re-check. Left out of the rule, and of CI's engine-alone job, until they do not.
NOT_YET_ALONE = ("tests/test_records.py", "tests/test_records_items.py")


def engine_test_modules(root: Path) -> list[Path]:
    """The modules of tests/ that test the engine: every module of a folder that mirrors a
    package of :data:`ENGINE` (tests/robotstxt/, tests/usage/media/…), and the top-level
    test modules named after one of its top modules (tests/test_records_urlentry.py:
    records.py); none of :data:`NOT_YET_ALONE`."""
    engine = root / ENGINE
    tops = {module.stem for module in engine.glob("*.py") if module.name != "__init__.py"}
    found = []
    for path in modules_of(root):
        if path.relative_to(root).as_posix() in NOT_YET_ALONE:
            continue
        parts = folder_of(root, path)
        if parts:
            if parts[0] in (*OWN_FOLDERS, *PART_FOLDERS):
                continue
            if engine not in (package_folder(root, parts), *package_folder(root, parts).parents):
                continue
        else:
            name = path.stem.removeprefix("test_")
            if not is_test_module(path) or not any(
                name == top or name.startswith(top + "_") for top in tops
            ):
                continue
        found.append(path)
    return found


def support_helper(root: Path, module: str, name: str | None) -> Path | None:
    """The helper module of tests/support/ that an import names (``tests.support.x``,
    ``from tests.support.x import y``, ``from tests.support import x``), if any."""
    if module == "tests.support" and name is not None:
        helper = root / "tests" / "support" / f"{name}.py"
    elif module.startswith("tests.support."):
        helper = root.joinpath(*module.split(".")).with_suffix(".py")
    else:
        return None
    return helper if helper.is_file() else None


def other_parts_imported(root: Path, path: Path) -> list[str]:
    """What ``path`` imports of :data:`OTHER_PARTS`, itself or through the helpers of
    tests/support/ it imports, followed from helper to helper (imports inside functions
    too), each with the helpers it comes through."""
    found = []
    seen = {path}
    todo: list[tuple[Path, tuple[str, ...]]] = [(path, ())]
    while todo:
        current, through = todo.pop(0)
        for module, name in imports_of(current):
            if module.split(".")[0] in OTHER_PARTS:
                found.append(f"{module} (through {', '.join(through)})" if through else module)
                continue
            helper = support_helper(root, module, name)
            if helper is not None and helper not in seen:
                seen.add(helper)
                todo.append((helper, (*through, helper.relative_to(root).as_posix())))
    return found


def engine_tests_importing_other_parts(root: Path) -> list[str]:
    """Tests of the engine (:func:`engine_test_modules`) that import anything of Scrapy,
    Twisted, the add-on, the audit tools or the re-check: they could not run where the
    engine alone is installed."""
    return [
        f"{path.relative_to(root).as_posix()} imports {what}: the engine's tests run "
        "where only the engine is installed (.ci/run, job 1c)"
        for path in engine_test_modules(root)
        for what in other_parts_imported(root, path)
    ]


RULES = [misplaced_unit_modules, stray_folders, helpers_defined_twice, imported_test_modules,
         heavy_unit_modules, engine_tests_importing_other_parts]  # fmt: skip


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.__name__)
def test_this_checkout_keeps_the_layout(rule: object) -> None:
    assert callable(rule)
    assert rule(ROOT) == []


# --------------------------------------------------------------------------- the rules fail


def tree(root: Path, files: dict[str, str]) -> Path:
    """A checkout of ``files`` (path: text) under ``root``, each package with its
    ``__init__.py``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        for folder in path.relative_to(root).parents:
            top = folder.parts[:1]
            if top in (("scrapy_rep",), ("tests",)) or (top and folder.parts[1:]):
                (root / folder / "__init__.py").touch()  # a package (rep-engine/ is none)
    return root


PACKAGE = {
    "scrapy_rep/check.py": "",
    "rep-engine/rep_engine/robotstxt/_parser.py": "",
    "rep-engine/rep_engine/robotstxt/profiles.py": "",
    "rep-engine/rep_engine/verdict/decide.py": "",
    "rep-engine/rep_engine/records.py": "",
}


def test_a_unit_test_module_outside_its_floor_folder_fails(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        **PACKAGE,
        "tests/robotstxt/test_parser.py": "",  # _parser.py: fine
        "tests/robotstxt/test_robotstxt_hostile.py": "",  # the package's own name: fine
        "tests/robotstxt/test_profiles_body_bytes.py": "",  # a theme of profiles.py: fine
        "tests/test_check.py": "",  # a top-level module: fine
        "tests/test_records_items.py": "",  # a top-level module of the engine: fine
        "tests/robotstxt/test_decide.py": "",  # verdict/decide.py in robotstxt/
        "tests/test_decide.py": "",  # verdict/decide.py at the top
        "tests/robotstxt/test_parserx.py": "",  # no module parserx
        "tests/checker/test_inputs.py": "",  # no checker/ in any part here
        "tests/integration/test_anything.py": "",
        "tests/project/test_docs.py": "",
    })  # fmt: skip
    found = misplaced_unit_modules(root)
    assert [line.split(":")[0] for line in found] == [
        "tests/checker/test_inputs.py",
        "tests/robotstxt/test_decide.py",
        "tests/robotstxt/test_parserx.py",
        "tests/test_decide.py",
    ]
    assert found[1].endswith("<module> one of ['parser', 'profiles', 'robotstxt'])")
    assert stray_folders(root) == ["tests/checker/: no part has checker/"]


def test_a_helper_defined_in_two_modules_fails(tmp_path: Path) -> None:
    fixture = "import pytest\n\n@pytest.fixture\ndef port():\n    return 1\n"
    root = tree(tmp_path, {
        **PACKAGE,
        "tests/robotstxt/test_parser.py": "def page(): ...\ndef test_a(): ...\n",
        "tests/integration/test_crawl.py": "async def page(): ...\ndef test_a(): ...\n",
        "tests/integration/test_other.py": fixture + "class Handler: ...\n",
        "tests/support/sites.py": "class Handler: ...\ndef _private(): ...\n",
        "tests/support/more.py": "def _private(): ...\nclass TestCase: ...\n",
        "tests/conftest.py": "def pytest_configure(config): ...\n",
        "tests/integration/conftest.py": fixture + "def pytest_configure(config): ...\n",
    })  # fmt: skip
    assert helpers_defined_twice(root) == [
        "Handler is defined in tests/integration/test_other.py, tests/support/sites.py",
        "_private is defined in tests/support/more.py, tests/support/sites.py",
        "page is defined in tests/integration/test_crawl.py, tests/robotstxt/test_parser.py",
        "port is defined in tests/integration/conftest.py, tests/integration/test_other.py",
    ]


def test_a_test_module_imported_fails(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        **PACKAGE,
        "tests/robotstxt/test_parser.py": "from tests.support.bounds import finishes_within\n",
        "tests/integration/test_a.py": "from tests.robotstxt.test_parser import helper\n",
        "tests/integration/test_b.py": "def f():\n    from tests.robotstxt import test_parser\n",
        "tests/support/sites.py": "import tests.integration.test_a\n",
        "tests/support/more.py": "import test_robotstxt_robustness as t\nimport test.support\n",
    })  # fmt: skip
    assert imported_test_modules(root) == [
        "tests/integration/test_a.py imports tests.robotstxt.test_parser.helper",
        "tests/integration/test_b.py imports tests.robotstxt.test_parser",
        "tests/support/more.py imports test_robotstxt_robustness",
        "tests/support/sites.py imports tests.integration.test_a",
    ]


def test_a_crawl_or_a_process_in_a_unit_module_fails(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        **PACKAGE,
        "tests/robotstxt/test_parser.py": "import subprocess\n",
        "tests/verdict/test_decide.py": (
            "from tests.support.robotsite import BASE_SETTINGS, until\n"  # no crawl: fine
            "def test_a():\n    from tests.support.robotsite import Sites, crawl\n"
        ),
        "tests/test_check.py": "from tests.support.scrapyproject import crawl_with\n",
        "tests/integration/test_crawl.py": "from tests.support.robotsite import crawl\n",
        "tests/project/test_packaging.py": "import subprocess\n",
    })  # fmt: skip
    found = [line.split(": a test that runs")[0] for line in heavy_unit_modules(root)]
    assert found == [
        "tests/robotstxt/test_parser.py imports subprocess",
        "tests/test_check.py imports tests.support.scrapyproject.crawl_with",
        "tests/verdict/test_decide.py imports tests.support.robotsite.Sites",
        "tests/verdict/test_decide.py imports tests.support.robotsite.crawl",
    ]


def test_an_engine_test_that_imports_another_part_fails(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        **PACKAGE,
        "rep-engine/rep_engine/usage/media/reading.py": "",
        "scrapy_rep/crawl/report.py": "",
        "tests/robotstxt/test_parser.py": "from scrapy.http import Response\n",
        "tests/robotstxt/test_profiles.py": "def test_a():\n    import twisted.internet\n",
        "tests/usage/media/test_reading.py": "from tests.support import pages\n",
        "tests/verdict/test_decide.py": (
            "from rep_engine.verdict import decide\n"  # the engine itself: fine
            "from tests.support.engineonly import said\n"  # a helper of the engine: fine
        ),
        "tests/test_records_urlentry.py": "from rep_recheck.rechecker import Rechecker\n",
        "tests/test_records.py": "import scrapy\n",  # NOT_YET_ALONE
        "tests/test_check.py": "import scrapy\n",  # the add-on's check.py: fine
        "tests/crawl/test_report.py": "from tests.support.pages import page\n",  # fine
        "tests/audit/test_verify.py": "import rep_audit.verify\n",  # fine
        "tests/support/engineonly.py": "from tests.support.answers import said\n",
        "tests/support/answers.py": "from rep_engine.usage.purpose import PURPOSES\n",
        "tests/support/pages.py": "from tests.support.fakes import response\n",
        "tests/support/fakes.py": (
            "from tests.support.pages import page\n"  # a cycle: followed once
            "def response():\n    from scrapy_rep.crawl.report import RepReport\n"
        ),
    })  # fmt: skip
    found = [line.split(": the engine's")[0] for line in engine_tests_importing_other_parts(root)]
    assert found == [
        "tests/robotstxt/test_parser.py imports scrapy.http",
        "tests/robotstxt/test_profiles.py imports twisted.internet",
        "tests/test_records_urlentry.py imports rep_recheck.rechecker",
        "tests/usage/media/test_reading.py imports scrapy_rep.crawl.report (through "
        "tests/support/pages.py, tests/support/fakes.py)",
    ]


def test_ci_runs_every_engine_test_where_only_the_engine_is_installed() -> None:
    """.ci/run's job 1c runs, in a venv of the engine alone, the tests the rule holds to
    the engine: its floors' folders and its top modules' test modules, no other."""
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    [command] = re.findall(r"^\.venv-engine/bin/python -m pytest (.*)$", text, re.M)
    ran = {arg for arg in shlex.split(command) if arg.startswith("tests/")}
    engine = set()
    for path in engine_test_modules(ROOT):
        parts = folder_of(ROOT, path)
        engine.add(f"tests/{parts[0]}" if parts else path.relative_to(ROOT).as_posix())
    assert ran == engine


def test_ci_checks_a_sites_bundle_where_only_the_audit_tools_are_installed() -> None:
    """.ci/run's job 1c makes a signed crawl's and re-check's trails, then, in a venv of
    the engine and the audit tools alone (no Scrapy), installed by the line
    docs/publishers.md gives a site's owner (and in another, from the wheels
    docs/site-owners.md tells the operator to make, by publishers.md's wheel line),
    verifies each with the key and the head file, and builds and checks one site's bundle
    with the operator's key directory, as a site's owner does."""
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    read = dict(re.findall(r"^(\w+_line)=\$\(grep -m 1 '\^(.*)\$' docs/\S+\)$", text, re.M))
    assert set(read) == {"clone_line", "wheels_line"}
    pages = (ROOT / "docs" / "publishers.md").read_text() + (
        ROOT / "docs" / "site-owners.md"
    ).read_text()
    assert all(f"\n{line}\n" in pages for line in read.values()), read
    assert re.search(r"^\.venv-audit/bin/\$\{clone_line//", text, re.M)
    assert re.search(r"wheels-venv/bin/\$\{wheel_line//", text)
    assert "\n# or: pip install scrapy_rep_engine-0.1.0-py3-none-any.whl scrapy_rep_audit-" in pages
    assert re.search(r"REP_AUDIT_SIGNING_KEY=.*REP_AUDIT_HEAD_FILE=", text)
    for command in (
        r"verify \S+ --key \S+\s+--head ",
        r"bundle \S+ --site ",
        r"check-bundle \S+ --key ",
    ):
        assert re.search(rf"^\s*\.venv-audit/bin/rep-audit {command}", text, re.M), command


def test_only_the_tool_helpers_and_test_modules_look_a_tool_up() -> None:
    """.ci/run runs with the optional tools hidden only the tests marked
    ``optional_tools`` (tests/support/optionaltools.py): those whose module, or a fixture's
    module, looks a tool up or imports a helper that does. A new helper that looked one up
    would leave its tests unmarked, and so would a helper that imported one of them: each
    must be named in ``TOOL_HELPERS``."""
    from tests.support.optionaltools import LOOKUP, TOOL_HELPERS

    helpers = {ROOT / (name.replace(".", "/") + ".py") for name in TOOL_HELPERS}
    helpers.add(ROOT / "tests" / "support" / "optionaltools.py")
    lookups = [
        path.relative_to(ROOT).as_posix()
        for path in modules_of(ROOT)
        if path not in helpers
        and not is_test_module(path)
        and path.name != "conftest.py"
        and any(word in path.read_text(encoding="utf-8") for word in (LOOKUP, *TOOL_HELPERS))
    ]
    assert lookups == [], "look a tool up, or import a helper that does: name them in TOOL_HELPERS"
