"""The four distributions built from this checkout, installed into a fresh venv, are
working packages (ARCHITECTURE.md, "Four parts").

Each part is built once per run, as a release builds it (``python -m build``): its sdist
from a copy of the checkout, then its wheel from the unpacked sdist, both by hatchling's
PEP 517 backend installed once from pip's usual index. Whichever pytest-xdist worker
needs them first builds them, under a lock; the others wait and use them
(:func:`built_once`). The fresh venv has no pip and none of the dependencies: a ``.pth``
file lends it the running venv's site-packages, where ``.pth`` files (and so the
editable installs of the checkout) are not processed, and the tests run outside the
checkout, so the four packages can only come from the wheels.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.paths import PARTS, ROOT, project, tomllib

#: The tests of the wheels share one build and venv (:func:`built_once`).
wheel_group = pytest.mark.xdist_group("wheel")
#: Each part's distribution name, by its import package.
DISTRIBUTIONS = {
    "rep_engine": "scrapy-rep-engine",
    "rep_audit": "scrapy-rep-audit",
    "rep_recheck": "scrapy-rep-recheck",
    "scrapy_rep": "scrapy_rep",
}


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]
) -> Path:
    """What ``build(folder)`` returns, built once per run: in a folder shared by the
    run's pytest-xdist workers (the parent of each worker's temporary folder), under a
    lock; ``--dist loadgroup`` cannot keep the tests on one worker under pytest 9."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder, done = shared / f"built-{name}", shared / f"built-{name}.done"
    with (shared / f"built-{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            done.write_text(str(build(folder)))
        return Path(done.read_text())


def hatchling_backend(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """hatchling (its PEP 517 backend), from pip's usual index, in a folder of its own."""

    def install(folder: Path) -> Path:
        requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "install", "-q", "--target", str(folder)),
                *requires["requires"],
            ],
            check=True,
        )
        return folder

    return built_once(tmp_path_factory, "backend", install)


def build_with(backend: Path, hook: str, source: Path, out: Path) -> Path:
    """``hook`` (``build_sdist`` or ``build_wheel``) of hatchling run in ``source``, into
    ``out``: the file it built."""
    code = f"from hatchling.build import {hook}; print({hook}({str(out)!r}))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=source,
        env={**os.environ, "PYTHONPATH": str(backend)},
        check=True,
        capture_output=True,
        text=True,
    )
    return out / done.stdout.strip().splitlines()[-1]


def checkout_copy(folder: Path) -> Path:
    """All of the checkout but its git data and virtualenvs, so that the parts' own
    build configuration alone decides what is shipped."""
    checkout = folder / "checkout"
    shutil.copytree(
        ROOT, checkout, ignore=shutil.ignore_patterns(".git", ".venv*", "__pycache__"),
        symlinks=True,
    )  # fmt: skip
    return checkout


def sdist_archive(tmp_path_factory: pytest.TempPathFactory, package: str) -> Path:
    """The sdist of one part, built from a copy of this checkout."""
    backend = hatchling_backend(tmp_path_factory)

    def build(folder: Path) -> Path:
        source = checkout_copy(folder) / PARTS[package].relative_to(ROOT)
        return build_with(backend, "build_sdist", source, folder / "dist")

    return built_once(tmp_path_factory, f"sdist-{package}", build)


def wheel_of(tmp_path_factory: pytest.TempPathFactory, package: str) -> Path:
    """One part's wheel, built from its unpacked sdist (as ``python -m build`` builds
    it)."""
    archive = sdist_archive(tmp_path_factory, package)
    backend = hatchling_backend(tmp_path_factory)

    def build(folder: Path) -> Path:
        with tarfile.open(archive) as tar:
            tar.extractall(folder / "unpacked", filter="data")
        (source,) = (folder / "unpacked").iterdir()
        return build_with(backend, "build_wheel", source, folder / "dist")

    return built_once(tmp_path_factory, f"wheel-{package}", build)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The four wheels, by import package."""
    return {package: wheel_of(tmp_path_factory, package) for package in PARTS}


@pytest.fixture(scope="module")
def wheel(wheels: dict[str, Path]) -> Path:
    """The add-on's wheel."""
    return wheels["scrapy_rep"]


