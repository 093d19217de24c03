"""The bounds of an XMP search and what it found (pure; see :mod:`scrapy_rep.usage._xmp`).

:class:`Limits` (settings ``REP_MEDIA_MAX_*``), :class:`XmpScan`, the step budget of a
structure walk, and packet scanning (XMP Part 1 §7.3), the one search that needs no
knowledge of the format.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

PACKET_BEGIN: Final = b"<?xpacket begin="
PACKET_END: Final = b"<?xpacket end="


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of a file is looked at (settings ``REP_MEDIA_MAX_*``)."""

    #: Bytes of the file looked at: structures past it are not walked, not scanned.
    max_scan: int = 32 * 1024 * 1024
    #: Longest packet read; a longer one is named as a problem (and not parsed).
    max_packet: int = 1024 * 1024
    #: Packets kept per file.
    max_packets: int = 16
    #: Segments, chunks, boxes or blocks walked per file.
    max_steps: int = 100_000


@dataclass(slots=True)
class XmpScan:
    """The packets found in one file, and what stopped the walk early."""

    format: str
    packets: list[bytes] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: Packets over :attr:`Limits.max_packet`: kept only for a plain byte search.
    oversized: list[bytes] = field(default_factory=list)
    #: Bytes not wholly read as packets (a file whose walk met a problem: a cut or
    #: unterminated packet, a broken structure, a limit): searched only for a
    #: prohibiting value, so a broken packet keeps its "no" (docs/media.md).
    raw: list[bytes] = field(default_factory=list)

    def add(self, packet: bytes, limits: Limits) -> bool:
        """Keep one packet; ``False`` when no more may be kept (the walk stops)."""
        if len(self.packets) + len(self.oversized) >= limits.max_packets:
            self.problems.append(f"more than {limits.max_packets} XMP packets")
            return False
        if len(packet) > limits.max_packet:
            self.problems.append(f"XMP packet of {len(packet)} bytes (limit {limits.max_packet})")
            self.oversized.append(packet)
        else:
            self.packets.append(packet)
        return True


class Stop(Exception):
    """The step budget is spent."""


class Steps:
    def __init__(self, limits: Limits) -> None:
        self.left = limits.max_steps

    def step(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise Stop


def walk(
    walker: Callable[[bytes, XmpScan, Limits, Steps], None],
) -> Callable[[bytes, XmpScan, Limits], None]:
    def run(data: bytes, scan: XmpScan, limits: Limits) -> None:
        try:
            walker(data, scan, limits, Steps(limits))
        except Stop:
            scan.problems.append(f"more than {limits.max_steps} structure steps")

    return run


def truncated(scan: XmpScan, what: str) -> None:
    scan.problems.append(f"file truncated in a {what}")


def scan_packets(data: bytes, scan: XmpScan, limits: Limits) -> None:
    """Packet scanning (XMP Part 1 §7.3): each ``<?xpacket begin=`` to its end PI."""
    pos = 0
    while True:
        begin = data.find(PACKET_BEGIN, pos)
        if begin < 0:
            return
        end = data.find(PACKET_END, begin, begin + limits.max_packet + len(PACKET_END))
        if end < 0:
            scan.problems.append(f"XMP packet at byte {begin} unterminated within the limit")
            return
        close = data.find(b"?>", end)
        stop = len(data) if close < 0 else close + 2
        if not scan.add(data[begin:stop], limits):
            return
        pos = stop
