"""The facts of a Scrapy request that its verdict is reached on
(:class:`rep_engine.verdict.decide.RequestFacts`): its URL and origin, the crawler names it is
held to, and how much of robots.txt it obeys.

- **The crawler names it is held to** (SPEC §1; docs/decisions.md, 'Every name a request
  can be held to'): the crawler's declared name (``ROBOTSTXT_USER_AGENT`` when set, else
  the name in the project's ``USER_AGENT``), then the name in the ``User-Agent`` it is
  sent with when that is another (before Scrapy's ``UserAgentMiddleware`` has set it, the
  project's ``USER_AGENT``): :func:`rep_engine.robotstxt.useragent.held_names`. In a
  Mozilla-style string the name is the one after ``compatible;``, as Google's crawlers
  present themselves; a browser's string names no crawler (the ``*`` group): a project
  ``USER_AGENT`` of that kind is said once at start (WARNING).
- **What is obeyed** (docs/decisions.md, 'Not obeying robots.txt keeps the purpose's
  opt-outs'): ``ROBOTSTXT_OBEY = False`` and ``dont_obey_robotstxt`` are Scrapy's switches
  for robots.txt's Allow/Disallow and keep that meaning; a purpose set in ``REP_PURPOSE``
  is another promise, whose opt-outs are honoured whatever they say, and the crawl says
  so once. Without ``REP_PURPOSE`` in the settings they turn everything off, as in Scrapy.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final
from unicodedata import normalize

from scrapy.exceptions import NotConfigured
from scrapy.settings import SETTINGS_PRIORITIES

from rep_engine.robotstxt.useragent import held_names, is_browser
from rep_engine.urls.origins import Origin, OriginMemo, origin_of
from rep_engine.verdict.decide import Obey, RequestFacts
from scrapy_rep.crawl.meta import DONT_OBEY_ROBOTSTXT, ROBOTS_REQUEST

if TYPE_CHECKING:
    from scrapy import Request

    from rep_engine.settings import RepConfig

logger = logging.getLogger(__name__)

#: Said once per crawl, the first time a request carries ``dont_obey_robotstxt``.
_DONT_OBEY_NOTE: Final = (
    "scrapy_rep: %s has dont_obey_robotstxt: robots.txt Allow/Disallow is not obeyed for "
    "it (nor for other such requests), but the opt-outs for REP_PURPOSE (%s) still are"
)
#: Distinct User-Agent strings whose crawler names are remembered (a rotator's few).
_MAX_NAMES: Final = 1024


def purpose_is_set(settings: Any) -> bool:
    """Whether ``REP_PURPOSE`` is in the project's (or the spider's, or the command
    line's) settings: above the priority at which the add-on writes its defaults."""
    priority = settings.getpriority("REP_PURPOSE")
    return priority is not None and priority > SETTINGS_PRIORITIES["addon"]


