"""Both tools read a site as the crawl reads it, since they are a crawl (docs/decisions.md,
'The tools are a crawl'): what a hostile
site sends is printed as escapes, never as a line of its own; a UTF-8 product token, the
settings that change a page's verdict (``REP_META_IN_NOSCRIPT``, ``REP_DIRECTIVE_TOKENS``)
as in the crawl; a URL refused for a purpose is never fetched; a project's ``REP_PURPOSE``
shows each page's status, and the tools write nothing of the project's (its audit trail,
its pipelines). The redirects, compression, folding, charsets and meta refresh:
tests/integration/test_tools_agree.py."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest_twisted

from tests.support.localhttp import QuietHandler, port_fixture
from tests.support.scrapyproject import make_project, project_settings
from tests.support.tools import check_async, robots_async

ROBOTS = b"User-agent: *\nDisallow: /private\nSitemap: http://e.example/\x1b]0;pwned\x07map.xml\n"
#: A line another tool's output has, as a site would forge it.
FORGED = "  allowed     http://forged.example/  line 9: Allow: /"
FORGING_META = (
    b'<html><head><meta name="otherbot" content="noindex&#10;'
    + FORGED.encode()
    + b'"></head><body>p</body></html>'
)
NOSCRIPT = b'<html><head><noscript><meta name="robots" content="noai"></noscript></head></html>'


class ToolsSite(QuietHandler):
    #: The paths asked for.
    served: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.served.append(self.path)
        html = {"Content-Type": "text/html"}
        if self.path == "/robots.txt":
            self.send(200, ROBOTS, {"Content-Type": "text/plain"})
        elif self.path == "/forging":  # ESC, and a folded line that reads as output
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("X-Robots-Tag", "otherbot: noindex\x1b[2J\x1b[1;1H")
            self.send_header("X-Robots-Tag", f"otherbot:\r\n {FORGED}")
            self.send_header("Content-Length", str(len(FORGING_META)))
            self.end_headers()
            self.wfile.write(FORGING_META)
        elif self.path == "/utf8":
            self.send_response(200)
            # the header's bytes as UTF-8 (http.server's send_header writes latin-1)
            self._headers_buffer.append("X-Robots-Tag: jävlabot: noindex\r\n".encode())
            self.send_header("Content-Length", "13")
            self.end_headers()
            self.wfile.write(b"<html></html>")
        elif self.path == "/noscript":
            self.send(200, NOSCRIPT, html)
        elif self.path == "/scoped":
            self.send(200, b"<html></html>", {**html, "X-Robots-Tag": "otherbot: noindex"})
        elif self.path == "/notrain":
            self.send(200, b"<html></html>", {**html, "Content-Usage": "train-ai=n"})
        elif self.path == "/gone":
            self.send(404, b"<html></html>", {**html, "Content-Usage": "train-ai=n"})
        else:
            self.send(200, b"<html><body>p</body></html>", html)


port = port_fixture(ToolsSite)


async def both_tools(*args: str) -> list[tuple[int, str]]:
    """``check ARGS`` and ``scrapy rep-robots ARGS`` (no USER_AGENT of the tests')."""
    return [await check_async(*args), await robots_async(*args, user_agent=None)]


@pytest_twisted.ensureDeferred
async def test_a_site_cannot_forge_a_line_of_either_tools_output(
    port: int, tool_mode: tuple[str, ...]
) -> None:
    """ESC sequences and line breaks in what the site sends (a header, an obs-fold
    continuation, ``&#10;`` in a meta tag, robots.txt) are printed as escapes: no
    forged line, no terminal control."""
    base = f"http://127.0.0.1:{port}"
    for status, output in await both_tools(
        *tool_mode, "--page", "-A", "TestBot", f"{base}/forging"
    ):
        assert status == 0, output
        lines = output.splitlines()
        assert not any(line.startswith("  allowed     http://forged") for line in lines), output
        assert "\x1b" not in output and "\x07" not in output, output
        assert "\\x1b[2J\\x1b[1;1H" in output and "noindex\\n  allowed     http://forged" in output
        assert "sitemap: http://e.example/\\x1b]0;pwned\\x07map.xml" in output


@pytest_twisted.ensureDeferred
async def test_a_utf8_product_token_is_read_as_the_crawl_reads_it(port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    for status, output in await both_tools("--page", "-A", "jävlabot/1.0", f"{base}/utf8"):
        assert status == 1, output
        assert "page: 200, directives: noindex (X-Robots-Tag: jävlabot: noindex)" in output
        assert "=> not for this crawl: noindex by header X-Robots-Tag: jävlabot: noindex" in output


@pytest_twisted.ensureDeferred
async def test_the_settings_that_change_a_pages_verdict_are_the_crawls(port: int) -> None:
    """``REP_META_IN_NOSCRIPT = False``: the crawl keeps a page whose only "no" is inside
    ``<noscript>``, and so do both tools (rep-robots read it for the purpose, and exited
    1); ``REP_DIRECTIVE_TOKENS``: ``check`` has every setting (``-s``)."""
    base = f"http://127.0.0.1:{port}"
    noscript = ("-s", "REP_META_IN_NOSCRIPT=False")
    purpose = ("--purpose", "ai-train", "--page", "-A", "TestBot")
    for status, output in await both_tools(*purpose, *noscript, f"{base}/noscript"):
        assert status == 0, output
        assert "ai-train: unknown" in output and output.rstrip().endswith("=> kept"), output
    for status, output in await both_tools("--page", "-A", "TestBot", f"{base}/noscript"):
        assert status == 0 and "directives: noai" in output, output  # read by default
    tokens = ("-s", "REP_DIRECTIVE_TOKENS=otherbot")
    for status, output in await both_tools("--page", "-A", "TestBot", *tokens, f"{base}/scoped"):
        assert status == 1, output
        assert "=> not for this crawl: noindex by header X-Robots-Tag: otherbot: noindex" in output


@pytest_twisted.ensureDeferred
async def test_check_page_never_fetches_a_url_refused_for_the_purpose(
    port: int, tool_mode: tuple[str, ...]
) -> None:
    """It said "DISALLOWED … Not fetched", then fetched the page and printed it."""
    base = f"http://127.0.0.1:{port}"
    ToolsSite.served.clear()
    status, output = await check_async(
        *tool_mode, "--page", "--purpose", "ai-train", "-s", "REP_PURPOSE_AGENTS=GPTBot",
        "-A", "TestBot",
        f"{base}/private/a", f"{base}/notrain",
    )  # fmt: skip
    assert status == 1, output
    assert f"DISALLOWED  {base}/private/a  line 2: Disallow: /private\n" in output
    assert "/private/a" not in ToolsSite.served
    assert ToolsSite.served.count("/notrain") == 1
    assert output.rstrip().endswith(
        "=> not for this crawl: ai-train denied by header Content-Usage: train-ai=n"
    )


@pytest_twisted.ensureDeferred
async def test_a_projects_purpose_shows_each_pages_status_and_the_tool_writes_nothing(
    port: int, tmp_path: Path, tool_mode: tuple[str, ...]
) -> None:
    """``REP_PURPOSE`` in the project: each page is fetched, and its status shown (a 404
    read "usage signals: none / ai-train: unknown"); the project's audit trail, report,
    item pipelines and ``JOBDIR`` are the crawl's, never the tool's; its HTTP cache and
    AutoThrottle change nothing the tool says. ``scrapy rep-robots`` in the project's
    folder, which Scrapy reads the project's settings from (in this process:
    :func:`~tests.support.scrapyproject.project_settings`)."""
    base = f"http://127.0.0.1:{port}"
    trail, jobdir = tmp_path / "trail.jsonl", tmp_path / "job"
    project = make_project(
        tmp_path,
        f'REP_PURPOSE = "ai-train"\nREP_AUDIT_FILE = {str(trail)!r}\nREP_REPORT = True\n'
        f"JOBDIR = {str(jobdir)!r}\nHTTPCACHE_ENABLED = True\nAUTOTHROTTLE_ENABLED = True\n"
        "AUTOTHROTTLE_START_DELAY = 0.5\n"  # on, without its 5 s between the tool's requests
        'USER_AGENT = "TestBot/1.0"\nDOWNLOAD_DELAY = 0\n'
        'ITEM_PIPELINES = {"no.such.Pipeline": 300}\n',
    )
    asked = (*tool_mode, f"{base}/gone", f"{base}/plain")
    with project_settings(project):
        status, output = await robots_async(*asked, user_agent=None)
        again = await robots_async(*asked, user_agent=None)
    assert status == 1, output
    gone = output.split(f"{base}/gone")[1].split(f"{base}/plain")[0]
    assert "      page: 404, directives: (none)" in gone, output
    assert "=> not for this crawl: ai-train denied by header Content-Usage: train-ai=n" in gone
    assert "page: 200" in output.split(f"{base}/plain")[1]
    assert not trail.exists() and not jobdir.exists()
    assert "scrapy_rep report" not in output
    assert again == (status, output)  # from Scrapy's HTTP cache now: the same


@pytest_twisted.ensureDeferred
async def test_a_project_that_switches_the_trail_extension_off_still_gets_the_crawls_verdicts(
    port: int, tmp_path: Path
) -> None:
    """The tools read each verdict from the crawl's URL ledger (the extension
    ``scrapy_rep.AuditTrail``): a project that lists it as ``None`` in ``EXTENSIONS`` (it
    writes no trail) must not make a disallowed URL print as allowed, "no verdict"."""
    base = f"http://127.0.0.1:{port}"
    project = make_project(tmp_path, 'EXTENSIONS = {"scrapy_rep.AuditTrail": None}\n')
    with project_settings(project):
        status, output = await robots_async(f"{base}/private", user_agent=None)
    assert "DISALLOWED" in output and "no verdict" not in output, output
    assert status == 1, output


DROPPING_MIDDLEWARE = '''
class DropItems:
    """A spider middleware of the project's, after the page pass: it keeps no item
    (``spider``: Scrapy before 2.14 passes it)."""

    def process_spider_output(self, response, result, spider=None):
        for output in result:
            if not isinstance(output, dict):
                yield output

    async def process_spider_output_async(self, response, result, spider=None):
        async for output in result:
            if not isinstance(output, dict):
                yield output
'''


@pytest_twisted.ensureDeferred
async def test_a_page_whose_item_a_later_component_drops_is_not_said_kept(
    port: int, tmp_path: Path
) -> None:
    """``--page``: "=> kept" only for an item that reached the end of the crawl; one a
    project's spider middleware drops after the page pass let it through is "not kept by
    a component of the crawl", as the crawl keeps none of it."""
    base = f"http://127.0.0.1:{port}"
    project = make_project(tmp_path, 'SPIDER_MIDDLEWARES = {"proj.dropping.DropItems": 100}\n')
    (project / "proj" / "dropping.py").write_text(DROPPING_MIDDLEWARE)
    with project_settings(project):
        status, output = await robots_async("--page", f"{base}/plain", user_agent=None)
    assert "=> not kept by a component of the crawl" in output, output
    assert status == 0, output
