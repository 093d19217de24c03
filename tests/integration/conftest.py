"""Fixtures of the integration tests: a real ``redis-server`` (tests/support/redisserver.py;
without one the tests that ask for it skip, saying why, unless ``REP_REQUIRE_REDIS=1``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.redisserver import RedisServer, running_redis


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of this test's own."""
    with running_redis(tmp_path) as server:
        yield server


@pytest.fixture(scope="module")
def module_redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server the tests of a module share."""
    with running_redis(tmp_path_factory.mktemp("redis")) as server:
        yield server
