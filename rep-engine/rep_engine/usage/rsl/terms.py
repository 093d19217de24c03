"""What an RSL 1.0 document says about one URL, per purpose (pure).

The RSL usage tokens are mapped onto ``search``, ``ai-train`` and ``ai-input`` by the
one mapping table (``purpose.ROWS``, vocabulary ``rsl``). Where RSL 1.0 does not
say how terms combine, the reading that loses no "no" (docs/purpose-notes.md §9):

1. a ``<prohibits type="usage">`` of any ``<content>`` that covers the URL, in any of
   its licenses, is a no for the purposes it names (prohibits wins over permits);
2. each ``<license>`` of one ``<content>`` is an offer: it grants a purpose its usage
   ``<permits>`` names, refuses one it does not name (a license without a usage
   ``<permits>`` says nothing), and grants nothing while it must be obtained first
   (``server=``, a paid ``<payment>``, user/geo terms) unless ``REP_RSL_LICENSES``
   holds it (its document URL or its server);
3. a ``<content>`` answers with its best offer; several ``<content>`` covering one URL:
   any no wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from rep_engine.urls.origins import origin_of
from rep_engine.usage.purpose import MAPPING, PURPOSES, Answers, UsageSignal, clip
from rep_engine.usage.rsl.document import NOT_READ, RslContent, RslDocument, RslLicense

_NONE: Final[Answers] = (None, None, None)


@dataclass(frozen=True, slots=True)
class RslAnswer:
    """One purpose's answer and the element that decided it."""

    #: ``True`` granted, ``False`` refused, ``None`` the document says nothing.
    allowed: bool | None
    #: The deciding element: ``RSL https://a/license.xml <content url="/"> license 1:
    #: <prohibits type="usage">ai-train</prohibits>`` (``""`` when it says nothing).
    source: str = ""
    #: The mapping row that gave the answer (``prohibits ai-train``).
    row: str = ""


SAYS_NOTHING: Final = RslAnswer(None)


def normalise_license_url(url: str) -> str:
    """A license or server URL as compared with ``REP_RSL_LICENSES``: its origin as
    robots.txt origins are compared (scheme and host lowercased, the host in IDNA, the
    default port dropped), a final ``/`` dropped, no fragment."""
    text = url.strip().split("#", 1)[0]
    origin = origin_of(text)
    if origin is None:
        return text.rstrip("/")
    rest = text.split("://", 1)[1]
    slash = rest.find("/")
    return (str(origin) + ("" if slash < 0 else rest[slash:])).rstrip("/")


def license_url_of(source: str) -> str:
    """The license URL an :class:`RslAnswer` source names (``RSL <url> …``), or ``""``."""
    parts = source.split(" ", 2)
    return parts[1].rstrip(":") if len(parts) > 1 and parts[0] == "RSL" else ""


def says_not_read(signal: UsageSignal) -> bool:
    """Whether ``signal`` is the stand-in of the licenses a robots.txt (or a page) names
    beyond ``REP_RSL_MAX_LICENSES`` (:func:`rep_engine.usage.rsl.document.not_read`)."""
    return signal.vocabulary == "rsl" and f": {NOT_READ}: " in signal.source


def owned_licenses(urls: Iterable[str]) -> frozenset[str]:
    """The licenses the crawler owns (``REP_RSL_LICENSES``), normalised for
    :func:`purpose_answers` (a license "held" in the trail's words)."""
    return frozenset(normalise_license_url(url) for url in urls if url.strip())


def _row(verb: str, token: str) -> Answers:
    row = MAPPING.get(("rsl", f"{verb} {token}"))
    return _NONE if row is None else row.answers


def _where(license_url: str, content: RslContent, license_: RslLicense) -> str:
    return f"RSL {license_url} {content.element} license {license_.index}: "


def _owned(content: RslContent, license_url: str, owned: frozenset[str]) -> bool:
    if normalise_license_url(license_url) in owned:
        return True
    return content.server is not None and normalise_license_url(content.server) in owned


def _requirement(content: RslContent, license_: RslLicense) -> str:
    if content.server is not None:
        return f'server="{content.server}"'
    paid = [p for p in license_.payments if p != "free"]
    if paid:
        return f'<payment type="{paid[0]}">'
    return f"{license_.conditions[0]} (cannot be checked)"


