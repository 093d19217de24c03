"""What reading a downloaded file's own statements costs per file (docs/media.md).

For files the script builds (with the tests' builders, ``tests/support/mediafiles.py``):
``read_media()`` (XMP found and parsed, the C2PA marker looked for, the manifest read
with ``c2pa-python`` when there is one), then the whole check the pipelines run per
file (``MediaGate.check``: the response's headers, the page's noimageai, the file) on a
real Scrapy response. Hostile files too: entity expansion, a packet over the limit, 40
packets, a 30 MB PDF scanned for packets, a truncated file, and files built to be slow
(a 31.5 MB file not read wholly with a value in each wide encoding, 800,000
empty packets, packets of 250,000 elements, a GIF packet without an end).

CPU time (``time.process_time``), garbage collector on, median of 5 rounds; each round
reads the file enough times to last about 0.2 s. Peak extra memory per file from
tracemalloc (one read): the bytes a read makes, whatever the machine's load.
Usage: ``python benchmarks/media.py``.

``--crawl N``: a real crawl (``FilesPipeline``, ``REP_PURPOSE = "ai-train"``) of N slow
files of 31.5 MB on one local host (a server in another process) and ``--pages`` pages
on another host name (``localhost``: resolved by Scrapy's threaded resolver, in the
reactor's thread pool the reads share), with a 10 ms ``LoopingCall`` probe on the
reactor. Prints the load average, the crawl's wall time, the reactor's longest stall,
the pages' longest wait, the most files read at once, the reads' CPU seconds and the
process's peak RSS; ``--close-timeout S`` sets ``CLOSESPIDER_TIMEOUT``, ``--no-gate``
reads no file (``REP_MEDIA_USAGE = False``: Scrapy's own figures). Run it from an
older checkout (``cd OLD && python benchmarks/media.py --crawl 50``) for the figures
before.
"""

from __future__ import annotations

import io
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support.mediafiles

from PIL import Image

from rep_engine.usage.media.c2pa import available
from rep_engine.usage.media.reading import read_media
from tests.support.mediafiles import (
    c2pa_jpeg,
    jpeg,
    mp4,
    pdf,
    png,
    png_with,
    text_chunk,
    xmp_packet,
)

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
        *slow_samples(),
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


WIDE = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")


def slow_file(size: int = 31_500_000) -> bytes:
    """A file built to be slow for the reader as it was: not read wholly (a packet
    without its end), a ``DMI-PROHIBITED`` where XMP would hold it in each wide
    encoding (the byte search decoded the whole file once per wide encoding)."""
    value = "<plus:DataMining>http://ns.useplus.org/ldf/vocab/DMI-PROHIBITED</plus:DataMining>"
    values = b"".join(value.encode(codec) for codec in WIDE)
    head = b"%PDF-1.7\n<?xpacket begin="
    return head + b"%" * (size - len(head) - len(values)) + values


def slow_samples() -> list[tuple[str, bytes]]:
    """Files built to be slow (for the reader as it was)."""
    empty = b'<?xpacket begin=""?><?xpacket end="w"?>'
    elements = xmp_packet("DMI-PROHIBITED", extra="<a/>" * 255_000)
    gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00\x21\xff\x0bXMP DataXMP" + b"<" * 31_500_000
    return [
        ("slow: 31.5 MB not read wholly, wide values", slow_file()),
        ("slow: 31.5 MB PDF of 800,000 empty packets", b"%PDF-1.7\n" + empty * 800_000),
        ("slow: PNG, 16 zTXt of 250,000 elements", png_with(png(), *[zTXt(elements)] * 16)),
        ("slow: 31.5 MB GIF packet without an end", gif),
    ]


def zTXt(packet: bytes) -> bytes:
    return text_chunk(packet, chunk="zTXt", keyword=b"XML:com.adobe.xmp")


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

    from scrapy_rep.crawl.media.pipelines import MediaGate

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