class FactsReader:
    """Reads the facts of each request of one crawl."""

    def __init__(self, settings: Any, config: RepConfig) -> None:
        self.obey_robots = settings.getbool("ROBOTSTXT_OBEY")
        #: ``REP_PURPOSE`` is in the project's (or the spider's, or the command line's)
        #: settings.
        self.purpose_set = purpose_is_set(settings)
        self._purposes = ", ".join(config.purpose)
        self._noted = False
        if not self.obey_robots and not self.purpose_set:
            raise NotConfigured("ROBOTSTXT_OBEY is False")
        if not self.obey_robots:
            logger.info(
                "scrapy_rep: ROBOTSTXT_OBEY is False: robots.txt Allow/Disallow and "
                "Crawl-delay are not obeyed, but the opt-outs for REP_PURPOSE (%s) still "
                "are: robots.txt Content-Usage and Content-Signal, tdmrep.json, the groups "
                "of REP_PURPOSE_AGENTS and the pages' own signals",
                self._purposes,
            )
        self._obey_default = Obey.ALL if self.obey_robots else Obey.USAGE
        self._names_held(settings)

    def _names_held(self, settings: Any) -> None:
        """The crawler names requests are held to (see the module docstring), and the
        memos of the names and sites of each request; a project ``USER_AGENT`` that is a
        browser's (no crawler name) is said at WARNING, one that does not name the
        crawler of ``ROBOTSTXT_USER_AGENT`` at INFO."""
        fixed = str(settings.get("ROBOTSTXT_USER_AGENT") or "")
        project_agent = str(settings.get("USER_AGENT") or "")
        #: The crawler's declared User-Agent: ``ROBOTSTXT_USER_AGENT``, else ``USER_AGENT``.
        self.declared = fixed or project_agent
        #: The names a request sent with no ``User-Agent`` (or an empty one) is held to:
        #: the declared name and ``*``'s (a site reads such a request under ``*``).
        self.nameless = held_names(self.declared, None)
        #: The names a request is held to before its ``User-Agent`` is set: it is sent with
        #: the project's ``USER_AGENT`` (Scrapy's ``UserAgentMiddleware``, after ours), or
        #: with none when that is empty.
        self.default_names = held_names(self.declared, project_agent or None)
        #: The names held to for each ``User-Agent`` header seen (a rotator's few): by its
        #: value, or its values when it has several (each is sent).
        self.names: dict[bytes | tuple[bytes, ...], tuple[str, ...]] = {}
        self.origins = OriginMemo()
        #: The site each (URL origin, ``Host`` header) pair addresses (:meth:`addressed`).
        self._hosts: dict[tuple[Origin, bytes], Origin] = {}
        if not fixed and is_browser(project_agent):
            logger.warning(
                "scrapy_rep: USER_AGENT %r is a browser's, with no crawler's name after "
                "'compatible;': robots.txt groups, robots meta tags and X-Robots-Tag are "
                "read for 'mozilla'. Write USER_AGENT as 'Mozilla/5.0 (compatible; "
                "yourbot/1.0; +https://…)' (ROBOTSTXT_USER_AGENT adds the crawler's own "
                "groups, but requests sent as a browser are held to the '*' group too)",
                project_agent,
            )
        elif len(self.default_names) > 1:
            logger.info(
                "scrapy_rep: requests are sent as %r (USER_AGENT), which does not name the "
                "crawler of ROBOTSTXT_USER_AGENT %r: each request is held to the "
                "robots.txt groups and page directives of both names (%s)",
                project_agent,
                fixed,
                ", ".join(self.default_names),
            )

    def obey(self, request: Request) -> Obey:
        """How much of robots.txt decides ``request``."""
        if not request.meta.get(DONT_OBEY_ROBOTSTXT):
            return Obey.ALL if self.obey_robots else Obey.USAGE
        if not self.purpose_set or ROBOTS_REQUEST in request.meta:
            return Obey.NOTHING  # Scrapy's meaning; and our own document requests
        if not self._noted:
            self._noted = True
            logger.info(_DONT_OBEY_NOTE, request, self._purposes)
        return Obey.USAGE

    def held_to(self, request: Request, sent: bool = False) -> tuple[str, ...]:
        """The crawler names ``request`` is held to as it is now (see the module
        docstring), remembered per ``User-Agent`` header: every value it carries (each is
        sent), read as UTF-8 as Scrapy writes a text header (else as Latin-1). Without
        one, those of the project's ``USER_AGENT``, which Scrapy's UserAgentMiddleware
        (after ours) sets; ``sent``: the request is as sent (the check as sent, after
        every middleware), so it goes without one: :attr:`nameless`."""
        headers = request.headers
        values = headers.getlist(b"User-Agent") if headers else None
        if not values:  # usual: Scrapy's UserAgentMiddleware runs after ours
            return self.nameless if sent else self.default_names
        key = values[0] if len(values) == 1 else tuple(values)
        names = self.names.get(key)
        if names is None:
            if len(self.names) >= _MAX_NAMES:
                self.names.clear()
            declared = self.declared
            every = [held_names(declared, decoded(value) or None) for value in values]
            names = every[0] if len(every) == 1 else tuple(dict.fromkeys(sum(every, ())))
            self.names[key] = names
        return names

    def of(self, request: Request, sent: bool = False) -> RequestFacts:
        """The facts of ``request`` as it is now (:meth:`obey`, :meth:`held_to` and the
        origin, inline: the hot path, twice per request); ``sent``: as sent
        (:meth:`held_to`)."""
        url = request.url
        meta = request.meta
        if not meta.get(DONT_OBEY_ROBOTSTXT):
            obey = self._obey_default
        else:
            obey = self.obey(request)
            if obey is Obey.NOTHING:
                names = self.default_names
                return RequestFacts(url, None, names[0], obey, names)
        headers = request.headers
        values = headers.getlist(b"User-Agent") if headers else None
        if not values:
            names = self.nameless if sent else self.default_names
        else:
            found = self.names.get(values[0] if len(values) == 1 else tuple(values))
            names = found if found is not None else self.held_to(request)
        origin = self.origins.get(url)
        if headers and origin is not None and (hosts := headers.getlist(b"Host")):
            site = self.addressed(request, origin, hosts[-1])
            if site != origin:  # both decide it: the site addressed, and its URL's server
                return RequestFacts(url, site, names[0], obey, names, origin)
        return RequestFacts(url, origin, names[0], obey, names)

    def addressed(self, request: Request, origin: Origin, host: bytes) -> Origin:
        """The site a request sent with ``Host: host`` addresses (SPEC §3: robots.txt is
        the site's): its URL's ``origin`` unless the header names another host or port,
        which a server reads instead (a spider pinning an address: ``http://a.test/x``
        sent with ``Host: b.test`` is b.test's page, and b.test's robots.txt decides it,
        asked at ``http://b.test/robots.txt``; a.test's, whose server answers it, decides
        it too: :attr:`~rep_engine.verdict.decide.RequestFacts.served_by`, docs/decisions.md 'A
        request sent with another Host is decided by both sites'). Said once per pair at
        WARNING; a header that names no host leaves the URL's. Remembered per pair."""
        key = (origin, host)
        found = self._hosts.get(key)
        if found is None:
            if len(self._hosts) >= _MAX_NAMES:
                self._hosts.clear()
            found = _named_site(origin, decoded(host).strip())
            self._hosts[key] = found
            if found != origin:
                logger.warning(
                    "scrapy_rep: %s is sent with the header 'Host: %s', another site than "
                    "its URL's (%s): it is decided by that site's robots.txt (%s) and by "
                    "its URL's (%s), whose server answers it, as are the other requests "
                    "sent to it so",
                    request, decoded(host), origin, found.robots_url, origin.robots_url,
                )  # fmt: skip
        return found

    def other_site(self, request: Request, origin: Origin) -> Origin | None:
        """The site ``request``'s ``Host`` header addresses (:meth:`addressed`) for a URL
        of ``origin`` (its own, or the one it was redirected from: a redirect's next
        request carries the header), when another than ``origin``; ``None``: no such
        header, or one naming ``origin`` itself."""
        headers = request.headers
        hosts = headers.getlist(b"Host") if headers else None
        site = self.addressed(request, origin, hosts[-1]) if hosts else origin
        return site if site != origin else None


