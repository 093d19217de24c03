"""docs/recheck.md's Common Crawl example, run as written: it decides as CCBot and obeys
the groups of the AI crawlers' preset, so a site that names CCBot, or only GPTBot, is a
"no" that the default crawler name (``Scrapy``) would keep."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.support.recheck import (
    recheck_tool,
    robots_capture,
    write_jsonl,
    write_warc,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "recheck.md"
SECTION = "### A Common Crawl dataset: decide as CCBot"

#: Sites as Common Crawl's robots.txt WARC has them: one names CCBot, one only GPTBot, one
#: everyone; each item by what its site says of it.
SITES = {
    "https://cc.example": "User-agent: CCBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
    "https://gpt.example": "User-agent: GPTBot\nDisallow: /\n",
    "https://all.example": "User-agent: *\nDisallow: /private\n",
}
KEPT = ["https://all.example/a"]
REFUSED = ["https://cc.example/a", "https://gpt.example/a", "https://all.example/private/b"]


def _example_argv() -> list[str]:
    """The section's command line, its continuation lines joined, after ``python -m
    rep_recheck``."""
    section = DOCS.read_text(encoding="utf-8").split(SECTION, 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    words = shlex.split(block.replace("\\\n", " "))
    assert words[:3] == ["python", "-m", "rep_recheck"], words
    return words[3:]


def test_the_common_crawl_example_decides_as_ccbot_with_the_preset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_warc(tmp_path / "robots.warc.gz", [robots_capture(o, t) for o, t in SITES.items()],
               compress=True)  # fmt: skip
    write_jsonl(tmp_path / "items.jsonl", KEPT + REFUSED)
    argv = _example_argv()
    assert "-A" in argv and argv[argv.index("-A") + 1].startswith("CCBot/")

    status, summary = recheck_tool(*argv)
    assert status == 1, summary  # items removed
    assert "agent `ccbot`" in summary and "GPTBot" in summary, summary
    kept = (tmp_path / "kept.jsonl").read_text(encoding="utf-8")
    assert [url for url in KEPT + REFUSED if url in kept] == KEPT
    assert (tmp_path / "trail.jsonl").is_file()

    # The control: as the default crawler name, without the preset, both sites that name
    # an AI crawler are kept, which is what the example exists to avoid.
    default = ["items.jsonl", "--purpose", "ai-train", "--documents", "robots.warc.gz",
               "--consult", "robots.txt", "--out", "kept-default.jsonl"]  # fmt: skip
    status, summary = recheck_tool(*default)
    assert "agent `scrapy`" in summary, summary
    kept_default = (tmp_path / "kept-default.jsonl").read_text(encoding="utf-8")
    assert "https://cc.example/a" in kept_default and "https://gpt.example/a" in kept_default


def test_a_user_agent_that_names_no_crawler_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-A "(https://commoncrawl.org/faq/)"`` (the URL alone, no name) reads the `*`
    groups only: CCBot's own group is lost. The run says so, in its summary and on
    standard error; a named crawler's run does not."""
    monkeypatch.chdir(tmp_path)
    write_warc(tmp_path / "robots.warc.gz", [robots_capture(o, t) for o, t in SITES.items()],
               compress=True)  # fmt: skip
    write_jsonl(tmp_path / "items.jsonl", KEPT + REFUSED)
    common = ["items.jsonl", "--purpose", "ai-train", "--documents", "robots.warc.gz",
              "--consult", "robots.txt", "--out", "kept.jsonl"]  # fmt: skip
    _, summary = recheck_tool(*common, "-A", "(https://commoncrawl.org/faq/)")
    said = "names no crawler (it starts with no product token)"
    assert said in summary and said in capsys.readouterr().err
    _, summary = recheck_tool(*common, "-A", "CCBot/2.0")
    assert said not in summary and said not in capsys.readouterr().err
