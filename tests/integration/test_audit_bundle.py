"""A site's bundle of a real crawl's trail and of a re-check's, checked by a publisher's
verifier that loads no Scrapy (a child process, its modules looked at): the crawl of two
local sites, its tree heads signed (``REP_AUDIT_SIGNING_KEY``) and kept in a head file
(``REP_AUDIT_HEAD_FILE``), run twice into one trail; ``audit verify --key --head`` is
clean, the bundle of one site holds nothing of the other, checks clean with the
operator's key, and the second run's bundle is consistent with the first's
(docs/publishers.md)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest_twisted
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.support.recheck import recheck_trail
from tests.support.robotsite import ItemSpider, Sites, crawl, html_page, robots, rsl_reply
from tests.support.signatures import operator_key, public_key_file
from tests.support.tools import audit_tool

#: A child that runs ``audit check-bundle ARGV`` and exits 9 if it loaded Scrapy, Twisted
#: or the add-on.
CHILD = """
import sys
from rep_audit.cli import main
code = main(sys.argv[1:], sys.stdout)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("scrapy", "twisted", "scrapy_rep"))
print("loaded:", loaded)
sys.exit(9 if loaded else code)
"""


def checked_alone(*argv: str) -> tuple[int, str]:
    """``check-bundle ARGV`` as a publisher runs it, in a process of its own."""
    done = subprocess.run([sys.executable, "-c", CHILD, "check-bundle", *argv],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    return done.returncode, done.stdout + done.stderr


@pytest_twisted.ensureDeferred
async def test_a_crawls_bundle_checks_alone_with_the_operators_key(tmp_path: Path) -> None:
    key = operator_key(tmp_path / "key.pem")
    public = tmp_path / "public.pem"
    public.write_bytes(
        key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    sites = Sites()
    lic = sites.add("lic")
    lic.script("/permit.xml", rsl_reply('<permits type="usage">all</permits>'))
    license_url = sites.url("lic", "/permit.xml")
    sites.add("a").script("/robots.txt", robots(
        f"User-agent: *\nDisallow: /private\nLicense: {license_url}\n"))  # fmt: skip
    sites.add("b").script("/robots.txt", robots("User-agent: *\nDisallow: /b-secret\n"))
    trail, heads = tmp_path / "trail.jsonl", tmp_path / "kept" / "heads.jsonl"
    heads.parent.mkdir()
    settings = {"REP_AUDIT_FILE": str(trail), "REP_PURPOSE": "ai-train",
                "REP_AUDIT_SIGNING_KEY": str(tmp_path / "key.pem"),
                "REP_AUDIT_HEAD_FILE": str(heads)}  # fmt: skip
    pages = [sites.url("a", "/p"), sites.url("a", "/private/x"), sites.url("b", "/b-page"),
             sites.url("b", "/b-secret/1")]  # fmt: skip
    first = tmp_path / "first.json"
    try:
        await crawl(pages, settings)
        assert (
            audit_tool("bundle", str(trail), "--site", sites.bases["a"], "--out", str(first))[0]
            == 0
        )
        await crawl(pages[:2], settings)
    finally:
        await sites.close()
    status, out = audit_tool("verify", str(trail), "--key", str(public), "--head", str(heads))
    assert status == 0 and "checked with --key (2 head(s) in all)" in out, out
    bundle = tmp_path / "a.json"
    assert (
        audit_tool("bundle", str(trail), "--site", sites.bases["a"], "--out", str(bundle))[0] == 0
    )
    text = bundle.read_text()
    assert sites.bases["b"] not in text and "b-secret" not in text and "b-page" not in text
    assert license_url in text  # the license its robots.txt names: its own evidence
    status, out = checked_alone(str(bundle), "--key", str(public), "--since", str(first))
    assert status == 0, out
    told = out.splitlines()
    assert sum(line.startswith("line ") for line in told) == 4, out  # /p, /private/x twice
    refused = [line for line in told if "/private/x" in line]
    assert len(refused) == 2 and all("refused by robots.txt" in line for line in refused)
    assert all("robots.txt line 2 'Disallow: /private'" in line for line in refused), refused
    assert "loaded: []" in out
    assert told[-2].startswith(f"{bundle}: clean: 4 record(s) of {sites.bases['a']}, proved ")


def test_a_recheck_bundle_checks_alone(tmp_path: Path) -> None:
    key = operator_key(tmp_path / "key.pem")
    public = tmp_path / "public.json"
    raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    jwk = {"kty": "OKP", "crv": "Ed25519", "x": base64.urlsafe_b64encode(raw).decode().rstrip("=")}
    public.write_text(json.dumps({"keys": [jwk]}))  # the JWK Set the operator publishes
    trail = recheck_trail(tmp_path, None, f"REP_AUDIT_SIGNING_KEY={tmp_path / 'key.pem'}")
    bundle = tmp_path / "b.json"
    assert (
        audit_tool("bundle", str(trail), "--site", "http://site.test", "--out", str(bundle))[0] == 0
    )
    status, out = checked_alone(str(bundle), "--key", str(public))
    assert status == 0 and "loaded: []" in out, out
    assert "3 record(s) of http://site.test" in out and "checked with --key" in out


def public_key(tmp_path: Path) -> Path:
    """The operator's key made in ``tmp_path/key.pem``; its public key's PEM file."""
    key = operator_key(tmp_path / "key.pem")
    public = tmp_path / "public.pem"
    public.write_bytes(
        key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    )
    return public


@pytest_twisted.ensureDeferred
async def test_check_bundle_names_the_line_that_decided_each_purpose(tmp_path: Path) -> None:
    """An ai-train crawl of a site whose robots.txt says ``Content-Usage: train-ai=n``
    (and yes under /open): check-bundle said ``refused by purpose …; robots.txt: no rule
    matches`` and no ai-train answer of a fetched page. Each record now names, for each
    purpose the crawl declared, its answer and the line that decided it, in the words of
    ``audit show``: the refused page's Content-Usage line, a fetched page's, and a fetched
    page's own header; and a page whose item its ``X-Robots-Tag: noindex`` dropped says
    so (it said ``fetched, item dropped`` and nothing of why, as ``show`` does)."""
    public = public_key(tmp_path)
    sites = Sites()
    site = sites.add("a")
    site.script("/robots.txt", robots(
        "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /open train-ai=y\n"))  # fmt: skip
    site.script("/open/1", html_page())
    site.script("/open/said", html_page(**{"Content-Usage": "train-ai=n"}))
    site.script("/open/hidden", html_page(**{"X-Robots-Tag": "noindex"}))
    trail, bundle = tmp_path / "trail.jsonl", tmp_path / "a.json"
    urls = [sites.url("a", path) for path in ("/p", "/open/1", "/open/said", "/open/hidden")]
    try:
        await crawl(urls, {"REP_AUDIT_FILE": str(trail), "REP_PURPOSE": "ai-train",
                           "REP_AUDIT_SIGNING_KEY": str(tmp_path / "key.pem")},
                    ItemSpider)  # fmt: skip
    finally:
        await sites.close()
    assert audit_tool("bundle", str(trail), "--site", urls[0], "--out", str(bundle))[0] == 0
    status, out = checked_alone(str(bundle), "--key", str(public))
    assert status == 0, out
    told = {line.split(": ")[1]: line for line in out.splitlines() if line.startswith("line ")}
    refused, fetched, said, hidden = (told[url] for url in urls)
    assert " refused by purpose, recorded " in refused
    line_2 = "ai-train: denied by robots.txt line 2: Content-Usage: train-ai=n"
    assert refused.endswith(f"; robots.txt: no rule matches; {line_2}"), refused
    assert ": fetched, sent " in fetched and fetched.endswith(
        "; ai-train: allowed by robots.txt line 3: Content-Usage: /open train-ai=y"
    ), fetched
    assert said.endswith("; ai-train: denied by header Content-Usage: train-ai=n"), said
    assert ": fetched, item dropped (noindex by header X-Robots-Tag: noindex), sent " in hidden
    assert ": fetched, item dropped, sent " in said  # its answer for ai-train says why
    assert f"  {line_2}\n" in audit_tool("show", str(trail), urls[0])[1]  # the one wording


@pytest_twisted.ensureDeferred
async def test_a_crawl_steerable_from_outside_says_so_in_its_bundle_and_report(
    tmp_path: Path,
) -> None:
    """A crawl with Scrapy 2.19's RemoteControl on (its default, as the README's project
    runs) recorded it in its run header only: check-bundle said ``clean`` and the report
    nothing. The header records the telnet console's setting too; check-bundle and the
    report's header name the run and the setting; a run with both off says nothing."""
    public = public_key(tmp_path)
    sites = Sites()
    sites.add("a").script("/robots.txt", robots("User-agent: *\nDisallow: /private\n"))
    url = sites.url("a", "/x")
    signing = {"REP_AUDIT_SIGNING_KEY": str(tmp_path / "key.pem")}
    on = {"REMOTE_CONTROL_ENABLED": True, "REMOTE_CONTROL_JOBS_DIR": str(tmp_path / "jobs")}
    try:
        await crawl([url], {"REP_AUDIT_FILE": str(tmp_path / "on.jsonl"), **signing, **on})
        await crawl([url], {"REP_AUDIT_FILE": str(tmp_path / "off.jsonl"), **signing})
    finally:
        await sites.close()
    for name, steered in (("on", True), ("off", False)):
        trail, bundle = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.json"
        header = json.loads(trail.read_text().splitlines()[0])
        assert header["settings"]["TELNETCONSOLE_ENABLED"] is False
        assert audit_tool("bundle", str(trail), "--site", url, "--out", str(bundle))[0] == 0
        status, out = checked_alone(str(bundle), "--key", str(public))
        said = (f"line 1: run {header['run'][:8]}: REMOTE_CONTROL_ENABLED on: a local client "
                "may have run code inside the crawl as it ran (Scrapy's RemoteControl, its "
                "telnet console), so its records cannot show that nobody changed what it "
                "obeyed or recorded")  # fmt: skip
        assert status == 0 and (said in out.splitlines()) is steered, out
        assert out.splitlines()[-2].endswith("; 1 run(s) could be steered from outside") is steered
        html = tmp_path / f"{name}.html"
        assert audit_tool("report", str(trail), "--html", str(html))[0] == 0
        page = html.read_text()
        assert (f'<p class="bad steering">run {header["run"][:8]}: REMOTE_CONTROL_ENABLED on: '
                in page) is steered  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_a_request_whose_host_addressed_another_site_is_in_that_sites_bundle(
    tmp_path: Path,
) -> None:
    """``http://127.0.0.1:P/open`` sent with ``Host: localhost:P`` reached localhost (its
    server read the header, its robots.txt decided it): it is in localhost's bundle, said
    to be chained under its URL's site, and in 127.0.0.1's; both check clean."""
    from tests.support.virtualhosts import HostHeaderSpider, serving_two_sites

    operator_key(tmp_path / "key.pem")
    _, port, number = serving_two_sites("User-agent: *\nAllow: /\n", "User-agent: *\nAllow: /\n")
    ip, name = f"http://127.0.0.1:{number}", f"localhost:{number}"
    trail = tmp_path / "trail.jsonl"
    HostHeaderSpider.sent_to = ((f"{ip}/open", name), (f"{ip}/own", ""))
    settings = {"REP_AUDIT_FILE": str(trail), "REP_AUDIT_SIGNING_KEY": str(tmp_path / "key.pem")}
    try:
        await crawl([], settings, HostHeaderSpider)
    finally:
        await port.stopListening()
    for site, told in ((f"http://localhost:{number}", [f"{ip}/open"]),
                       (ip, [f"{ip}/open", f"{ip}/own"])):  # fmt: skip
        bundle = tmp_path / "b.json"
        assert audit_tool("bundle", str(trail), "--site", site, "--out", str(bundle))[0] == 0
        status, out = checked_alone(
            str(bundle), "--key", str(public_key_file(tmp_path / "key.pem"))
        )
        assert status == 0, out
        lines = out.splitlines()
        assert sorted(line.split(": ")[1] for line in lines if line.startswith("line ")) == told
        addressed = [line for line in lines if "sent with a Host addressing" in line]
        assert len(addressed) == (site != ip), out
