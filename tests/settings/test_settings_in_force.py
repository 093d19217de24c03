"""The settings a run header keeps (settings.settings_in_force): every ``REP_*`` setting
and the Scrapy settings a trail must say (``ROBOTSTXT_OBEY``, ``ROBOTSTXT_USER_AGENT``,
Scrapy 2.19's ``REMOTE_CONTROL_ENABLED``)."""

from __future__ import annotations

from typing import Any

import pytest

from rep_engine.settings import RepConfig, settings_in_force


@pytest.mark.parametrize(
    ("given", "recorded"),
    [
        ({}, "absent"),  # a Scrapy before 2.19: no such setting
        ({"REMOTE_CONTROL_ENABLED": True}, True),
        ({"REMOTE_CONTROL_ENABLED": "False"}, False),
        ({"REMOTE_CONTROL_ENABLED": "0"}, False),
        ({"REMOTE_CONTROL_ENABLED": 1}, True),
        ({"REMOTE_CONTROL_ENABLED": "sometimes"}, "sometimes"),
    ],
)
def test_the_run_headers_settings_say_what_remote_control_the_crawl_had(
    given: dict[str, Any], recorded: Any
) -> None:
    """Scrapy 2.19's REMOTE_CONTROL_ENABLED, read as Scrapy's getbool reads it, is in the
    settings the run header keeps ("absent" where Scrapy has no such setting)."""
    values = settings_in_force(RepConfig.defaults(), given)
    assert values["REMOTE_CONTROL_ENABLED"] == recorded
    assert type(values["REMOTE_CONTROL_ENABLED"]) is type(recorded)