SERVER = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
sys.path.insert(0, sys.argv[1])
from benchmarks.media import slow_file
SLOW = slow_file()
class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def do_GET(self):
        if self.path.startswith("/file/"):
            body, kind = SLOW, "application/pdf"
        elif self.path.startswith("/page/") or self.path == "/gallery":
            body, kind = b"<html><head></head><body>a page</body></html>", "text/html"
        else:
            self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def crawl_slow_files(files: int, pages: int, close_timeout: float, gate: bool = True) -> None:
    """A crawl of ``files`` slow files and ``pages`` pages on another host (see the
    module docstring), in this process."""
    import os
    import resource
    import subprocess
    import tempfile
    import threading

    from scrapy import Request, Spider
    from scrapy import signals as scrapy_signals
    from scrapy.crawler import CrawlerProcess
    from twisted.internet.task import LoopingCall

    from scrapy_rep.crawl.media.pipelines import MediaGate

    root = str(Path(__file__).resolve().parent.parent)
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, root], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        files_host, pages_host = f"http://127.0.0.1:{port}", f"http://localhost:{port}"
        lock = threading.Lock()
        reads = {"now": 0, "most": 0, "cpu": 0.0, "count": 0}
        read = MediaGate.read

        def counted(self: MediaGate, body: bytes) -> Any:
            with lock:
                reads["now"] += 1
                reads["most"] = max(reads["most"], reads["now"])
            start = time.thread_time()
            try:
                return read(self, body)
            finally:
                with lock:
                    reads["now"] -= 1
                    reads["count"] += 1
                    reads["cpu"] += time.thread_time() - start

        MediaGate.read = counted  # type: ignore[method-assign]
        waits: list[float] = []
        stalls = {"longest": 0.0, "last": 0.0}

        def probe() -> None:
            now = time.monotonic()
            if stalls["last"]:
                stalls["longest"] = max(stalls["longest"], now - stalls["last"] - 0.01)
            stalls["last"] = now

        class SlowFiles(Spider):
            name = "slowfiles"

            async def start(self):  # type: ignore[no-untyped-def]
                yield Request(f"{files_host}/gallery")

            def parse(self, response):  # type: ignore[no-untyped-def]
                yield {"file_urls": [f"{files_host}/file/{n}" for n in range(files)]}
                for n in range(pages):
                    meta = {"asked": time.monotonic()}
                    yield Request(f"{pages_host}/page/{n}", self.page, meta=meta)

            def page(self, response):  # type: ignore[no-untyped-def]
                waits.append(time.monotonic() - response.meta["asked"])

        store = tempfile.mkdtemp(prefix="rep-media-bench-")
        settings = {
            "ADDONS": {"scrapy_rep.Addon": 0},
            "REP_PURPOSE": "ai-train",
            "USER_AGENT": "BenchBot/1.0",
            "ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 1},
            "FILES_STORE": store,
            "LOG_LEVEL": "ERROR",
            "TELNETCONSOLE_ENABLED": False,
            "CLOSESPIDER_TIMEOUT": close_timeout,
            "REP_MEDIA_USAGE": gate,
        }
        process = CrawlerProcess(settings)
        crawler = process.create_crawler(SlowFiles)
        probes: list[LoopingCall] = []  # (made once Scrapy installed its reactor)

        def started() -> None:
            probes.append(LoopingCall(probe))
            probes[0].start(0.01)

        crawler.signals.connect(started, scrapy_signals.engine_started)
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        began = time.monotonic()
        process.crawl(crawler)
        process.start()
        wall = time.monotonic() - began
        for looping in probes:
            if looping.running:
                looping.stop()
    finally:
        server.kill()
        server.wait()
    stats = crawler.stats.get_stats() if crawler.stats else {}
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{files} files of 31.5 MB, {pages} pages on another host name")
    print(f"files read: {reads['count']}, most at once: {reads['most']}, ", end="")
    each = reads["cpu"] / max(reads["count"], 1)
    print(f"CPU in the reads: {reads['cpu']:.1f} s ({each:.2f} s each)")
    print(f"crawl wall time: {wall:.1f} s, ended by: {stats.get('finish_reason')}")
    print(f"the reactor's longest stall: {stalls['longest']:.2f} s")
    print(f"the pages' longest wait: {max(waits, default=0):.1f} s ({len(waits)} pages)")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crawl", type=int, metavar="N", help="a crawl of N slow files")
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--close-timeout", type=float, default=0)
    parser.add_argument("--no-gate", action="store_true", help="REP_MEDIA_USAGE = False")
    arguments = parser.parse_args()
    if arguments.crawl:
        gate = not arguments.no_gate
        crawl_slow_files(arguments.crawl, arguments.pages, arguments.close_timeout, gate)
        return
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
