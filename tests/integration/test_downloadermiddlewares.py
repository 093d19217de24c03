"""The robots.txt middleware's settings under the ``scrapy`` command, a wrong one in the
spider's ``custom_settings`` or given with ``-s``: one line, the crawl stopped at its
start, in this process (:func:`~tests.support.robotsite.refused_at_start`; the line alone
on standard error and exit status 2 of ``scrapy crawl``: the process of
tests/integration/test_setting_names.py; SPEC §5; unit tests:
tests/crawl/requests/test_downloadermiddlewares.py)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
import pytest_twisted

from tests.support.robotsite import ListSpider, refused_at_start


class CustomSettings(ListSpider):
    """A spider whose ``custom_settings`` has a wrong setting."""

    custom_settings: ClassVar[dict[str, Any]] = {"REP_CACHE_TTL": "a day"}


@pytest.mark.parametrize(
    ("where", "line"),
    [
        ("custom", "scrapy_rep: error: REP_CACHE_TTL: expected a number, got 'a day'"),
        ("command", "scrapy_rep: error: REP_PROFILE: expected one of 'google', 'rfc9309', "
         "'legacy', got 'gogle'"),
    ],
)  # fmt: skip
@pytest_twisted.ensureDeferred
async def test_spec5_a_wrong_setting_under_the_scrapy_command_is_one_line(
    where: str, line: str
) -> None:
    given = {"REP_PROFILE": "gogle"} if where == "command" else {}  # -s REP_PROFILE=gogle
    spider = CustomSettings if where == "custom" else ListSpider
    addon = {"ADDONS": {"scrapy_rep.Addon": 0}}
    assert await refused_at_start(given, addon, spider=spider) == line
