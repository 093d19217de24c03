"""What reading a downloaded file's own statements costs per file (docs/media.md).

For files the script builds (with the tests' builders, ``tests/support/mediafiles.py``):
``read_media()`` (XMP found and parsed, the C2PA marker looked for, the manifest read
with ``c2pa-python`` when there is one), then the whole check the pipelines run per
file (``MediaGate.check``: the response's headers, the page's noimageai, the file) on a
real Scrapy response. Hostile files too: entity expansion, a packet over the limit, 40
packets, a 30 MB PDF scanned for packets, a truncated file.

CPU time (``time.process_time``), garbage collector on, median of 5 rounds; each round
reads the file enough times to last about 0.2 s. Peak extra memory per file from
tracemalloc (one read). Usage: ``python benchmarks/media.py``.
"""

from __future__ import annotations

import io
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support.mediafiles

from PIL import Image

from scrapy_rep.usage.media.c2pa import available
from scrapy_rep.usage.media.reading import read_media
from tests.support.mediafiles import c2pa_jpeg, jpeg, mp4, pdf, png, xmp_packet

BOMB = (
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
    + b"".join(b'<!ENTITY %c "%s">' % (98 + i, b"&%c;" % (97 + i) * 10) for i in range(9))
    + b']><x><plus:DataMining xmlns:plus="http://ns.useplus.org/ldf/xmp/1.0/">&j;'
    b"</plus:DataMining></x>"
)


def photo(width: int, height: int) -> bytes:
    """A noisy photo-sized JPEG (noise keeps the compressed size realistic)."""
    image = Image.effect_noise((width, height), 64).convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def samples() -> list[tuple[str, bytes]]:
    packet = xmp_packet("DMI-PROHIBITED-AIMLTRAINING")
    big = photo(3000, 2000)
    found = [
        ("8x8 JPEG, no XMP", jpeg()),
        ("8x8 JPEG, XMP DataMining", jpeg(packet)),
        ("8x8 PNG, compressed iTXt XMP", png(packet, compressed=True)),
        (f"3000x2000 JPEG ({len(big) // 1024} KiB), XMP", big[:2] + jpeg(packet)[2:40] + big[2:]),
        ("30 MB MP4, XMP uuid box after mdat", mp4(packet, mdat_bytes=30_000_000)),
        ("30 MB PDF, packet scanning", pdf(packet) + b"%" * 30_000_000),
        ("hostile: entity expansion", jpeg(BOMB)),
        ("hostile: 3 MB packet", png(xmp_packet("DMI-PROHIBITED", extra="a" * 3_000_000))),
        ("hostile: 40 packets", jpeg([packet] * 40)),
        ("hostile: truncated JPEG", jpeg(packet)[:300]),
    ]
    if available():
        found.append(
            ("8x8 JPEG, C2PA manifest (c2pa-python)", c2pa_jpeg({"cawg.ai_training": "notAllowed"}))
        )
        found.append(
            (
                "3000x2000 JPEG, C2PA manifest",
                c2pa_jpeg({"cawg.ai_training": "notAllowed"}, base=big),
            )
        )
    return found


def cpu_per_call(call: Callable[[], object], rounds: int = 5) -> float:
    """Median CPU seconds per call over ``rounds`` rounds of about 0.2 s each."""
    start = time.process_time()
    call()
    once = max(time.process_time() - start, 1e-6)
    repeat = max(1, int(0.2 / once))
    results = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(repeat):
            call()
        results.append((time.process_time() - start) / repeat)
    return statistics.median(results)


def peak_memory(call: Callable[[], object]) -> int:
    tracemalloc.start()
    call()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def gate_cost(data: bytes) -> float:
    """One file through ``MediaGate.check`` on a real response (as the pipeline runs it)."""
    from scrapy import Request, Spider
    from scrapy.http import Response
    from scrapy.utils.test import get_crawler

    from scrapy_rep.crawl.media.mediagate import MediaGate

    gate = MediaGate(get_crawler(Spider, {"REP_PURPOSE": "ai-train"}))
    request = Request("https://example.com/a.jpg")
    response = Response(
        request.url, body=data, headers={"Content-Type": "image/jpeg"}, request=request
    )
    return cpu_per_call(lambda: gate.check(response, request, {}))


def images_pipeline_convert(data: bytes) -> float:
    """What ImagesPipeline itself does per image (open, exif_transpose, JPEG re-encode)."""
    from PIL import ImageOps

    def convert() -> None:
        image = ImageOps.exif_transpose(Image.open(io.BytesIO(data)))
        image.convert("RGB").save(io.BytesIO(), "JPEG")

    return cpu_per_call(convert, rounds=3)


def main() -> None:
    print(f"c2pa-python installed: {available()}")
    print(f"{'file':45} {'bytes':>11} {'read_media':>12} {'peak memory':>12}")
    for name, data in samples():
        cost = cpu_per_call(lambda data=data: read_media(data))  # type: ignore[misc]
        memory = peak_memory(lambda data=data: read_media(data))  # type: ignore[misc]
        print(f"{name:45} {len(data):>11,} {cost * 1e6:>9.0f} µs {memory / 1024:>9.0f} KiB")
    small = jpeg(xmp_packet("DMI-PROHIBITED"))
    print(
        "\nMediaGate.check, 8x8 JPEG with XMP (whole per-file check): "
        f"{gate_cost(small) * 1e6:.0f} µs"
    )
    big = photo(3000, 2000)
    print(f"MediaGate.check, 3000x2000 JPEG: {gate_cost(big) * 1e3:.1f} ms")
    print(
        "for scale, ImagesPipeline's own conversion of that JPEG: "
        f"{images_pipeline_convert(big) * 1e3:.0f} ms"
    )


if __name__ == "__main__":
    main()
