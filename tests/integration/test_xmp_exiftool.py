"""What ExifTool reads, we read: IPTC Data Mining (XMP ``plus:DataMining``) in files that
ExifTool itself writes, in every form it can write, and in the forms it cannot write
but reads (built by ``tests/support/mediafiles.py``), each checked with
``exiftool -X -XMP-plus:all`` before ``read_media`` reads it (docs/media.md, "Where the
XMP packet is looked for").

ExifTool is Debian's ``libimage-exiftool-perl`` (``.ci/run`` installs it). ExifTool
12.67 and later know ``plus:DataMining``; Debian 12's 12.57 does not, so a small
configuration file declares it (and a plain PNG text tag with the keyword
``XML:com.adobe.xmp``, which ExifTool then writes as ``tEXt``, or ``zTXt`` with ``-z``).
ExifTool reads any XMP property without it: the checks run without the configuration.

ExifTool runs as its own documentation has a program run it for many files: one
process that reads each command from its standard input (``-stay_open True -@ -``) and
says when it is done with it (``{readyN}``), its exit status (``-echo4 ${status}``) and
what it wrote to stderr, as a process of its own per command would; one with the
configuration that writes, one without it that reads, for the module's tests, which run
in one worker (``xdist_group``).

Without ExifTool these tests skip, saying so, unless ``REP_REQUIRE_EXIFTOOL=1`` (CI sets
it when the package is installed) makes that a failure.
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from lxml import etree

from rep_engine.usage.media._xmp_scan import Limits
from rep_engine.usage.media.reading import read_media
from rep_engine.usage.purpose import PURPOSES, usage_decision
from tests.support.mediafiles import (
    PAST_THE_COUNT,
    PLUS_VOCAB,
    RDF_FORMS,
    blank_node_bag,
    box,
    encoded,
    gif,
    heif,
    jpeg,
    jpeg_photoshop,
    late_no_packet,
    mp4,
    past_the_count,
    png,
    png_raw_profile,
    png_with,
    raw_profile,
    text_chunk,
    tiff_block,
    tiff_ifd_last,
    tiff_in,
    webp,
    xmp_packet,
)

PROHIBITED = PLUS_VOCAB + "DMI-PROHIBITED"
MISSING = "exiftool is not installed (Debian: apt-get install libimage-exiftool-perl)"
CONFIG = """\
# plus:DataMining (IPTC Photo Metadata 2023.1), for ExifTool before 12.67; and the PNG
# text keyword of XMP as a plain text tag, written as tEXt (or zTXt with -z).
%Image::ExifTool::UserDefined = (
    'Image::ExifTool::PLUS::XMP' => { DataMining => { } },
    'Image::ExifTool::PNG::TextualData' => { 'XML:com.adobe.xmp' => { Name => 'XMPText' } },
);
1;
"""
EXIFTOOL_XMP_PLUS = "{http://ns.exiftool.org/XMP/XMP-plus/1.0/}DataMining"
#: Seconds a command may take (a hang is a failure).
COMMAND_TIMEOUT = 60

pytestmark = pytest.mark.xdist_group("exiftool")
RDF_LI = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}li"


def exiftool_binary() -> str:
    binary = shutil.which("exiftool")
    if binary is None:
        if os.environ.get("REP_REQUIRE_EXIFTOOL") == "1":
            pytest.fail(MISSING)
        pytest.skip(MISSING)
    return binary


class StayOpen:
    """One ``exiftool`` process (``-stay_open True -@ -``, after ``first``) that runs each
    command it is given as a process of its own would, one at a time."""

    def __init__(self, binary: str, *first: str) -> None:
        self.process = subprocess.Popen(
            [binary, *first, "-stay_open", "True", "-@", "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.commands = 0

    def run(self, arguments: list[str]) -> tuple[int, bytes, str]:
        """``arguments`` run: (exit status, stdout, stderr)."""
        self.commands += 1
        said = f"exit status of command {self.commands}:"
        lines = [*arguments, "-echo4", f"{said} ${{status}}", f"-execute{self.commands}"]
        assert self.process.stdin is not None
        self.process.stdin.write(("\n".join(lines) + "\n").encode())
        self.process.stdin.flush()
        out, err = self._read_until(f"{{ready{self.commands}}}\n".encode(), said.encode())
        text = err.decode(errors="replace")
        before, _, status = text.rpartition(said)
        return int(status), out[: -len(f"{{ready{self.commands}}}\n")], before

    def _read_until(self, ready: bytes, said: bytes) -> tuple[bytes, bytes]:
        """Both streams read at once until stdout ends with ``ready`` and stderr has a
        line starting with ``said`` (each read whole: neither pipe fills up)."""
        streams = {self.process.stdout: bytearray(), self.process.stderr: bytearray()}
        deadline = time.monotonic() + COMMAND_TIMEOUT
        with selectors.DefaultSelector() as selector:
            for stream in streams:
                selector.register(stream, selectors.EVENT_READ)  # type: ignore[arg-type]
            out, err = streams[self.process.stdout], streams[self.process.stderr]
            while not (out.endswith(ready) and said in err and err.endswith(b"\n")):
                left = deadline - time.monotonic()
                assert left > 0 and self.process.poll() is None, f"exiftool hangs: {err!r}"
                for key, _ in selector.select(left):
                    chunk = os.read(key.fd, 65536)
                    assert chunk, f"exiftool ended: {err!r}"
                    streams[key.fileobj].extend(chunk)  # type: ignore[index]
        return bytes(out), bytes(err)

    def close(self) -> None:
        try:
            self.process.communicate(b"-stay_open\nFalse\n", timeout=COMMAND_TIMEOUT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


class ExifTool:
    """``exiftool`` on files in a folder of its own: a process that writes with our
    configuration, one that reads without it."""

    def __init__(self, binary: str, folder: Path) -> None:
        self.binary = binary
        self.folder = folder
        self.config = folder / "datamining.config"
        self.config.write_text(CONFIG)
        self.count = 0
        self.writer = StayOpen(binary, "-config", str(self.config))
        self.reader = StayOpen(binary)

    def close(self) -> None:
        try:
            self.writer.close()
        finally:
            self.reader.close()

    def _file(self, data: bytes, suffix: str) -> Path:
        self.count += 1
        path = self.folder / f"{self.count}.{suffix}"
        path.write_bytes(data)
        return path

    def write(self, source: bytes, suffix: str, *arguments: str, text: bytes = b"") -> bytes:
        """``source`` as ExifTool writes it with ``arguments`` (``{text}`` in them: the
        path of a file holding ``text``, for ``-TAG<=FILE``)."""
        original = self._file(source, suffix)
        given = self._file(text, "xmp")
        written = self.folder / f"{self.count}-written.{suffix}"
        command = ["-q", "-o", str(written)]
        command += [argument.format(text=given) for argument in arguments]
        status, _, stderr = self.writer.run([*command, str(original)])
        assert status == 0 and written.exists(), stderr
        return written.read_bytes()

    def data_mining(self, data: bytes, suffix: str) -> list[str]:
        """Every ``XMP-plus:DataMining`` value ExifTool reads in ``data``, from
        ``exiftool -X -XMP-plus:all`` (its RDF/XML output), without our configuration."""
        path = self._file(data, suffix)
        status, stdout, stderr = self.reader.run(["-X", "-XMP-plus:all", str(path)])
        assert status == 0, stderr
        root = etree.fromstring(stdout, etree.XMLParser(resolve_entities=False))
        values: list[str] = []
        for element in root.iter(EXIFTOOL_XMP_PLUS):
            items = [item.text or "" for item in element.iter(RDF_LI)]
            values.extend(items or [element.text or ""])
        return [value.strip() for value in values]


@pytest.fixture(scope="module")
def exiftool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExifTool]:
    tool = ExifTool(exiftool_binary(), tmp_path_factory.mktemp("exiftool"))
    try:
        yield tool
    finally:
        tool.close()


def we_read(data: bytes) -> tuple[list[str], tuple[bool | None, ...]]:
    """The sources of the signals we read in ``data``, and the answer per purpose."""
    reading = read_media(data, c2pa=False)
    decision = usage_decision(reading.signals)
    return [s.source for s in reading.signals], tuple(decision.allowed(p) for p in PURPOSES)


def assert_both_read_prohibited(exiftool: ExifTool, data: bytes, suffix: str) -> None:
    assert exiftool.data_mining(data, suffix) == [PROHIBITED]
    sources, answers = we_read(data)
    assert sources == ["XMP plus:DataMining DMI-PROHIBITED"]
    assert answers == (False, False, False)


PACKET = xmp_packet("DMI-PROHIBITED")
ASCII_PACKET = xmp_packet("DMI-PROHIBITED", begin="")  # no U+FEFF: Latin-1 text for tEXt
SET = f"-XMP-plus:DataMining={PROHIBITED}"
FROM_FILE = "-xmp<={text}"

#: Forms ExifTool writes: (name, the file it starts from, its suffix, arguments, the
#: text of ``{text}``).
WRITTEN: list[tuple[str, Callable[[], bytes], str, tuple[str, ...], bytes]] = [
    ("jpeg", jpeg, "jpg", (SET,), b""),
    ("png-iTXt", png, "png", (SET,), b""),
    ("tiff-ifd0", lambda: tiff_block({}, pages=1), "tif", (SET,), b""),
    *(
        (f"jpeg-{form}", jpeg, "jpg", (FROM_FILE,), xmp_packet("DMI-PROHIBITED", form=form))
        for form in RDF_FORMS
        if form != "element"
    ),
    ("jpeg-attribute", jpeg, "jpg", (FROM_FILE,), xmp_packet("DMI-PROHIBITED", form="attribute")),
    ("jpeg-utf-16-be", jpeg, "jpg", (FROM_FILE,), encoded(PACKET, "utf-16-be")),
    ("jpeg-utf-16-le", jpeg, "jpg", (FROM_FILE,), encoded(PACKET, "utf-16-le")),
    ("png-tEXt", png, "png", ("-PNG:XMPText<={text}",), ASCII_PACKET),
    ("png-zTXt", png, "png", ("-z", "-PNG:XMPText<={text}"), ASCII_PACKET),
    ("tiff-ifd1-only", lambda: tiff_block({}, pages=2), "tif",
     ("-IFD1:ApplicationNotes<={text}",), ASCII_PACKET),
    ("tiff-ifd2-only", lambda: tiff_block({}, pages=3), "tif",
     ("-IFD2:ApplicationNotes<={text}",), ASCII_PACKET),
    ("tiff-exif-ifd", lambda: tiff_block({}, pages=1), "tif",
     ("-ExifIFD:ApplicationNotes<={text}",), ASCII_PACKET),
    ("jpeg-exif-ifd0", jpeg, "jpg", ("-IFD0:ApplicationNotes<={text}",), ASCII_PACKET),
    ("jpeg-exif-exif-ifd", jpeg, "jpg", ("-ExifIFD:ApplicationNotes<={text}",), ASCII_PACKET),
    ("png-eXIf", png, "png", ("-IFD0:ApplicationNotes<={text}",), ASCII_PACKET),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "source", "suffix", "arguments", "text"), WRITTEN, ids=[w[0] for w in WRITTEN]
)
def test_exiftool_writes_it_exiftool_reads_it_and_so_do_we(
    exiftool: ExifTool,
    name: str,
    source: Callable[[], bytes],
    suffix: str,
    arguments: tuple[str, ...],
    text: bytes,
) -> None:
    data = exiftool.write(source(), suffix, *arguments, text=text)
    assert_both_read_prohibited(exiftool, data, suffix)


#: Forms ExifTool reads but does not write: built by hand.
BUILT: list[tuple[str, Callable[[], bytes], str]] = [
    ("jpeg-utf-32-be", lambda: jpeg(encoded(PACKET, "utf-32-be")), "jpg"),
    ("jpeg-utf-32-le", lambda: jpeg(encoded(PACKET, "utf-32-le")), "jpg"),
    ("jpeg-utf-16-with-bom", lambda: jpeg(encoded(PACKET, "utf-16")), "jpg"),
    ("jpeg-utf-32-with-bom", lambda: jpeg(encoded(PACKET, "utf-32")), "jpg"),
    ("png-raw-profile-zTXt", lambda: png_raw_profile(PACKET), "png"),
    ("png-raw-profile-tEXt", lambda: png_raw_profile(PACKET, chunk="tEXt"), "png"),
    ("png-raw-profile-iTXt", lambda: png_raw_profile(PACKET, chunk="iTXt"), "png"),
    ("png-compressed-iTXt", lambda: png(PACKET, compressed=True), "png"),
    ("tiff-subifd", lambda: tiff_in(PACKET, "subifd"), "tif"),
    ("jpeg-photoshop-app13", lambda: jpeg_photoshop(PACKET), "jpg"),
    ("webp", lambda: webp(PACKET), "webp"),
]


@pytest.mark.parametrize(("name", "build", "suffix"), BUILT, ids=[b[0] for b in BUILT])
def test_exiftool_reads_what_we_build_and_so_do_we(
    exiftool: ExifTool, name: str, build: Callable[[], bytes], suffix: str
) -> None:
    assert_both_read_prohibited(exiftool, build(), suffix)


LATE_NO = late_no_packet("DMI-PROHIBITED")
#: A "no" past a limit of our reader: after the first MiB of compressed text, or past
#: the bytes scanned (here lowered to 4 KiB) where the format's offsets lead. ExifTool
#: reads each; ours said nothing before (docs/media.md, "Hostile files").
PAST_LIMITS: list[tuple[str, Callable[[], bytes], str]] = [
    ("png-zTXt-over-1-MiB", lambda: png(LATE_NO, chunk="zTXt"), "png"),
    ("png-compressed-iTXt-over-1-MiB", lambda: png(LATE_NO, compressed=True), "png"),
    ("png-raw-profile-zTXt-over-1-MiB", lambda: png_raw_profile(LATE_NO), "png"),
    ("png-raw-profile-iTXt-over-1-MiB", lambda: png_with(png(), text_chunk(
        raw_profile(LATE_NO), chunk="iTXt", compressed=True, keyword=b"Raw profile type xmp")),
     "png"),
    ("tiff-ifd-after-the-image", lambda: tiff_ifd_last(PACKET), "tif"),
    ("tiff-ifd-after-the-image-big-endian", lambda: tiff_ifd_last(PACKET, ">"), "tif"),
    ("mp4-moov-after-mdat", lambda: mp4(PACKET, where="udta", mdat_bytes=5000), "mp4"),
    ("mp4-uuid-after-mdat", lambda: mp4(PACKET, mdat_bytes=5000), "mp4"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "build", "suffix"), PAST_LIMITS, ids=[p[0] for p in PAST_LIMITS])
def test_exiftool_reads_a_no_past_our_former_limits_and_so_do_we(
    exiftool: ExifTool, name: str, build: Callable[[], bytes], suffix: str
) -> None:
    data = build()
    assert exiftool.data_mining(data, suffix) == [PROHIBITED]
    reading = read_media(data, limits=Limits(max_scan=4096 if "after" in name else 32 << 20))
    assert usage_decision(reading.signals).allowed("ai-train") is False, reading
    assert usage_decision(reading.signals).allowed("ai-input") is False, reading


HARMLESS_UUID = box(b"uuid", bytes.fromhex("BE7ACFCB97A942E89C71999491E3AFAC") + xmp_packet())
FAR_IN_A_BIG_GIF_PACKET = (
    "<dc:x>" + "z" * 1_100_000 + "</dc:x><plus:DataMining><rdf:Bag><rdf:li>DMI-UNSPECIFIED"
    "</rdf:li>" + " " * 600 + "<rdf:li>DMI-PROHIBITED</rdf:li></rdf:Bag></plus:DataMining>"
)
#: A "no" that a limit of our reader kept out of reach, and the file was stored: past
#: the first 16 packets where a byte search cannot see it, in a HEIF item of a brand
#: not read or beside an XMP box, past the cut of a big GIF packet, in the 65th blank
#: node of a bag (the bare token, as ExifTool reads it too). ExifTool reads each.
OUT_OF_REACH: list[tuple[str, Callable[[], bytes], str]] = [
    *(
        (f"{where}-past-16-packets", lambda where=where: past_the_count(PACKET, where),
         "jpg" if where.startswith("jpeg") else "png")
        for where in PAST_THE_COUNT
    ),
    *((f"heif-brand-{brand.decode()}", lambda brand=brand: heif(PACKET, brand), "heic")
      for brand in (b"miaf", b"MA1B", b"jpeg")),
    ("heic-item-after-an-xmp-uuid-box", lambda: heif(PACKET, before=HARMLESS_UUID), "heic"),
    ("gif-value-far-past-the-cut-of-a-big-packet",
     lambda: gif(xmp_packet(extra=FAR_IN_A_BIG_GIF_PACKET)), "gif"),
    ("jpeg-65th-blank-node",
     lambda: jpeg(blank_node_bag(["DMI-UNSPECIFIED"] * 64 + ["DMI-PROHIBITED"])), "jpg"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "build", "suffix"), OUT_OF_REACH, ids=[o[0] for o in OUT_OF_REACH]
)
def test_exiftool_reads_a_no_a_limit_kept_out_of_our_reach_and_so_do_we(
    exiftool: ExifTool, name: str, build: Callable[[], bytes], suffix: str
) -> None:
    data = build()
    values = exiftool.data_mining(data, suffix)
    assert "DMI-PROHIBITED" in [value.removeprefix(PLUS_VOCAB) for value in values]
    reading = read_media(data, c2pa=False)
    assert usage_decision(reading.signals).allowed("ai-train") is False, reading
    assert usage_decision(reading.signals).allowed("ai-input") is False, reading


def test_an_allowed_value_is_read_alike(exiftool: ExifTool) -> None:
    """The control: ExifTool and we read the other values too (not only a "no")."""
    data = exiftool.write(
        tiff_block({}, pages=2),
        "tif",
        "-IFD1:ApplicationNotes<={text}",
        text=xmp_packet("DMI-ALLOWED", form="qualified", begin=""),
    )
    assert exiftool.data_mining(data, "tif") == [PLUS_VOCAB + "DMI-ALLOWED"]
    assert we_read(data) == (["XMP plus:DataMining DMI-ALLOWED"], (None, True, True))


def test_without_exiftool_the_tests_skip_saying_why_unless_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("REP_REQUIRE_EXIFTOOL", raising=False)
    with pytest.raises(pytest.skip.Exception, match="exiftool is not installed"):
        exiftool_binary()
    monkeypatch.setenv("REP_REQUIRE_EXIFTOOL", "1")
    with pytest.raises(pytest.fail.Exception, match="exiftool is not installed"):
        exiftool_binary()
