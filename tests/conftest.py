"""Shared test helpers."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from importlib.util import find_spec
from pathlib import Path

import pluggy
import pytest
from hypothesis import HealthCheck, settings

from tests.support.bytecode import share_rewritten_tests, share_with_children

#: ``../shared`` beside the checkout (SPEC corpus); absent for release installs.
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
#: The robots.txt corpus: ``REP_CORPUS`` when set, else ``../shared/corpus``.
CORPUS = Path(os.environ.get("REP_CORPUS") or SHARED / "corpus")
#: Whether Scrapy and the audit tools are installed: the engine's tests also run in a venv
#: of the engine alone (.ci/run, job 1c), where nothing crawls or writes a trail.
WITH_SCRAPY = find_spec("scrapy") is not None
WITH_AUDIT = find_spec("rep_audit") is not None

# Hypothesis keeps no example database: it would be a .hypothesis/ folder written into the
# checkout by every worker. A failure prints the example and a @reproduce_failure blob.
# Nothing of it is timed (no test is: a loaded machine moves a time more than a change
# does): no deadline per example, and no health check of how slowly examples are drawn.
settings.register_profile(
    "suite",
    database=None,
    print_blob=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("suite")


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(
            f"needs the robots.txt corpus (2,210 real, junk and synthetic files, 37 MB; not "
            f"shipped): not found at {CORPUS}; to run these tests, set REP_CORPUS=/path/to/"
            f"corpus (or put it at ../shared/corpus beside the checkout)"
        )
    return CORPUS


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: three workers per two cores. Most of the suite waits (a local
    server, a ``Crawl-delay``, a retry, a child process) rather than computes: two
    workers on 2 cores left them idle 60 % of the time (5 min 24 s of CPU in a
    7 min 16 s run); a third worker takes up part of it (tests/integration: 204 s
    against 254 s, the two runs one after the other)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) * 3 // 2)


def pytest_configure(config: pytest.Config) -> None:
    share_with_children(config)
    share_rewritten_tests(config)
    config.addinivalue_line(
        "markers",
        "trail_not_verified(why): a trail this test writes is not verified when it is closed "
        "(it is not a whole crawl's trail on purpose)",
    )
    if not WITH_SCRAPY:
        return
    from scrapy_rep.crawl.internals import SCRAPY

    if SCRAPY < (2, 17):
        # Scrapy 2.13 to 2.16 leave the file of an empty disk queue open when a JOBDIR
        # crawl resumes (ScrapyPriorityQueue.init_prios; 2.17 closes it): a
        # ResourceWarning at garbage collection, not ours.
        config.addinivalue_line(
            "filterwarnings",
            r"ignore:Exception ignored in. <_io\.FileIO name='[^']*requests\.queue/"
            ":pytest.PytestUnraisableExceptionWarning",
        )
    # The crawlers the tests start in this process have no use for Scrapy's telnet console,
    # and the workers race for its ports (6023-6073): on Twisted 22.1 a port found taken
    # leaks the socket it tried (a ResourceWarning at garbage collection, which fails
    # whatever test is running then). Crawls in processes of their own keep the default.
    from scrapy.settings import default_settings

    default_settings.TELNETCONSOLE_ENABLED = False


@pytest.fixture(autouse=True)
def _every_trail_verified(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Every audit trail a test's crawl writes in this process is verified
    (``python -m scrapy_rep audit verify``) each time its writer closes it, at the end of
    each run: a trail defect shows in any test that crawls with ``REP_AUDIT_FILE``. A trail
    left unclosed (a write error, the file given up on) is not whole on purpose."""
    if request.node.get_closest_marker("trail_not_verified") is not None or not WITH_AUDIT:
        yield
        return
    from rep_audit.verify import verify
    from rep_engine.trail.file import TrailFile
    from rep_engine.trail.read import TrailError

    findings: list[str] = []
    close = TrailFile.close

    def close_and_verify(self: TrailFile) -> None:
        close(self)
        if not self.path.is_file():  # /dev/null, /dev/full
            return
        try:
            result = verify(self.path)
        except TrailError as error:
            findings.append(f"{self.path}: {error}")
            return
        findings.extend(f"{self.path}: {finding}" for finding in result.findings)

    monkeypatch.setattr(TrailFile, "close", close_and_verify)
    yield
    if findings:
        pytest.fail("audit trail not clean:\n" + "\n".join(findings[:20]), pytrace=False)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test that depends on an optional tool is marked ``optional_tools``
    (tests/support/optionaltools.py: what ``.ci/run`` runs with the tools hidden). Tests
    marked ``soak`` (the full-size runs) run only with ``REP_SOAK=1``."""
    from tests.support.optionaltools import needs_an_optional_tool

    for item in items:
        if needs_an_optional_tool(item):
            item.add_marker(pytest.mark.optional_tools)
    group_for_xdist(config, items)
    if os.environ.get("REP_SOAK") == "1":
        return
    for item in items:
        marker = item.get_closest_marker("soak")
        if marker is not None:
            cost = marker.kwargs.get("cost", "minutes")
            item.add_marker(
                pytest.mark.skip(
                    reason=f"soak run ({cost}; its smaller run is in the suite): "
                    f"REP_SOAK=1 python -m pytest {item.nodeid} runs it"
                )
            )


def group_for_xdist(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--dist loadgroup`` sends the tests of one ``xdist_group`` to one worker (the
    wheel's tests share one build, the sdist's one unpacking, a module's expensive
    fixture runs once): a worker names a test's group by a suffix of its node id,
    ``…@group``. pytest-xdist 3.8 sets it as ``item._nodeid``, which pytest 9 no longer
    reads (a node's id is ``item._id``): every worker then built its own wheel and ran
    the fixtures again. Here the id is set as pytest 9 holds it (once: an xdist that sets
    it itself leaves nothing to do)."""
    if not hasattr(config, "workerinput") or not config.getvalue("loadgroup"):
        return
    for item in items:
        node_id = getattr(item, "_id", None)
        groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                         for m in item.iter_markers("xdist_group")})  # fmt: skip
        if node_id is None or not groups or item.nodeid.rpartition("@")[2] == "_".join(groups):
            continue
        item._id = type(node_id).parse(f"{item.nodeid}@{'_'.join(groups)}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    """What a test printed or logged, as its report carries it, written as UTF-8 can
    carry it: a lone surrogate (a test's hostile file name, logged by Scrapy) is escaped,
    so that pytest-xdist can send the report back from its worker (it could not: an
    INTERNALERROR that ended the whole run)."""
    outcome = yield
    report = outcome.get_result()
    report.sections = [
        (title, text.encode("utf-8", "backslashreplace").decode("utf-8"))
        for title, text in report.sections
    ]
