"""The C2PA training-and-mining assertions of a file (pure; the library is optional).

C2PA 1.x defined ``c2pa.training-mining``; the CAWG Training and Data Mining assertion
v1.1 (ratified 16 May 2025) is ``cawg.training-mining``, entries ``cawg.ai_generative_
training``, ``cawg.ai_training``, ``cawg.ai_inference``, ``cawg.data_mining``, each with
a ``use`` of ``allowed``, ``notAllowed`` or ``constrained``. The manifest store is read
with the official ``c2pa-python`` (the ``media`` extra: ``pip install 'c2pa-python>=0.38'``),
imported only when a file mentions ``c2pa`` at all; its JSON is read here
(:func:`manifest_signals`).

Every manifest of the store counts, ingredients' too: a "no" anywhere is kept (the
reading that loses no "no"). An ``allowed`` from a store whose validation failed is not
kept (anyone could have written it); a "no" is kept whatever the signature.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from rep_engine.usage.media._xmp_scan import Limits
from rep_engine.usage.media.xmp import DEFAULT_LIMITS, sniff
from rep_engine.usage.purpose import MAPPING, UsageSignal

LABELS: Final = ("cawg.training-mining", "c2pa.training-mining")
#: The entries of the table (``cawg.ai_training`` and C2PA 1.x ``c2pa.ai_training``).
ENTRIES: Final = frozenset({"ai_generative_training", "ai_training", "ai_inference", "data_mining"})
USES: Final = {"allowed": "allowed", "notallowed": "notAllowed", "constrained": "constrained"}
MIME_TYPES: Final = {
    "jpeg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "tiff": "image/tiff",
    "gif": "image/gif",
    "mp4": "video/mp4",
    "pdf": "application/pdf",
}
#: c2pa-python settings: never reach the network while reading (``verify`` section of
#: the c2pa-rs settings).
SETTINGS: Final = {"verify": {"remote_manifest_fetch": False, "ocsp_fetch": False}}
#: The JUMBF label of a C2PA manifest store: a file without these bytes has none.
MARKER: Final = b"c2pa"
#: The ``use`` of an entry of a training-and-mining assertion as CBOR (its serialisation
#: in a manifest store) writes it: the text ``use``, then the text of its value...
_RAW_USES: Final = (b"\x63use\x6anotAllowed", b"\x63use\x6bconstrained")
#: ... preceded (within :data:`_RAW_BACK` bytes) by the entry's name and the header of
#: its map. Read from the raw bytes of a store the library could not read or found
#: invalid, so a damaged store keeps its "no" (docs/media.md, "Hostile files").
_RAW_NAME: Final = re.compile(
    rb"(cawg|c2pa)\.(ai_generative_training|ai_training|ai_inference|data_mining)[\xa1-\xb7]"
)
_RAW_BACK: Final = 160
#: Entries looked at per value: past them, the rest fails closed (what a limit keeps
#: from being read is a "no" for the AI purposes: docs/media.md, "Hostile files").
_RAW_MAX: Final = 64
_NOT_LOOKED_AT: Final = (None, False, False)


@dataclass(frozen=True, slots=True)
class C2paResult:
    signals: tuple[UsageSignal, ...]
    #: ``"read"``, ``"none"`` or ``"not read: …"``.
    status: str


_NOT_INSTALLED: Final = C2paResult((), "not read: not installed")


def available() -> bool:
    """Whether ``c2pa-python`` can be imported."""
    try:
        import c2pa  # noqa: F401
    except ImportError:
        return False
    return True


def read_c2pa(
    data: bytes, limits: Limits | None = None, constraints_met: bool = False
) -> C2paResult:
    """The training-and-mining signals of the manifest store embedded in ``data``."""
    scan_limit = (limits or DEFAULT_LIMITS).max_scan
    if data.find(MARKER, 0, scan_limit) < 0:
        return C2paResult((), "none")
    raw = raw_signals(data[:scan_limit], constraints_met)
    if len(data) > scan_limit:  # the library reads (and hashes) the whole file
        return C2paResult(raw, "not read: the file is over REP_MEDIA_MAX_SCAN_BYTES")
    try:
        import c2pa
    except ImportError:
        return C2paResult(raw, _NOT_INSTALLED.status)
    mime = MIME_TYPES.get(sniff(data))
    try:
        with c2pa.Reader(mime, io.BytesIO(data), context=_context()) as reader:
            store = json.loads(reader.json())
    except Exception as error:  # the library's errors: a store we cannot read, said so
        text = f"{type(error).__name__}: {error}"
        if "ManifestNotFound" in text or "NotSupported" in text:
            status = "none" if not raw else "not read: no manifest store found in a damaged file"
            return C2paResult(raw, status)
        if "Remote:" in text:
            return C2paResult(raw, "not read: the manifest is remote (not fetched)")
        return C2paResult(raw, f"not read: {text[:160]}")
    if not isinstance(store, Mapping):
        return C2paResult(raw, "not read: not a manifest store")
    signals = manifest_signals(store, constraints_met)
    if _invalid(store):  # what the library dropped from a damaged store keeps its "no"
        said = {signal.source for signal in signals}
        signals += [s for s in raw if s.source.removesuffix(RAW_SUFFIX) not in said]
    return C2paResult(tuple(signals), "read")


#: The end of the source of a statement found in a store's raw bytes.
RAW_SUFFIX: Final = " (in the raw bytes of a damaged manifest store)"


def raw_signals(data: bytes, constraints_met: bool = False) -> tuple[UsageSignal, ...]:
    """The ``notAllowed`` / ``constrained`` entries of the training-and-mining assertions
    in ``data``'s raw bytes (never an ``allowed``: nothing vouches for it), each once;
    more uses than :data:`_RAW_MAX` of a value fail closed."""
    found: dict[str, UsageSignal] = {}
    for literal in _RAW_USES:
        use = literal[5:].decode("ascii")
        pos = data.find(literal)
        for _ in range(_RAW_MAX):
            if pos < 0:
                break
            names = list(_RAW_NAME.finditer(data, max(0, pos - _RAW_BACK), pos))
            if names:  # the nearest name before the use is its entry's
                prefix, name = (part.decode("ascii") for part in names[-1].groups())
                key = f"{name}={use}"
                if use == "constrained" and constraints_met:
                    key += " (constraints met)"
                source = f"C2PA {prefix}.training-mining {prefix}.{name}: {use}{RAW_SUFFIX}"
                signal = UsageSignal("cawg", MAPPING[("cawg", key)].answers, source)
                found.setdefault(source, signal)
            pos = data.find(literal, pos + len(literal))
        if pos >= 0:  # more than were looked at: a "no" may be among the rest
            source = f"C2PA: more than {_RAW_MAX} uses {use}{RAW_SUFFIX}"
            found[source] = UsageSignal("cawg", _NOT_LOOKED_AT, source)
    return tuple(found.values())


@lru_cache(maxsize=1)
def _context() -> Any:
    """The library's settings for reading in a crawl: no network (a remote manifest or
    an OCSP answer would be fetched in the crawl's thread), everything else its defaults."""
    import c2pa

    return c2pa.Context.from_dict(SETTINGS)


