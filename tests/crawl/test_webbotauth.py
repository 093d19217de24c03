"""scrapy_rep/crawl/webbotauth.py: the three headers of a signed request, each checked by a
verifier that shares nothing with the signer (tests/support/signatures.py: pyauth's RFC
9421 verifier), for the authorities and paths RFC 9421 §2.2.3 and §2.2.6 normalize; the
real crawls: tests/integration/test_web_bot_auth.py."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from http_message_signatures.exceptions import InvalidSignature
from scrapy import Request

from rep_engine import keys
from rep_engine.settings import RepConfig
from rep_engine.settings.readers import RepSettingError
from scrapy_rep.crawl import webbotauth
from scrapy_rep.crawl.webbotauth import Signer, signer_of
from tests.support.signatures import AGENT, operator_key, signing, verified

#: When the tests' requests are sent: an hour ago (a verifier refuses a ``created`` to come),
#: their signatures valid for a day (``signing``'s lifetime).
SENT = int(time.time()) - 3600


@pytest.fixture
def signer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Signer:
    monkeypatch.setattr(webbotauth, "clock", lambda: SENT + 0.9)
    operator_key(tmp_path / "key.pem")
    made = signer_of(RepConfig.from_settings(signing(tmp_path / "key.pem")))
    assert made is not None
    return made


def sent_lines(request: Request, host: str) -> list[tuple[str, str]]:
    """The header lines of ``request`` as it goes out, ``Host`` first (as the download
    handler adds it)."""
    lines = [("Host", host)] if b"Host" not in request.headers else []
    for name, values in request.headers.items():
        lines += [(name.decode(), value.decode("latin-1")) for value in values]
    return lines


@pytest.mark.parametrize(
    ("url", "host", "target"),
    [
        ("http://Example.COM/a/b?q=1", "example.com", "/a/b?q=1"),
        ("http://example.com:80/x", "example.com", "/x"),  # the scheme's port left out
        ("https://example.com:443/x", "example.com", "/x"),
        ("https://example.com:8443/x", "example.com:8443", "/x"),
        ("http://[::1]:8080/x", "[::1]:8080", "/x"),
        ("http://user:pw@example.com/x", "example.com", "/x"),  # no userinfo
        ("http://example.com/a;p=1/%7Eb", "example.com", "/a;p=1/%7Eb"),  # as encoded
        ("http://example.com", "example.com", "/"),  # the empty path is /
    ],
)
def test_a_signed_request_verifies_for_its_own_method_authority_and_path(
    signer: Signer, url: str, host: str, target: str
) -> None:
    request = Request(url)
    signer.sign(request)
    public = {signer.keyid: signer.key.public_key()}
    result = verified("GET", target, sent_lines(request, host), public)
    assert result["components"]['"@authority"'] == host
    assert result["components"]['"@path"'] == target.split("?")[0]
    assert result["parameters"] == {
        "created": SENT,
        "expires": SENT + 86_400,
        "keyid": keys.thumbprint(signer.key.public_key()),
        "alg": "ed25519",
        "tag": "web-bot-auth",
    }
    with pytest.raises(InvalidSignature):  # another path: not this request's
        verified("GET", "/elsewhere", sent_lines(request, host), public)


def test_the_headers_are_the_drafts(signer: Signer) -> None:
    """draft-ietf-webbotauth-httpsig-protocol-01, "Sending a Request": the dictionary form of
    Signature-Agent, its member covered under the signature's label."""
    request = Request("https://example.com/p", method="POST", body=b"x")
    signer.sign(request)
    assert request.headers[b"Signature-Agent"] == f'sig1="{AGENT}"'.encode()
    assert request.headers[b"Signature-Input"].decode() == (
        'sig1=("@method" "@authority" "@path" "signature-agent";key="sig1")'
        f';created={SENT};expires={SENT + 86_400};keyid="{signer.keyid}";alg="ed25519"'
        ';tag="web-bot-auth"'
    )
    assert request.headers[b"Signature"].startswith(b"sig1=:")
    result = verified("POST", "/p", sent_lines(request, "example.com"),
                      {signer.keyid: signer.key.public_key()})  # fmt: skip
    assert result["components"]['"@method"'] == "POST"


def test_a_host_header_is_the_authority_signed(signer: Signer) -> None:
    """A component that set ``Host`` sends the request to that authority (the handler keeps
    it): the signature covers it, lowercase, as the site receives it."""
    request = Request("http://example.com/x", headers={"Host": "Other.Example:8080"})
    signer.sign(request)
    result = verified("GET", "/x", sent_lines(request, ""), {signer.keyid: signer.key.public_key()})
    assert result["components"]['"@authority"'] == "other.example:8080"


def test_a_request_signed_again_carries_only_its_new_signature(
    signer: Signer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retry or a redirect is a copy carrying the first send's headers: signed again, it
    carries the new signature alone."""
    request = Request("http://example.com/x")
    signer.sign(request)
    retry = request.replace(url="http://example.com/y")
    monkeypatch.setattr(webbotauth, "clock", lambda: SENT + 7)
    signer.sign(retry)
    for name in (b"Signature", b"Signature-Input", b"Signature-Agent"):
        assert len(retry.headers.getlist(name)) == 1
    result = verified("GET", "/y", sent_lines(retry, "example.com"),
                      {signer.keyid: signer.key.public_key()})  # fmt: skip
    assert result["parameters"]["created"] == SENT + 7


def test_no_key_no_signer_and_a_bad_key_names_the_setting(tmp_path: Path) -> None:
    assert signer_of(RepConfig.defaults()) is None
    (tmp_path / "bad.pem").write_text("not a key")
    config = RepConfig.from_settings(signing(tmp_path / "bad.pem"))
    with pytest.raises(RepSettingError, match=r"^REP_WEB_BOT_AUTH_KEY: .*bad\.pem: no Ed25519"):
        signer_of(config)


def test_no_signature_agent_member_carries_a_parameter(signer: Signer) -> None:
    """draft-ietf-webbotauth-httpsig-protocol-01, "Signature-Agent": "Dictionary members MUST
    NOT carry parameters" (a verifier ignores one that does): read as a Structured Field
    Dictionary, each member is a String of an https URL and nothing more."""
    from http_sfv import Dictionary

    request = Request("https://example.com/p")
    signer.sign(request)
    parsed = Dictionary()
    parsed.parse(request.headers[b"Signature-Agent"])
    assert list(parsed) == ["sig1"]
    for member in parsed.values():
        assert (member.value, dict(member.params)) == (AGENT, {})


def test_an_http_request_goes_unsigned_unless_http_is_signed(tmp_path: Path) -> None:
    """Only https requests are signed by default (draft §6.1); a hop from https to http
    drops the signature it carried. ``REP_WEB_BOT_AUTH_HTTP`` signs http too."""
    operator_key(tmp_path / "key.pem")
    made = signer_of(RepConfig.from_settings(signing(tmp_path / "key.pem", http=False)))
    assert made is not None
    secure = Request("https://example.com/x")
    made.sign(secure)
    hop = secure.replace(url="http://example.com/y")
    for request in (hop, Request("http://example.com/x"), Request("ftp://example.com/x")):
        made.sign(request)
        assert not {b"Signature", b"Signature-Input", b"Signature-Agent"} & set(request.headers)
    assert b"Signature" in secure.headers
    both = signer_of(RepConfig.from_settings(signing(tmp_path / "key.pem")))
    assert both is not None
    plain = Request("http://example.com/x")
    both.sign(plain)
    assert b"Signature" in plain.headers
