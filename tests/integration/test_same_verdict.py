"""The checker and the crawl say the same (docs/decisions.md, 'The tools decide through
the crawl's own code').

Every setting that changes a request's verdict is driven through a real crawl,
``scrapy rep-robots URL -s SETTING=…`` and ``python -m scrapy_rep check URL --option …``
(both in this process, their crawls under the test's reactor: :mod:`tests.support.tools`);
all three must agree on whether the URL is fetched. The tools decide through the crawl's
own decision (:func:`rep_engine.verdict.decide.decide`), so a new setting that is wired into
one only shows up here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_twisted

from tests.support.documents import rsl_license
from tests.support.localhttp import QuietHandler, serving
from tests.support.robotsite import crawl
from tests.support.tools import check_async, robots_async

PAGE = b"<html><body>page</body></html>"
ANYONE = b"User-agent: *\nAllow: /\n"


@dataclass(frozen=True)
class SettingCase:
    robots: bytes | int = ANYONE
    tdmrep: bytes | int = 404
    #: The body (or status) of the RSL license at /license.xml; robots.txt names it in a
    #: ``License:`` line when set.
    rsl: bytes | int | None = None
    #: The ``Location`` /license.xml redirects to (301) instead; ``/hopN`` redirects N
    #: more times, then serves a license that permits everything.
    rsl_location: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    #: The crawl's verdict on /page (the tools must say the same).
    fetched: bool = True
    #: The tools' exit code.
    exit_code: int = 0


SERVER = "https://licenses.example/token"


NO_SEARCH = rsl_license('<prohibits type="usage">search</prohibits>')
NO_TRAIN = rsl_license('<prohibits type="usage">ai-train</prohibits>')
BEHIND_SERVER = rsl_license(
    '<permits type="usage">all</permits>', f'<content url="/" server="{SERVER}">'
)
PERMIT_ALL = rsl_license('<permits type="usage">all</permits>')
#: robots.txt with the license in OtherBot's group (``{license}``: its URL).
OTHER_GROUPS_LICENSE = (
    b"User-agent: OtherBot\nLicense: {license}\nAllow: /\n\nUser-agent: *\nAllow: /\n"
)
#: Redirects of the license that cannot be followed -> the ``Location`` of /license.xml.
UNFOLLOWABLE = {
    "redirect loop": "/license.xml",
    "6 redirects": "/hop4",
    "redirect to file:": "file:///etc/passwd",
    "redirect to ftp:": "ftp://127.0.0.1/license.xml",
    "redirect to data:": "data:,x",
    "broken Location": "http://[oops/license.xml",
}

CASES = {
    # REP_PURPOSE (default search): an explicit "no" for the crawl's purpose.
    "search by default, Content-Signal search=no": SettingCase(
        b"User-agent: *\nContent-Signal: search=no\nAllow: /\n", fetched=False, exit_code=1
    ),
    "search by default, Content-Signal ai-train=no": SettingCase(
        b"User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n"
    ),
    "REP_PURPOSE ai-train, Content-Signal ai-train=no": SettingCase(
        b"User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n",
        settings={"REP_PURPOSE": "ai-train"},
        fetched=False,
        exit_code=1,
    ),
    "REP_PURPOSE ai-train, Content-Usage train-ai=n": SettingCase(
        b"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n",
        settings={"REP_PURPOSE": "ai-train"},
        fetched=False,
        exit_code=1,
    ),
    "REP_PURPOSE ai-train, tdmrep.json reserves": SettingCase(
        tdmrep=b'[{"location": "/page", "tdm-reservation": 1}]',
        settings={"REP_PURPOSE": "ai-train"},
        fetched=False,
        exit_code=1,
    ),
    "REP_PURPOSE search, tdmrep.json reserves (not about search)": SettingCase(
        tdmrep=b'[{"location": "/page", "tdm-reservation": 1}]'
    ),
    # REP_PURPOSE_AGENTS: the groups of the extra tokens are obeyed too.
    "REP_PURPOSE_AGENTS GPTBot": SettingCase(
        b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
        settings={"REP_PURPOSE_AGENTS": "GPTBot"},
        fetched=False,
        exit_code=1,
    ),
    "no REP_PURPOSE_AGENTS, a GPTBot group": SettingCase(
        b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    ),
    # REP_PROFILE: the legacy profile's first matching line.
    "REP_PROFILE google, longest match": SettingCase(b"User-agent: *\nDisallow: /\nAllow: /page\n"),
    "REP_PROFILE legacy, first match": SettingCase(
        b"User-agent: *\nDisallow: /\nAllow: /page\n",
        settings={"REP_PROFILE": "legacy"},
        fetched=False,
        exit_code=1,
    ),
    # USER_AGENT: the crawler's own group.
    "USER_AGENT OtherBot has its own group": SettingCase(
        b"User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
        settings={"USER_AGENT": "OtherBot/2.0"},
        fetched=False,
        exit_code=1,
    ),
    "ROBOTSTXT_USER_AGENT OtherBot has its own group": SettingCase(
        b"User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
        settings={"ROBOTSTXT_USER_AGENT": "OtherBot"},
        fetched=False,
        exit_code=1,
    ),
    # ROBOTSTXT_OBEY = False: Allow/Disallow off; the opt-outs of a purpose set still hold.
    "ROBOTSTXT_OBEY False, Disallow: /": SettingCase(
        b"User-agent: *\nDisallow: /\n", settings={"ROBOTSTXT_OBEY": False}
    ),
    "ROBOTSTXT_OBEY False, no REP_PURPOSE, Content-Signal search=no": SettingCase(
        b"User-agent: *\nContent-Signal: search=no\nAllow: /\n",
        settings={"ROBOTSTXT_OBEY": False},
    ),
    "ROBOTSTXT_OBEY False, REP_PURPOSE ai-train, Disallow: /": SettingCase(
        b"User-agent: *\nDisallow: /\n",
        settings={"ROBOTSTXT_OBEY": False, "REP_PURPOSE": "ai-train"},
    ),
    "ROBOTSTXT_OBEY False, REP_PURPOSE ai-train, Content-Signal ai-train=no": SettingCase(
        b"User-agent: *\nDisallow: /\nContent-Signal: ai-train=no\n",
        settings={"ROBOTSTXT_OBEY": False, "REP_PURPOSE": "ai-train"},
        fetched=False,
        exit_code=1,
    ),
    "ROBOTSTXT_OBEY False, REP_PURPOSE ai-train, tdmrep.json reserves": SettingCase(
        tdmrep=b'[{"location": "/page", "tdm-reservation": 1}]',
        settings={"ROBOTSTXT_OBEY": False, "REP_PURPOSE": "ai-train"},
        fetched=False,
        exit_code=1,
    ),
    "ROBOTSTXT_OBEY False, REP_PURPOSE search, Content-Signal search=no": SettingCase(
        b"User-agent: *\nContent-Signal: search=no\nAllow: /\n",
        settings={"ROBOTSTXT_OBEY": False, "REP_PURPOSE": "search"},
        fetched=False,
        exit_code=1,
    ),
    # REP_UNREACHABLE_ACTION: what an unreachable document comes to (exit 3: for now).
    "robots.txt 503, REP_UNREACHABLE_ACTION drop": SettingCase(
        503, settings={"REP_UNREACHABLE_ACTION": "drop"}, fetched=False, exit_code=3
    ),
    "robots.txt 503, REP_UNREACHABLE_ACTION allow": SettingCase(
        503, settings={"REP_UNREACHABLE_ACTION": "allow"}, exit_code=3
    ),
    "ai-train, tdmrep.json 503, REP_UNREACHABLE_ACTION drop": SettingCase(
        tdmrep=503,
        settings={"REP_PURPOSE": "ai-train", "REP_UNREACHABLE_ACTION": "drop"},
        fetched=False,
        exit_code=3,
    ),
    "ai-train, tdmrep.json 503, REP_UNREACHABLE_ACTION allow": SettingCase(
        tdmrep=503,
        settings={"REP_PURPOSE": "ai-train", "REP_UNREACHABLE_ACTION": "allow"},
        exit_code=3,
    ),
    # RSL licenses of robots.txt's License: line (REP_PURPOSE set; REP_RSL_LICENSES).
    "REP_PURPOSE search, RSL prohibits search": SettingCase(
        rsl=NO_SEARCH, settings={"REP_PURPOSE": "search"}, fetched=False, exit_code=1
    ),
    "no REP_PURPOSE, RSL prohibits search (not read)": SettingCase(rsl=NO_SEARCH),
    "REP_PURPOSE ai-train, RSL prohibits ai-train": SettingCase(
        rsl=NO_TRAIN, settings={"REP_PURPOSE": "ai-train"}, fetched=False, exit_code=1
    ),
    "REP_PURPOSE ai-input, RSL prohibits ai-train": SettingCase(
        rsl=NO_TRAIN, settings={"REP_PURPOSE": "ai-input"}
    ),
    "REP_PURPOSE ai-train, RSL server=, not held": SettingCase(
        rsl=BEHIND_SERVER, settings={"REP_PURPOSE": "ai-train"}, fetched=False, exit_code=1
    ),
    "REP_PURPOSE ai-train, RSL server=, REP_RSL_LICENSES holds it": SettingCase(
        rsl=BEHIND_SERVER, settings={"REP_PURPOSE": "ai-train", "REP_RSL_LICENSES": SERVER}
    ),
    "REP_PURPOSE ai-train, RSL 404 (no terms)": SettingCase(
        rsl=404, settings={"REP_PURPOSE": "ai-train"}
    ),
    "REP_PURPOSE ai-train, RSL 503 (given up: no AI use)": SettingCase(
        rsl=503, settings={"REP_PURPOSE": "ai-train"}, fetched=False, exit_code=3
    ),
    # A license that cannot be followed is unreadable (no AI use), never "no terms".
    **{
        f"REP_PURPOSE ai-train, RSL {what} (unreadable: no AI use)": SettingCase(
            rsl=PERMIT_ALL,
            rsl_location=location,
            settings={"REP_PURPOSE": "ai-train"},
            fetched=False,
            exit_code=1,
        )
        for what, location in UNFOLLOWABLE.items()
    },
    "REP_PURPOSE ai-train, RSL 301 without Location (unreadable: no AI use)": SettingCase(
        rsl=301, settings={"REP_PURPOSE": "ai-train"}, fetched=False, exit_code=1
    ),
    # RSL's guide: a License line is "global (not tied to any specific user agent)".
    "REP_PURPOSE ai-train, RSL named in another group only": SettingCase(
        OTHER_GROUPS_LICENSE,
        rsl=NO_TRAIN,
        settings={"REP_PURPOSE": "ai-train"},
        fetched=False,
        exit_code=1,
    ),
    "REP_PURPOSE ai-train, RSL named in a REP_PURPOSE_AGENTS group": SettingCase(
        OTHER_GROUPS_LICENSE,
        rsl=NO_TRAIN,
        settings={"REP_PURPOSE": "ai-train", "REP_PURPOSE_AGENTS": "OtherBot"},
        fetched=False,
        exit_code=1,
    ),
    "REP_PURPOSE ai-train, RSL after 5 redirects (followed)": SettingCase(
        rsl=PERMIT_ALL, rsl_location="/hop3", settings={"REP_PURPOSE": "ai-train"}
    ),
}

#: The checker's option for each setting that has one (any other: ``-s NAME=VALUE``).
CHECK_OPTIONS = {
    "REP_PURPOSE": "--purpose",
    "REP_PURPOSE_AGENTS": "--purpose-agents",
    "REP_PROFILE": "--profile",
    "USER_AGENT": "--user-agent",
    "REP_UNREACHABLE_ACTION": "--unreachable-action",
    "REP_RSL_LICENSES": "--rsl-licenses",
}
USER_AGENT = "TestBot/1.0 (+https://example.com/bot)"


@contextmanager
def serving_case(case: SettingCase) -> Iterator[str]:
    def answer(handler: QuietHandler, what: bytes | int, kind: str) -> None:
        if isinstance(what, int):
            handler.send(what, b"", {"Content-Type": "text/plain"})
        else:
            handler.send(200, what, {"Content-Type": kind})

    class Handler(QuietHandler):
        def do_GET(self) -> None:
            if self.path == "/robots.txt":
                license_url = f"http://127.0.0.1:{self.server.server_port}/license.xml"
                named = f"License: {license_url}\n".encode() if case.rsl is not None else b""
                robots = case.robots
                if isinstance(robots, bytes) and b"{license}" in robots:
                    robots = robots.replace(b"{license}", license_url.encode())
                elif isinstance(robots, bytes):
                    robots += named
                answer(self, robots, "text/plain")
            elif self.path == "/license.xml" and case.rsl_location is not None:
                self.send(301, b"", {"Location": case.rsl_location})
            elif self.path.startswith("/hop"):  # /hopN: N more redirects, then the license
                left = int(self.path[4:])
                target = f"/hop{left - 1}" if left > 0 else "/final.xml"
                self.send(301, b"", {"Location": target})
            elif self.path in ("/license.xml", "/final.xml") and case.rsl is not None:
                answer(self, case.rsl, "application/rsl+xml")
            elif self.path == "/.well-known/tdmrep.json":
                answer(self, case.tdmrep, "application/json")
            else:
                self.send(200, PAGE, {"Content-Type": "text/html"})

    with serving(Handler) as port:
        yield f"http://127.0.0.1:{port}"


def settings_of(case: SettingCase) -> dict[str, Any]:
    return {"USER_AGENT": USER_AGENT, **case.settings}


def tool_verdict(output: str, url: str) -> bool:
    lines = [line.strip() for line in output.splitlines() if url in line and "  " in line]
    verdicts = {line.split()[0] for line in lines if line.split()[0] in ("allowed", "DISALLOWED")}
    assert len(verdicts) == 1, output
    return verdicts == {"allowed"}


async def check_case(case: SettingCase, url: str) -> tuple[int, str]:
    args = [url, "--timeout", "5"]
    for name, value in settings_of(case).items():
        if name == "ROBOTSTXT_OBEY":
            args += [] if value else ["--no-robotstxt-obey"]
        elif name in CHECK_OPTIONS:
            args += [CHECK_OPTIONS[name], value]
        else:
            args += ["-s", f"{name}={value}"]
    return await check_async(*args)


async def run_scrapy_robots(case: SettingCase, url: str) -> tuple[int, str]:
    settings = [
        arg for name, value in settings_of(case).items() for arg in ("-s", f"{name}={value}")
    ]
    return await robots_async("--timeout", "5", *settings, url, user_agent=None)


@pytest.mark.parametrize("name", list(CASES))
@pytest_twisted.ensureDeferred
async def test_the_crawl_and_both_tools_give_the_same_verdict(name: str) -> None:
    case = CASES[name]
    with serving_case(case) as base:
        url = f"{base}/page"
        settings = {**settings_of(case), "REP_UNREACHABLE_MAX_WAIT": 0}
        _, spider = await crawl([url], settings)
        crawled = url in spider.downloaded
        check_code, check_output = await check_case(case, url)
        robots_code, robots_output = await run_scrapy_robots(case, url)
    assert crawled is case.fetched, spider.dropped
    assert tool_verdict(check_output, url) is case.fetched, check_output
    assert tool_verdict(robots_output, url) is case.fetched, robots_output
    assert check_code == robots_code == case.exit_code, (check_output, robots_output)
