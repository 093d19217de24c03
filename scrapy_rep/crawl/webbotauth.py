"""Web Bot Auth: every ``https`` request the crawl sends signed, so that a site can tell the
crawl's requests from anyone's who copies its User-Agent
(draft-ietf-webbotauth-httpsig-protocol-01, on HTTP Message Signatures, RFC 9421;
docs/keys.md); an ``http`` one only with ``REP_WEB_BOT_AUTH_HTTP`` (§6.1: a signature sent
in clear can be replayed by whoever sees it until it expires). A published test key
(RFC 9421's) stops the crawl at start unless ``REP_ALLOW_TEST_KEY`` names it (§6.8).

With ``REP_WEB_BOT_AUTH_KEY`` (the operator's Ed25519 private key, read by
:mod:`rep_engine.keys`) and ``REP_WEB_BOT_AUTH_AGENT`` (the https URL of its key
directory), each request gets three headers as it leaves its download slot for the
network: after every downloader middleware has changed it and after the slot's delay
(``DOWNLOAD_DELAY``, ``Crawl-delay``, AutoThrottle), so that ``created`` is its send time
and a long wait in the slot never sends an expired signature. A request Scrapy's HTTP
cache answers is not sent, and not signed; a retry and a redirect are requests of their
own, each signed as it leaves. robots.txt, tdmrep.json and RSL licenses are downloaded
through the same downloader (:mod:`scrapy_rep.crawl.documents.engine_fetch`), and signed
the same way::

    Signature-Agent: sig1="https://crawler.example/.well-known/http-message-signatures-directory"
    Signature-Input: sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");
        created=1767225600;expires=1767225900;keyid="…";alg="ed25519";tag="web-bot-auth"
    Signature: sig1=:…:

The covered components are the draft's ("Generating HTTP Message Signature": ``@authority``
and the ``Signature-Agent`` member of the label, "Signature-Agent") and the two it says an
agent SHOULD add to narrow the signature, ``@method`` and ``@path``: a signature over the
authority alone could be replayed against any path of the site until it expires
(docs/decisions.md, 'Web Bot Auth signs the method and path too'). The signature base is
RFC 9421 §2.5's, written here: its values are the request's as Scrapy's download handlers
send it (§2.2.1 the method; §2.2.3 the authority, the ``Host`` header when a component set
one, else the URL's host and port, lowercase, without the scheme's default port; §2.2.6 the
path, ``/`` when empty, as encoded; §2.1.2 the dictionary member, serialized).

Signing changes no decision: robots.txt groups are matched by the User-Agent's product
token as before, and nothing here reads or changes the verdicts. A key that cannot be read
stops the crawl at start naming the setting (:func:`signer_of`); a request is never sent
unsigned: one whose signature cannot be made fails with the error, and a crawl whose
downloader cannot be reached where it sends signs each request last in the downloader
middlewares' chain instead (its ``created`` then the time it entered the downloader),
or, where not even that chain can be reached, is closed before it sends anything.
"""

from __future__ import annotations

import base64
import logging
import time
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from http_sfv.item import Item
from scrapy import signals
from scrapy.exceptions import NotConfigured

from rep_engine import keys
from rep_engine.settings.readers import RepSettingError
from scrapy_rep.crawl.config import PerCrawler, config_of
from scrapy_rep.crawl.internals import (
    append_downloader_method,
    close_spider,
    running_engine,
    send_through,
)
from scrapy_rep.crawl.startup import stop_at_start

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from rep_engine.settings import RepConfig

logger = logging.getLogger(__name__)

#: The signature's label, which keys its ``Signature-Agent`` member too (the draft's).
LABEL: Final = "sig1"
#: ``tag`` (draft: "MUST be web-bot-auth"); ``alg`` (RFC 9421 §6.2.2).
TAG: Final = "web-bot-auth"
ALG: Final = "ed25519"
#: The covered components (RFC 9421 §2.3's inner list, without its parameters).
COVERED: Final = f'("@method" "@authority" "@path" "signature-agent";key="{LABEL}")'
#: The ports an authority leaves out (RFC 9110 §4.2.3, as RFC 9421 §2.2.3 normalizes it).
DEFAULT_PORTS: Final = {"http": "80", "https": "443"}
#: What a crawl closed for want of a place to sign its requests says.
CLOSE_REASON: Final = "web_bot_auth_unavailable"