def manifest_signals(store: Mapping[str, Any], constraints_met: bool = False) -> list[UsageSignal]:
    """The signals of every training-and-mining assertion in a manifest store as
    ``c2pa.Reader.json()`` returns it (``{"manifests": {label: {"assertions": [...]}}}``)."""
    trusted = not _invalid(store)
    signals = []
    manifests = store.get("manifests")
    if not isinstance(manifests, Mapping):
        return []
    for manifest in manifests.values():
        assertions = manifest.get("assertions") if isinstance(manifest, Mapping) else None
        for label, entries in _training_mining(assertions):
            for name, use in entries:
                if use == "allowed" and not trusted:
                    continue
                key = f"{name}={use}"
                if use == "constrained" and constraints_met:
                    key += " (constraints met)"
                row = MAPPING[("cawg", key)]
                source = f"C2PA {label} {label.split('.')[0]}.{name}: {use}"
                signals.append(UsageSignal("cawg", row.answers, source))
    return signals


def _training_mining(assertions: Any) -> Iterable[tuple[str, list[tuple[str, str]]]]:
    """(label, [(entry, use)]) of each training-and-mining assertion; labels may carry
    an instance (``__1``) or version (``.v2``) suffix."""
    if not isinstance(assertions, list):
        return
    for assertion in assertions:
        if not isinstance(assertion, Mapping):
            continue
        label = str(assertion.get("label", "")).split("__")[0]
        base = next((known for known in LABELS if label.startswith(known)), None)
        data = assertion.get("data")
        if base is None or not isinstance(data, Mapping):
            continue
        entries = data.get("entries")
        if not isinstance(entries, Mapping):
            continue
        found = []
        for name, entry in entries.items():
            short = str(name).split(".", 1)[-1]
            use = (
                USES.get(str(entry.get("use", "")).lower()) if isinstance(entry, Mapping) else None
            )
            if short in ENTRIES and use is not None:
                found.append((short, use))
        yield base, found


def _invalid(store: Mapping[str, Any]) -> bool:
    """Whether the library found the store invalid (a broken signature or hash; an
    untrusted signing certificate is not invalid)."""
    state = store.get("validation_state")
    if isinstance(state, str):
        return state.lower() == "invalid"
    statuses = store.get("validation_status")
    if not isinstance(statuses, list):
        return False
    return any(
        isinstance(status, Mapping)
        and str(status.get("code", "")).split(".")[-1]
        in ("mismatch", "failure", "invalid", "malformed", "missing")
        for status in statuses
    )
