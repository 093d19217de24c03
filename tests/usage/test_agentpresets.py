"""Crawler-name presets in ``REP_PURPOSE_AGENTS`` (rep-engine/rep_engine/usage/agentpresets.py): an
entry ``preset:NAME`` stands for a dated, sourced list of AI crawler names, expanded in
place; an unknown preset stops the crawl at start, naming it; the run header names each
preset used with its date and source."""

from __future__ import annotations

from typing import Any

import pytest

from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from rep_engine.trail.lines import run_line
from rep_engine.usage.agentpresets import PRESETS

APERTUS = "preset:apertus-0943bfd"
#: swiss-ai/pretrain-data robots_filter.py, _DEFAULT_REMOVE_USER_AGENTS at 0943bfd, less
#: CCBot/2.0, CCBot/1.0 (the token CCBot) and * (no crawler's name).
APERTUS_NAMES = (
    "AI2Bot", "Applebot-Extended", "Bytespider", "CCBot", "ClaudeBot",
    "cohere-training-data-crawler", "Diffbot", "FacebookBot", "Meta-ExternalAgent",
    "Google-Extended", "GPTBot", "PanguBot",
)  # fmt: skip


@pytest.mark.parametrize(
    "given",
    [
        ["MyOtherBot", APERTUS, "GPTBot"],
        f"MyOtherBot, {APERTUS}, GPTBot",  # one comma-separated string (-s on the command line)
        ["MyOtherBot", "Preset:Apertus-0943BFD", "GPTBot"],  # names are not case-sensitive
    ],
)
def test_a_preset_expands_in_place_each_name_once(given: Any) -> None:
    config = RepConfig.from_settings({"REP_PURPOSE_AGENTS": given})
    assert config.purpose_agents == ("MyOtherBot", *APERTUS_NAMES)  # GPTBot kept once


def test_every_preset_is_dated_and_sourced() -> None:
    assert PRESETS["apertus-0943bfd"].names == APERTUS_NAMES
    for preset in PRESETS.values():
        assert preset.date and preset.source and preset.names
        assert all(name and "/" not in name and name != "*" for name in preset.names)
        assert len(set(preset.names)) == len(preset.names)


@pytest.mark.parametrize("entry", ["preset:iptc-2026-03", "preset:", "PRESET:apertus"])
def test_an_unknown_preset_is_a_setting_error_naming_it(entry: str) -> None:
    with pytest.raises(RepSettingError) as error:
        RepConfig.from_settings({"REP_PURPOSE_AGENTS": ["GPTBot", entry]})
    assert str(error.value) == (
        f"REP_PURPOSE_AGENTS: unknown preset {entry!r}; the presets are {APERTUS!r}"
    )


def test_the_run_header_names_each_preset_with_its_date_and_source() -> None:
    settings = {"REP_PURPOSE_AGENTS": [APERTUS, "OtherBot"], "USER_AGENT": "MyBot/1.0"}
    config = RepConfig.from_settings(settings)
    header = run_line("r", config, settings, "spider", None, None)
    assert header["agents"] == ["mybot", *APERTUS_NAMES, "OtherBot"]
    assert header["settings"]["REP_PURPOSE_AGENTS"] == [*APERTUS_NAMES, "OtherBot"]
    (preset,) = header["agent_presets"]
    assert preset["name"] == "apertus-0943bfd"
    assert "0943bfd" in preset["date"] and "2026-11-26" in preset["date"]
    assert preset["source"].startswith("swiss-ai/pretrain-data ")
    assert "robots_filter.py" in preset["source"] and preset["names"] == list(APERTUS_NAMES)
    plain = run_line("r", RepConfig.defaults(), {"USER_AGENT": "MyBot/1.0"}, "s", None, None)
    assert plain["agent_presets"] == []