@pytest.fixture(scope="module")
def venv_python(wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the four wheels installed (once per run: :func:`built_once`)."""

    def make(venv: Path) -> Path:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        python = venv / "bin" / "python"
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        (Path(purelib) / "_lend_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "--python", str(python)),
                *("install", "-q", "--no-deps", "--no-index", *map(str, wheels.values())),
            ],
            env=without_pythonpath(),  # a checkout on it would count as installed
            check=True,
        )
        return python

    return built_once(tmp_path_factory, "venv", make)


def without_pythonpath() -> dict[str, str]:
    """The environment without the caller's PYTHONPATH, which could put a checkout's
    packages before the wheels'."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def run_in_venv(python: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = without_pythonpath()
    return subprocess.run(
        [str(python), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


@wheel_group
def test_wheel_contains_license_type_marker_and_example(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "scrapy_rep/py.typed" in names
    assert "scrapy_rep/examples/robots.txt" in names
    assert any(re.fullmatch(r"scrapy_rep-[^/]+\.dist-info/(licenses/)?LICENSE", n) for n in names)
    assert not [n for n in names if "__pycache__" in n or n.startswith("tests/")]


@wheel_group
@pytest.mark.parametrize("package", list(PARTS))
def test_each_wheel_holds_its_part_and_nothing_else(wheels: dict[str, Path], package: str) -> None:
    """A part's wheel holds its own package (typed) and none of the others'."""
    names = zipfile.ZipFile(wheels[package]).namelist()
    assert f"{package}/__init__.py" in names and f"{package}/py.typed" in names
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {package}


@wheel_group
@pytest.mark.parametrize("package", list(PARTS))
def test_wheel_metadata(wheels: dict[str, Path], package: str) -> None:
    with zipfile.ZipFile(wheels[package]) as archive:
        (metadata_name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(metadata_name).decode()
    # No address that nobody can check (docs/release.md: added when one exists).
    assert "Project-URL:" not in metadata and "Home-page:" not in metadata
    name = DISTRIBUTIONS[package].replace("_", "[_-]")
    assert re.search(rf"^Name: {name}$", metadata, re.MULTILINE)
    assert re.search(r"^License-Expression: BSD-3-Clause$", metadata, re.MULTILINE)
    for classifier in project(package)["classifiers"]:
        assert f"Classifier: {classifier}\n" in metadata
    assert f"Summary: {project(package)['description']}\n" in metadata
    # The linters are not test dependencies.
    assert not re.search(r'^Requires-Dist: (mypy|ruff).*extra == "test"', metadata, re.M)
    if package == "scrapy_rep":
        assert "License-File: LICENSE" in metadata


def test_the_parts_depend_on_each_other_at_one_version() -> None:
    """Released together (docs/release.md): each part's version is the add-on's, and a
    part that needs another pins it at that version; the engine needs none of Scrapy,
    Twisted or another part, the audit tools and the re-check no Scrapy or Twisted."""
    version = project()["version"]
    needs = {
        package: {re.split(r"[<>=!~\[ ;]", requirement)[0] for requirement in
                  project(package)["dependencies"]}
        for package in PARTS
    }  # fmt: skip
    engine, audit, recheck = (DISTRIBUTIONS[part] for part in PARTS if part != "scrapy_rep")
    assert needs["rep_engine"].isdisjoint({"scrapy", "twisted", audit, recheck})
    assert needs["rep_audit"].isdisjoint({"scrapy", "twisted", recheck})
    assert needs["rep_recheck"].isdisjoint({"scrapy", "twisted"})
    assert {engine, audit, recheck, "scrapy"} <= needs["scrapy_rep"]
    for package in PARTS:
        assert project(package)["version"] == version
        for requirement in project(package)["dependencies"]:
            if requirement.startswith("scrapy-rep-"):
                assert requirement.endswith(f"=={version}"), (package, requirement)
    imported = {
        package: (PARTS[package] / package / "__init__.py").read_text() for package in PARTS
    }
    for package in ("rep_engine", "rep_audit", "rep_recheck"):
        assert f'__version__ = "{version}"' in imported[package]


@wheel_group
def test_installed_wheel_is_what_runs(venv_python: Path, tmp_path: Path) -> None:
    code = "import scrapy_rep, rep_engine, rep_audit, rep_recheck; print(scrapy_rep.__file__)"
    result = run_in_venv(venv_python, tmp_path, "-c", code)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).is_relative_to(venv_python.parents[1])


@wheel_group
def test_the_installed_engine_and_audit_tools_load_no_scrapy(
    venv_python: Path, tmp_path: Path
) -> None:
    """From the wheels: the engine's public names and the audit tools' command line load
    nothing of Scrapy, Twisted, asyncio or the add-on, and ``python -m rep_audit`` runs."""
    code = (
        "import sys, rep_engine, rep_audit.cli, rep_recheck.command\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('scrapy', 'twisted', 'asyncio', 'scrapy_rep')))\n"
    )
    result = run_in_venv(venv_python, tmp_path, "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    helped = run_in_venv(venv_python, tmp_path, "-m", "rep_audit", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "verify" in helped.stdout


@wheel_group
def test_check_example_runs_from_the_installed_wheel(venv_python: Path, tmp_path: Path) -> None:
    urls = ["https://example.com/shop/", "https://example.com/shop/cart"]
    result = run_in_venv(venv_python, tmp_path, "-m", "scrapy_rep", "check", "--example", *urls)
    # Exit status 1: at least one URL is disallowed (the README's table).
    assert result.returncode == 1, result.stderr
    assert "\nrobots.txt (the example bundled with scrapy_rep)\n" in result.stdout
    assert re.search(r"^  allowed +https://example\.com/shop/ ", result.stdout, re.M)
    assert re.search(r"^  DISALLOWED +https://example\.com/shop/cart +line 5:", result.stdout, re.M)
    allowed = run_in_venv(venv_python, tmp_path, "-m", "scrapy_rep", "check", "--example", urls[0])
    assert allowed.returncode == 0, allowed.stderr


@wheel_group
def test_scrapy_command_entry_point_loads(venv_python: Path, tmp_path: Path) -> None:
    code = (
        "from importlib.metadata import distribution\n"
        "dist = distribution('scrapy_rep')\n"
        "import inspect\n"
        "eps = [e for e in dist.entry_points if e.group == 'scrapy.commands']\n"
        "for ep in sorted(eps, key=lambda e: e.name):\n"
        "    command = ep.load()\n"
        "    print(ep.name, command.__module__, command.__name__, inspect.getfile(command))\n"
    )
    result = run_in_venv(venv_python, tmp_path, "-c", code)
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines()]
    assert [tuple(line[:3]) for line in lines] == [
        ("rep-audit", "scrapy_rep.crawl.commands.audit_command", "AuditCommand"),
        ("rep-recheck", "scrapy_rep.crawl.commands.recheck_command", "RecheckCommand"),
        ("rep-robots", "scrapy_rep.crawl.commands.robots_command", "RobotsCommand"),
    ]
    assert all(Path(line[3]).is_relative_to(venv_python.parents[1]) for line in lines)


def snapshot(tree: Path) -> dict[str, tuple[int, int]]:
    """Each file and folder of ``tree`` with its size and modification time."""
    return {
        str(path.relative_to(tree)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(tree.rglob("*"))
    }


@wheel_group
def test_building_a_part_leaves_a_read_only_clone_as_it_was(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """``pip install /path/to/clone`` (and each part's folder) builds in the clone itself:
    it writes nothing there (no ``build/``, no egg-info), so a read-only checkout
    installs, and leaves it as it was."""
    backend = hatchling_backend(tmp_path_factory)
    clone = checkout_copy(tmp_path)
    before = snapshot(clone)
    for path in [clone, *clone.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        for package in PARTS:
            source = clone / PARTS[package].relative_to(ROOT)
            built = build_with(backend, "build_wheel", source, tmp_path / "dist")
            assert built.name.startswith(DISTRIBUTIONS[package].replace("-", "_"))
    finally:
        for path in [clone, *clone.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    assert snapshot(clone) == before


def test_classifiers_are_pypis_and_say_what_the_package_is() -> None:
    from trove_classifiers import classifiers as pypi_classifiers

    for package in PARTS:
        classifiers = project(package)["classifiers"]
        assert sorted(set(classifiers) - pypi_classifiers) == []  # PyPI would refuse it
        statuses = [c for c in classifiers if c.startswith("Development Status :: ")]
        assert statuses in (["Development Status :: 3 - Alpha"], ["Development Status :: 4 - Beta"])
        assert {"Topic :: Internet :: WWW/HTTP :: Indexing/Search", "Typing :: Typed"} <= set(
            classifiers
        )
        assert project(package)["requires-python"] == project()["requires-python"]
    assert "Framework :: Scrapy" in project()["classifiers"]


def test_every_python_from_the_oldest_to_the_newest_is_declared() -> None:
    """The classifiers name every minor version from requires-python to the newest one
    named (.ci/run tests each of them), with no gap: 3.12 was missing."""
    oldest = re.fullmatch(r">=\s*3\.(\d+)", project()["requires-python"].strip())
    assert oldest
    minors = [
        int(m) for classifier in project()["classifiers"]
        for m in re.findall(r"^Programming Language :: Python :: 3\.(\d+)$", classifier)
    ]  # fmt: skip
    assert minors == list(range(int(oldest.group(1)), max(minors) + 1))
    assert 12 in minors


def test_ci_runs_every_declared_python() -> None:
    """.ci/run reads the versions from the classifiers: the oldest, the newest, and a loop
    over the others (the machine's python3 runs in its first step)."""
    run_in_venv = (ROOT / ".ci" / "run").read_text()
    classifier_versions = (
        "sed -n 's/^ *\"Programming Language :: Python :: \\(3\\.[0-9]*\\)\", *$/\\1/p' "
        "pyproject.toml"
    )
    assert f"NEWEST=$({classifier_versions} | sort -V | tail -n 1)" in run_in_venv
    assert f"for version in $({classifier_versions} | sort -V); do" in run_in_venv
    assert 'run_suite "py$version" "$(find_python "$version")" --upgrade' in run_in_venv


def test_summary_is_one_line_with_purposes_and_the_audit_trail() -> None:
    summary = project()["description"]
    assert "\n" not in summary and len(summary) <= 200
    for part in ("robots.txt", "X-Robots-Tag", "purpose", "ai-train", "ai-input", "audit trail"):
        assert part in summary, part
    for package in PARTS:
        assert len(project(package)["description"]) <= 200


def test_changelog_has_one_section_for_the_unreleased_version() -> None:
    """One section for the version being made (no separate "Unreleased" above it), and
    no "Breaking" entry before anything was released to break."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", text, re.M)
    version = project()["version"]
    assert re.fullmatch(rf"{re.escape(version)} \((unreleased|\d{{4}}-\d\d-\d\d)\)", sections[0])
    assert sum("unreleased" in section.lower() for section in sections) <= 1
    released = [section for section in sections if "unreleased" not in section.lower()]
    if not released:
        assert sections == [f"{version} (unreleased)"]
        assert not re.search(r"\bbreaking\b", text, re.I)


def lower_bounds() -> dict[str, str]:
    """The lower bounds every part declares (``name>=version``)."""
    return {
        match.group(1): match.group(2)
        for package in PARTS
        for requirement in project(package)["dependencies"]
        if (match := re.fullmatch(r"([\w-]+)>=([\d.]+)", requirement))
    }


def test_ci_lowest_constraints_pin_the_declared_lower_bounds() -> None:
    text = (ROOT / ".ci" / "lowest-constraints.txt").read_text()
    pins = dict(re.findall(r"^([\w-]+)==([\d.]+)$", text, re.MULTILINE))
    assert set(pins) == set(lower_bounds())  # every declared lower bound is tested
    bounds = lower_bounds()
    for name, pinned in pins.items():
        declared = bounds[name].split(".")
        assert pinned.split(".")[: len(declared)] == declared
        assert all(part == "0" for part in pinned.split(".")[len(declared) :])


def test_the_datatrove_extra_installs_what_the_documented_pipeline_needs() -> None:
    """docs/recheck.md's datatrove pipeline reads and writes with datatrove's
    ``JsonlReader`` and ``JsonlWriter``, which need modules datatrove does not install
    (``_requires_dependencies``): the re-check's ``datatrove`` extra installs them,
    and so does the add-on's extra of the same name."""
    pytest.importorskip("datatrove", reason="datatrove is not installed (the test extra has it)")
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter

    doc = (ROOT / "docs" / "recheck.md").read_text()
    assert "JsonlReader(" in doc and "JsonlWriter(" in doc
    extra = project("rep_recheck")["optional-dependencies"]["datatrove"]
    installed = {re.split(r"[<>=!~\[ ;]", requirement)[0] for requirement in extra}
    needed = {*JsonlReader._requires_dependencies, *JsonlWriter._requires_dependencies}
    assert needed and needed <= installed
    assert project()["optional-dependencies"]["datatrove"] == [
        f"scrapy-rep-recheck[datatrove]=={project()['version']}"
    ]


# --------------------------------------------------------------------------- the sdist


#: The sdist tests share one build (:func:`built_once`).
sdist_group = pytest.mark.xdist_group("sdist")


@pytest.fixture(scope="module")
def unpacked_sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The add-on's sdist (:func:`sdist_archive`), unpacked for this module's tests."""
    archive = sdist_archive(tmp_path_factory, "scrapy_rep")
    tmp = tmp_path_factory.mktemp("sdist")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp / "unpacked", filter="data")
    (root,) = (tmp / "unpacked").iterdir()
    return root


@sdist_group
def test_sdist_ships_tests_helpers_docs_and_example(unpacked_sdist: Path) -> None:
    for name in (
        "tests/conftest.py",
        "tests/__init__.py",
        "tests/support/localhttp.py",
        "tests/support/robotsite.py",
        "tests/support/faultsite.py",
        "tests/support/worker.py",
        "docs/conf.py",
        "docs/_ext/rep_tables.py",
        "docs/behaviour.md",
        "docs/settings.md",
        "example_project/scrapy.cfg",
        "CHANGELOG.md",
        "rep-engine/pyproject.toml",
        "rep-engine/rep_engine/robotstxt/__init__.py",
        "rep-audit/pyproject.toml",
        "rep-recheck/pyproject.toml",
        ".ci/run",
    ):
        assert (unpacked_sdist / name).is_file(), name

    def python_files(root: Path) -> set[Path]:
        return {path.relative_to(root) for path in (root / "tests").rglob("*.py")}

    assert python_files(unpacked_sdist) >= python_files(ROOT)
    assert not list(unpacked_sdist.rglob("__pycache__"))
    assert not (unpacked_sdist / "docs" / "_build").exists()
    assert not list(unpacked_sdist.glob(".venv*"))


@sdist_group
def test_part_of_the_suite_runs_from_the_sdist(unpacked_sdist: Path) -> None:
    """The unpacked sdist's own four packages (first on the path) pass its own tests (in
    one process, -n 0: the suite around this test already has a worker per core)."""
    path = [unpacked_sdist, *(unpacked_sdist / PARTS[p].relative_to(ROOT) for p in PARTS)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    where = subprocess.run(
        [sys.executable, "-c", "import scrapy_rep, rep_engine; print(rep_engine.__file__)"],
        cwd=unpacked_sdist,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(unpacked_sdist)
    # the docs' checks (the pages shipped), the checker's, and the engine's URLs (its
    # 1,262 conformance cases run in the suite: here they cost 8 s of a worker for no more)
    tests = [
        "tests/project/test_docs.py",
        "tests/test_checker_tool.py",
        "tests/urls/test_origins.py",
    ]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *tests],
        cwd=unpacked_sdist,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert re.search(r"^\d+ passed", result.stdout.splitlines()[-1])