#: The wall clock ``created`` is read from (a test may set another).
clock = time.time


@dataclass(frozen=True)
class Signer:
    """The operator's key and ``Signature-Agent``: signs one request after another."""

    key: Ed25519PrivateKey
    #: The ``Signature-Agent`` URL (``REP_WEB_BOT_AUTH_AGENT``).
    agent: str
    #: ``keyid``: the key's JWK thumbprint (RFC 7638), as the draft requires.
    keyid: str
    #: ``expires`` minus ``created``, in seconds (``REP_WEB_BOT_AUTH_LIFETIME``).
    lifetime: int
    #: ``http://`` requests signed too (``REP_WEB_BOT_AUTH_HTTP``): else only ``https://``
    #: ones, the draft's §6.1 ("Use of TLS": a signature sent in clear can be replayed).
    http: bool = False

    @cached_property
    def agent_header(self) -> str:
        """The ``Signature-Agent`` value: a Dictionary of one String member (draft,
        "Signature-Agent": "Signers MUST send the dictionary form")."""
        return f"{LABEL}={self.agent_member}"

    @cached_property
    def agent_member(self) -> str:
        """The member's value as RFC 9421 §2.1.2 puts it in the signature base."""
        return str(Item(self.agent))

    def headers(self, method: str, authority: str, path: str, created: int) -> dict[str, str]:
        """The three headers of a request sent at ``created`` (RFC 9421 §3.1: the
        signature base of §2.5, signed, and its parameters; draft, "Sending a
        Request")."""
        params = (
            f"{COVERED};created={created};expires={created + self.lifetime}"
            f';keyid="{self.keyid}";alg="{ALG}";tag="{TAG}"'
        )
        base = (
            f'"@method": {method}\n"@authority": {authority}\n"@path": {path}\n'
            f'"signature-agent";key="{LABEL}": {self.agent_member}\n'
            f'"@signature-params": {params}'
        )
        signature = base64.b64encode(keys.sign(self.key, base.encode("ascii"))).decode()
        return {
            "Signature-Agent": self.agent_header,
            "Signature-Input": f"{LABEL}={params}",
            "Signature": f"{LABEL}=:{signature}:",
        }

    def sign(self, request: Request) -> None:
        """Set ``request``'s three headers for its send now (replacing any it carried: a
        retry's, a redirect's); a request of another scheme than ``https`` (``http`` too,
        with :attr:`http`) is sent without them."""
        parts = urlsplit(request.url)
        if parts.scheme.lower() not in ("https", "http" if self.http else "https"):
            for name in ("Signature-Agent", "Signature-Input", "Signature"):
                request.headers.pop(name, None)  # a hop from https: not sent in clear
            return
        host = request.headers.get(b"Host")
        if host:
            authority = host.decode("latin-1").strip().lower()
        else:
            authority = parts.netloc.rpartition("@")[2].lower()
        default = DEFAULT_PORTS.get(parts.scheme.lower())
        if default and authority.endswith(f":{default}"):
            authority = authority[: -len(default) - 1]
        signed = self.headers(request.method, authority, parts.path or "/", int(clock()))
        for name, value in signed.items():
            request.headers[name] = value

    def header_record(self) -> dict[str, str]:
        """What the trail's run header says of the signing (docs/audit-trail.md)."""
        return {"signature_agent": self.agent, "keyid": self.keyid, "tag": TAG}