def _offer(
    content: RslContent, license_: RslLicense, index: int, license_url: str, owned: frozenset[str]
) -> RslAnswer:
    """What one license grants for the purpose at ``index`` (rule 2)."""
    where = _where(license_url, content, license_)
    answer = SAYS_NOTHING
    if license_.permits is not None:
        granting = [t for t in sorted(license_.permits) if _row("permits", t)[index]]
        if not granting:
            listed = " ".join(sorted(license_.permits))
            element = f'<permits type="usage">{listed}</permits> ({PURPOSES[index]} not listed)'
            return RslAnswer(False, clip(where + element), "permits (purpose not listed)")
        element = f'<permits type="usage">{granting[0]}</permits>'
        answer = RslAnswer(True, clip(where + element), f"permits {granting[0]}")
    if (content.server is not None or license_.conditional) and not _owned(
        content, license_url, owned
    ):
        element = f"{_requirement(content, license_)} (license not held)"
        return RslAnswer(False, clip(where + element), "license required (not held)")
    return answer


def _content_answer(
    content: RslContent, index: int, license_url: str, owned: frozenset[str]
) -> RslAnswer:
    """A ``<content>``'s best offer (rule 3): a grant, else silence, else its first no."""
    first_no: RslAnswer | None = None
    silent: RslAnswer | None = None
    for license_ in content.licenses:
        answer = _offer(content, license_, index, license_url, owned)
        if answer.allowed is True:
            return answer
        if answer.allowed is None:
            silent = silent or answer
        else:
            first_no = first_no or answer
    return silent or first_no or SAYS_NOTHING


def _prohibition(
    matching: tuple[RslContent, ...], index: int, license_url: str
) -> RslAnswer | None:
    """The first usage ``<prohibits>`` naming the purpose (rule 1), if any."""
    for content in matching:
        for license_ in content.licenses:
            for token in sorted(license_.prohibits):
                if _row("prohibits", token)[index] is False:
                    element = f'<prohibits type="usage">{token}</prohibits>'
                    where = _where(license_url, content, license_)
                    return RslAnswer(False, clip(where + element), f"prohibits {token}")
    return None


def _answer(
    document: RslDocument,
    matching: tuple[RslContent, ...],
    index: int,
    owned: frozenset[str],
    license_url: str,
) -> RslAnswer:
    if document.problem is not None:
        # A stand-in's problem begins with its row: "license document unreachable",
        # "license document unreadable: …", "licenses not read: …".
        row = document.problem.partition(":")[0]
        allowed = MAPPING[("rsl", row)].answers[index]
        return RslAnswer(allowed, clip(f"RSL {license_url}: {document.problem}"), row)
    prohibition = _prohibition(matching, index, license_url)
    if prohibition is not None:
        return prohibition
    granted: RslAnswer | None = None
    for content in matching:
        answer = _content_answer(content, index, license_url, owned)
        if answer.allowed is False:
            return answer
        if answer.allowed is True:
            granted = granted or answer
    return granted or SAYS_NOTHING


def purpose_answers(
    document: RslDocument, url: str, owned: frozenset[str] = frozenset(), license_url: str = ""
) -> tuple[RslAnswer, RslAnswer, RslAnswer]:
    """What ``document`` says about ``url`` for each purpose, in :data:`PURPOSES` order
    (the ``<content>`` entries are matched once)."""
    matching = () if document.problem is not None else document.matching(url)
    search, train, input_ = (
        _answer(document, matching, index, owned, license_url) for index in range(3)
    )
    return search, train, input_


def rsl_signals(
    document: RslDocument, url: str, owned: frozenset[str] = frozenset(), license_url: str = ""
) -> tuple[UsageSignal, ...]:
    """The answers as usage signals (one per deciding element) for
    :func:`rep_engine.usage.purpose.usage_decision`."""
    by_source: dict[str, list[bool | None]] = {}
    for index, answer in enumerate(purpose_answers(document, url, owned, license_url)):
        if answer.allowed is not None:
            by_source.setdefault(answer.source, [None, None, None])[index] = answer.allowed
    return tuple(UsageSignal("rsl", (a[0], a[1], a[2]), source) for source, a in by_source.items())


def licenses_signals(
    documents: Iterable[tuple[str, RslDocument]], url: str, owned: frozenset[str] = frozenset()
) -> tuple[UsageSignal, ...]:
    """The signals of every license document that applies to ``url`` (``(license URL,
    document)`` pairs: an origin's ``License:`` lines, a page's ``Link`` / ``<link>``),
    to be combined with the other vocabularies (any no wins)."""
    return tuple(
        signal
        for license_url, document in documents
        for signal in rsl_signals(document, url, owned, license_url)
    )