def _named_site(origin: Origin, value: str) -> Origin:
    """The site a ``Host`` header's ``value`` names, for a request to ``origin``.

    A server may read it as a URL's authority (Starlette's ``request.url``, Node's ``new
    URL(path, "http://" + host)``), or as a name-based server does, the name before any
    ``:``, ``@`` or ``,`` (nginx); a looser reader takes the host after the last ``@``
    whatever comes before it (``a.test?@b.test``, ``[::1]@b.test``), and one that
    normalizes text reads a full-width ``＠`` or ``：`` (U+FF20, U+FF1A) as ``@`` or
    ``:``. When every reading names one host, it is the site, at the value's port. When
    they differ, the site is the first of them that is not the URL's, another host
    before the URL's host at another port (the name before ``:``, ``@``, ``,``, at the
    URL's port, where the connection goes; then the authority; then the host after
    ``@``; then the same of the normalized text), and the URL's own site decides the
    request too (:attr:`~rep_engine.verdict.decide.RequestFacts.served_by`): the reading
    that loses no "no", a header that names another site never leaves the URL's
    robots.txt alone to decide (docs/decisions.md, 'A request sent with another Host is
    decided by both sites'). A value no reading can name a site by (a port out of range,
    two ports) names the name before the colon at the URL's port; an empty one, the
    URL's own site. Only one other site is kept: a value that names two others besides
    the URL's (``b.test@c.test`` for ``a.test``) is decided by the first and the URL's."""
    if not value:
        return origin
    readings = _readings(origin, value)
    if not value.isascii():
        readings += _readings(origin, normalize("NFKC", value))
    others = [site for site in readings if site != origin]
    # Another host before the URL's own host at another port (``a.test?@b.test`` for
    # ``a.test:8080`` is read as ``a.test`` too, at port 80): b.test is kept.
    return next(
        (site for site in others if site.host != origin.host), others[0] if others else origin
    )


def _readings(origin: Origin, value: str) -> list[Origin]:
    """The sites ``value`` can name, in :func:`_named_site`'s order (``None`` dropped)."""
    read = origin_of(f"{origin.scheme}://{value}/")
    name = _served_name(value)
    named_host = origin_of(f"{origin.scheme}://{_bracketed(name)}/") if name else None
    port = f":{origin.port}" if origin.port is not None else ""
    named = origin_of(f"{origin.scheme}://{_bracketed(name)}{port}/") if name else None
    after = value.rpartition("@")[2] if "@" in value else ""
    last = (origin_of(f"{origin.scheme}://{after}/") or _named_site(origin, _served_name(after))
            if after else None)  # fmt: skip
    agree = read is not None and (named_host is None or read.host == named_host.host)
    readings = (read, last) if agree else (named, read, last)
    return [site for site in readings if site is not None]


def _served_name(value: str) -> str:
    """The host name a name-based server reads from a ``Host`` value."""
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else ""
    for stop in ":@,/ \t":
        value = value.split(stop, 1)[0]
    return value


def _bracketed(name: str) -> str:
    return f"[{name}]" if ":" in name else name


def decoded(header: bytes) -> str:
    """A header value as text: UTF-8, as Scrapy encodes a text header (``Jävlabot/1.0``
    stays ``Jävlabot``, the name robots.txt, read as UTF-8, gives its group), else
    Latin-1 (the bytes as sent)."""
    try:
        return header.decode("utf-8")
    except UnicodeDecodeError:
        return header.decode("latin-1")