def signer_of(config: RepConfig) -> Signer | None:
    """The crawl's signer (``None``: requests unsigned); a key that cannot be read or
    used raises :class:`RepSettingError` naming ``REP_WEB_BOT_AUTH_KEY`` and what is wrong
    (the file, or ``cryptography`` to install)."""
    if not config.web_bot_auth_key:
        return None
    try:
        key = keys.read_private_key(config.web_bot_auth_key, config.allow_test_key)
    except keys.SigningKeyError as error:
        raise RepSettingError(f"REP_WEB_BOT_AUTH_KEY: {error}") from None
    keyid = keys.thumbprint(key.public_key())
    return Signer(key, config.web_bot_auth_agent, keyid, config.web_bot_auth_lifetime,
                  config.web_bot_auth_http)  # fmt: skip


#: The signer of each crawl that signs its requests.
SIGNERS: PerCrawler[Signer] = PerCrawler("web_bot_auth")


def signed_by(crawler: Crawler) -> dict[str, str] | None:
    """What the trail's run header says of ``crawler``'s signing: its ``Signature-Agent``,
    key id and tag, or ``None`` when its requests are not signed."""
    signer = SIGNERS.get(crawler)
    return signer.header_record() if signer is not None else None


def close_unsigned(crawler: Crawler, config: RepConfig, spider: Any = None) -> None:
    """A crawl given ``REP_WEB_BOT_AUTH_KEY`` whose requests nothing signs (its components
    listed by hand without :class:`WebBotAuthMiddleware`, or that middleware switched
    off) is closed at its start, an ERROR saying why: its requests are never sent
    unsigned. Called by the robots.txt middleware as the spider opens."""
    if not config.web_bot_auth_key or SIGNERS.get(crawler) is not None:
        return
    logger.error(
        "scrapy_rep: REP_WEB_BOT_AUTH_KEY is set but nothing signs the requests: list "
        "scrapy_rep.WebBotAuthMiddleware in DOWNLOADER_MIDDLEWARES (the add-on does), or "
        "remove the key; the crawl is closed rather than send them unsigned",
        extra={"spider": spider},
    )
    close_spider(crawler, CLOSE_REASON)


class WebBotAuthMiddleware:
    """Signs every request the crawl sends (a downloader middleware in name: it signs
    where the downloader sends, put there at the spider's start). Off
    (``NotConfigured``) without ``REP_WEB_BOT_AUTH_KEY``."""

    def __init__(self, crawler: Crawler, signer: Signer) -> None:
        self.crawler = crawler
        self.signer = signer
        self._send: Any = None
        SIGNERS[crawler] = signer
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        try:
            signer = signer_of(config_of(crawler))
        except RepSettingError as error:
            stop_at_start(error)
        if signer is None:
            raise NotConfigured
        return cls(crawler, signer)

    def sending(self, request: Request, *rest: Any) -> Any:
        """``request`` leaves its download slot now: signed, then handed to Scrapy's
        download handler (``rest``: its other arguments)."""
        self.signer.sign(request)
        return self._send(request, *rest)

    def sign_last(self, request: Request, spider: Any = None) -> None:
        """:meth:`Signer.sign`, last in the downloader middlewares' chain: where the
        downloader cannot be reached where it sends."""
        self.signer.sign(request)

    def _spider_opened(self, spider: Any = None) -> None:
        engine = running_engine(self.crawler)
        self._send = send_through(engine, self.sending)
        if self._send is not None:
            return
        if append_downloader_method(engine, "process_request", self.sign_last):
            logger.warning(
                "scrapy_rep: this Scrapy's downloader cannot be reached where it sends a "
                "request: requests are signed as they enter the downloader, and a request "
                "that waits in its download slot longer than REP_WEB_BOT_AUTH_LIFETIME "
                "(%d s) is sent with an expired signature",
                self.signer.lifetime,
                extra={"spider": spider},
            )
            return
        logger.error(
            "scrapy_rep: this Scrapy's downloader cannot be reached to sign requests "
            "(REP_WEB_BOT_AUTH_KEY): the crawl is closed rather than send them unsigned",
            extra={"spider": spider},
        )
        close_spider(self.crawler, CLOSE_REASON)
