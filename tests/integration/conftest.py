"""Fixtures of the integration tests: a real ``redis-server`` (tests/support/redisserver.py:
one a worker, a database of it a test; without one the tests that ask for it skip, saying
why, unless ``REP_REQUIRE_REDIS=1``),
and ``both_modes``: a crawl on the reactor and the same crawl without one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.redisserver import DATABASES, RedisServer, running_redis
from tests.support.scrapyversions import needs_no_reactor


@pytest.fixture(scope="session")
def shared_redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server the tests of this worker share, each in a database of its own."""
    with running_redis(tmp_path_factory.mktemp("redis"), DATABASES) as server:
        yield server


@pytest.fixture
def redis_server(shared_redis_server: RedisServer) -> RedisServer:
    """A Redis of this test's own: a database of the worker's server no other test uses."""
    return shared_redis_server.database()


@pytest.fixture
def own_redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of this test's own, which it may stop."""
    with running_redis(tmp_path) as server:
        yield server


@pytest.fixture(scope="module")
def module_redis_server(shared_redis_server: RedisServer) -> RedisServer:
    """A Redis the tests of a module share: a database of the worker's server."""
    return shared_redis_server.database()


@pytest.fixture(
    params=[
        "reactor",
        pytest.param("no-reactor", marks=needs_no_reactor()),
    ]
)
def both_modes(request: pytest.FixtureRequest) -> Iterator[str]:
    """The test's crawls (tests/support/robotsite.py's ``crawl``) run once on the test's
    reactor, and once without a reactor (``TWISTED_REACTOR_ENABLED = False``) on an
    asyncio loop in a thread of the test's process (tests/support/loopcrawl.py): a chosen
    set of the crawls that hold, retry, delay, check at send, read media and write the
    trail (``@pytest.mark.usefixtures("both_modes")``). The second is skipped where Scrapy
    cannot crawl without a reactor (``needs_no_reactor``)."""
    from tests.support.robotsite import CrawlMode  # late: after the suite's reactor

    CrawlMode.reactorless = request.param == "no-reactor"
    try:
        yield request.param
    finally:
        CrawlMode.reactorless = False


@pytest.fixture(
    params=[
        "reactor",
        pytest.param("no-reactor", marks=needs_no_reactor()),
    ]
)
def tool_mode(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The command-line arguments that run a tool's crawl (``check``, ``scrapy
    rep-robots``, ``recheck``: each a process of its own) on a reactor, as by default,
    or without one."""
    return () if request.param == "reactor" else ("-s", "TWISTED_REACTOR_ENABLED=False")
