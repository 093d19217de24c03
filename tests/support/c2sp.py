"""A reader and writer of the C2SP formats of our own, written from the specifications
with nothing of the code under test (c2sp.org/signed-note, tlog-checkpoint,
tlog-cosignature v1.1.0, tlog-witness): a note's text and signature lines, a checkpoint's
origin, size, root and extension lines, a verifier key, an add-checkpoint request, and
cosignatures of both types (Ed25519's, 0x04; ML-DSA-44's, 0x06), each signature made and
checked with ``cryptography`` alone. The tests read what the trail and the witness write
with it, give the tools what it writes, and read the specifications' own examples, and
a Go implementation's (torchwood's litewitness test of an ML-DSA-44 log), with both."""

from __future__ import annotations

import base64
import hashlib
import struct
from typing import TYPE_CHECKING, NamedTuple

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

if TYPE_CHECKING:  # ML-DSA-44 is imported where it is used: cryptography 47 on has it
    from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PrivateKey

#: The specifications' examples. signed-note, "Verifier keys": this key verifies this note.
SPEC_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
SPEC_NOTE = (
    "This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfX"
    "ppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n"
)
#: tlog-checkpoint's example checkpoint (its key is not published: read, not verified),
#: and tlog-cosignature's, which carries a witness's cosignature too.
SPEC_CHECKPOINT = (
    "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n"
    "\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5"
    "/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
)
SPEC_COSIGNED = SPEC_CHECKPOINT + (
    "\u2014 witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9"
    "dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n"
)

#: filippo.io/torchwood, cmd/litewitness/testdata/mldsa.txt (commit fac5716b): a log whose
#: key is ML-DSA-44 (its vkey, type 0x06) and its checkpoint of size 1, signed with the
#: ML-DSA-44 signed message of tlog-cosignature at timestamp 0, as Go's implementation
#: writes them: a witness that trusts the key cosigns it.
TORCHWOOD_VKEY = (
    "example.com/mldsa-log+b5df45c5+BuhtcL97l3dcitjZ8Y9J54gmQ1TWn/BMF0yePKpTzhlFCkN6ouJDf+9"
    "kT9wve4/Y+JGXBUjlRvktAynZ6XOQSO+fOaxyPOQAwrtbZKYXnZWSQj9gHPz18q6brnckUv87Rsk/m5GIBvH8J"
    "3ymxZjUQS+DnAUIbctLsG2DD6I/ou0JtXpPLvfGhPDTkwc9QeFyBLBa02Pr9uuWCMohciLqRiFUo5+leUUDKba"
    "1g5TYjOjK/VKfntpdbEwoqhTJTG4armjUeXdrYDHeaaMaCAnW5F0lMWYsHjqzRpKjeTjgItseaWKSm+ga/mzTA"
    "gqsbo5Ob/AwaXf4Av7/mN+ZM6vHON/NE7Ip5vpXpCiNb9YbEQavn+fjNucFxffCacvzXghvaaQ+3C/5h5lpR8j"
    "eajBFsFIOvdkYKizt29lCjqZDkYQgVfB9nWeH6rbayMkBdDpmRH03cI+urD0Eb5zvRuGJn3PgfwdyQJ3WcDH5G"
    "qn5dkKs5NIVMBC+FfKeD47ruAIruda4JiiYCAxZbWgwzTI80N5lZFHEndmxKWaw6z/QyphuYkNyvZVZ0R3kH3J"
    "N4jdy9KKpNtFoQqnoBTGeEE/fXEEs5ByPlKnrrefRgWTqxssE4nPzHHr5GGgv/NKNTXNKI4LvNPH5yO3Vv/gIi"
    "DZxPPc1Jen8uKkmc0s3kT7XtcuWTlb+zdQeSme9ODj0IoVu29Eav2OsGJpReX7vZx9i2fVfHEMHY5nFew8L5Rx"
    "cWmZFFiYhMFZnLvk/SWmHcwr3DhzZchrODhabHQ+S6S49Ws+5aoBBPM3mOrSSKHgobdI7BJrdzdT07kjzyiyS9"
    "Gyv8iylUHHMuuh1O05RNRcX5SXmenwGDPcT9HuLS+hoesO0FQgEt+jAR7vVyUUU2C6g6FC6QNfHL/EUsulvYIA"
    "S5fOK7acOeVnoJlpI57Bq+uzLZm6g7IZD0xxQwZPYyT4ek99l9HxDSrVnU0rAr+Tq5vVh5YxvDkQVWroYIWek/"
    "AI5awjmhgpW4LPapBhLk2ipkF5CmU3T0cm3ET5f14gYQZfz23nCsmZ7qyqiQilgOxJzVYacVoGAStGzJNY1wEf"
    "26MADW5McyQzYI/3Fpaa4Ay6p2yFmcJMfpqZnu4flgWMqN1UpMbbJ6I7hOrCFWryExK/nvSbRrErHTkPz2wvVf"
    "I+enbFz86c0iNb7naQKv6LoIZYEHFOCEsWGL/sCChn6BR4nk1qAakyXEQwi96CkIa3AX562F8lhw6CU4x7T+NW"
    "qi2AWfEXImJenORhMP69hGIFsiLAVIjHtsWtJOi8cu+Brg1bFERkB4ryUTrLf/jFeb6KifZ+s8PZWclDaOLMIN"
    "Z3E78a5u6AzgXpigJsAJ1A4BY89muedrW2O8kFyh3TTTKyY4kedCW6L+8bFHV2Gce25ZulNC1mZs41XAI9Ctee"
    "YaWaiL7uGMXgyQ73wr4ftwAEMdsoQVQsQriutS1AhpBGvjzPCwD5LC5p1fa0WXBQ1puuaNqr3IJodmDLhEIAsZ"
    "cv1gdXMg8EQg9QLqgLLrBijU3GxFUQllS8lpQ4TLwFYUJ41+qt28JEeky/VzSEeQd/qob8cbyNM44o7INB+lbh"
    "EXEGWvVO8Ak+uWMY+PRKeY9OQcE6E27Nf3eUoHQXkwmXkjGgj0NKeXBIJc1k/Ws6WDbsU4graVKk5FQjwULcRn"
    "gOpyiJQ/n8sObkAPXr+1rImK3lQJnxif/B6p5/tsh4rrcUht4yVIvFAaqsgAAE="
)
TORCHWOOD_NOTE = (
    "example.com/mldsa-log\n1\n+zoErtsZtGO6sfiSV/v4UJSIyowisE8hvjw0q5+bD38=\n\n"
    "\u2014 example.com/mldsa-log td9FxQAAAAAAAAAAkjFvCxC6244QGemHL0hurmk5M3Hj6noQQt"
    "BM1TiwnC1lFmT+t+cUG9W0ENlRQt"
    "V20lJFLKCzoJ08ulQEkfiVueKHeMyURh97Iup0R9d41Monv472jkyfDoX3ILyX/kEOuSV4Ed2tU4VmtDSbP0ro"
    "fMWAbKJRMnzCpNIT5xMe3tRbWLVTvAtnX9OB4UMKL1dvGS/uuhqW9Ddjik2D8veitBvk3TbQcT8fanSyZqCbDZ"
    "5zzw5JS3Gu5oD1zK7z+KiyqbzKUhglESs7YXFbeU0E03FrXdAPYS6GAuZtBWTJp4DEm4rL+NqU6Xp0n2ehhqd1"
    "rFAJUAcsE5CFakQdlmKkkzVMy3VZYll5ptS0amlYfGqX6/N9bJAYdAoWWpdgCep5eXCutQcTQXc69UocKT99/v"
    "holeAP1097GfS+hNL2ndNS2ieMnj8XLD1LCHVoBjKZUIObB0lx3leGRe9VjYgTRAY2WlE+K32b6Iz1rKzzDD8Y"
    "BNQdkHgdx44uPOU3I+8szYS6NzQ2Z0QlqAtz0j9vZu9yEUUxCEORAiMAHLtV5oWZ/RvSE7qq5B0b8WrHGPGoR/"
    "qUNK4ECmlIe/SRo6M7yRrPs3das3ox1bkC3f92c98ewHLeQtLwwsqQJny6rlYaiaiPMxgdT2CVcJEcKOfaK8pd"
    "y2fucBDxHrQitpGkeLJLmWk6LLxR/Ut6s6xNyyKSuZlVslS40n9MJ837uMmJFyecKPliwAj8HzTWQywSkMpEQf"
    "Jyr4i2Kfa2paOZ4izmotRTfdvbFWlWFwuGLWOQ0X/pKaExpdNDwqahAwbfGkw/iHbsV7ZIlNIuSNs2ccQvnjM8"
    "xqkT6sYYVxYiHpmk5sOwGsdeiMdwQqn7Q/Lz+uc3F6k/r0Ox7MJTX6fPhFdhe8RJg/77USR/MIGiT4YZHV+Xgr"
    "tbV0jvMEgB4yEOircsScaBmLv18tTn1GiGlzFjK/s7gOzjk70jf1qCZ1MNgDAPstd/5sXdwYON0FnA5zPUp9yM"
    "kq1/wZq+DuePQDT6nj8zgFrkrvl8s7nibKKaL2bKcje5YP3CFcXLZoESZnC3BJkV85VqXlAKl+dctM3vNfMVrq"
    "k3/boBARw27mdKLsysIREkWR4caByW0csjL3Js9tn1hB0yf6hIGo8mvPIUjPIXn1rFSSKWkQlq15wu2gwEo9Fd"
    "VF5beMdF4LVwuO9PZ1Y4oXuRE2pIzMWq/jEzHAZ7GucP7yzU78X767ucrwO/AXjMlLUsLLFZaQcHHBsrQJLpy5"
    "w1Jn/L7XFyR2g0lBOdT+lSOhx7j33oIlzxmqdR47ovtkg+LJpbAJG7n/JiQ/h/xffe3VdqSsrB8S4ltKz+rq51"
    "swoZ59zmRzWaoNkyWX0eu0E7y6EfpfrKEmr0H+fYtVnJvCznWFKzbv7oDXKC0pOyKZsNctvFwhSGEEURCs1G+4"
    "IrAEWG2Y231thQ8HdMvaMcm+ocvBGhZjmE7bXFkdiJ7S09csFjljFDGCiGRiU+flxkyiqpa1DDgeFRWOEyNAdM"
    "eY2iQMTJU9ApqNVrPpjGbg7kL0HrfKCQM236d16DKfXIiUmZw/NONKnrliAIs6/WSzKdW/JUyTLiKfPV1ItODm"
    "w5eNz7lV36dR8g3us/bpWp4OaDIInrLxYZRfkLHLvXGGg5ogY2k/FMno/3UBbS0QfstK+ByB/pFVYCHWgDjctw"
    "pOHaqAAXAiWHAUh1KOpXBMv8qndpzhsYhvKbrL371aBST0e3iPW/K4x+kFfgdeClsftS9RnE8KDCf4Uz+9QMP9"
    "sxj4+ZACztE19eBVaSvCqv54wO6n5248UzbqPXzA1dweKQziw/FnPWC7qMrcs3jDi6PBPhpruk1xBy08MQg58l"
    "4YzuXrPm5gAyiUAyfNszvhTotaU02oljhvg24CycDo/2PvQY7sBmisIsVVeHssiRxg23CMgWHaPMDn6OM+IhF2"
    "xaAqJOjfnsFBWlvMg8LxsrBnOQ1YABVLLtMvCSaIvgBjPt8XtLn9gZ0HL9OvGsR3efWHTR5p4nZyuHH2Nm8F3n"
    "WKVkEI4p4H6Yo5O0hkzCi1ZB7QT3uEIeR0Hq3g/bLTzmm6XzsjWSmQ8CtPapmXX476QT44wU0CWJ096SqUGUq2"
    "ZCDg3kFkV0BuKPIfLCt4sYK9bjj8UZCqkhyHbVm2x+HQwk8mNnDbUd7PK89riPjA33KX0Sw32RE0uKtB0sC8m7"
    "t028aEupsRx56/M0jBgeYmEHuRrXpW9nuOkQPTBaHdmYBHNkzTF2arPzZK3diFuhKPvmSQh2CN6g8r0p3EN+dm"
    "ps1fIUfHM6emkEuaod+ZG83vyJsyd5B2oPMTVP12z8VJtDRAYfA5bRj+HEw2aD4f23u/Zq3PHk2C9T5LTAu28W"
    "CuO/EpXGSIkq1/hRpyE0qhJSnPN9/iE74PoU1OgjGBv6uSUsNhNZJeMe2W23s8EAyStB5+u83IBgUctrGwXzNd"
    "oC9LY1p+kNFSAZXIggNB3alVzoS+D9rcCYTUAafpkdwLaYq5/w0wRchljkG61rl+gZCiwtqZv3SHVxO7kRTAzf"
    "HsGDB1yc/9Sz++IMGyFHYvuqtclhpHPPToFByaVl687b1P4t2i/U4fWPZ4BBhN5Q7HGTxubspw1GY2MjBYU5OX"
    "vEJu9aWeibkM/fg6QrxPRYNsJBNJQRywMjYHj6AefrZeGXGxSNgS50kCNBvV7XTli/17y3MFgR4WfNmBK3BqKb"
    "87v3DBMVnLHcqvw1ZVjFPv91q0XYaDdVFHqOnS4Fh5nfwh1qfuvKrUZlwFPcwW+pG4YDyjx90MTFugpQ6KfEus"
    "mUhB5Dqr79nYWbOhW3e0PCEZtxmVrH9EtCHEgO6wnkWjPke6XULARu0ECF1gZvQczEjKfzxCt6Rknz+27lXyzg"
    "zRyHWxr0kB/pFty+8IebrDfIW9757d+1QLonDTmkLQiirF0ygsgQALmk1KljcHD/qiAZPHh5YX+Q2VdDfIfGeM"
    "XmCg3nX5r5DINcx47fNHtgWeGn8MjF8Hnff6x+ZU/7YqcBrDOvGqn46FBvuRY0+mWkRo576207vQR/023owl7p"
    "XZ5p/75V5yDkTZWDtXsfKjpypcxrWIBsg5GC25nZdjQQGBtFUF1pfn+xvunq9AEIFidYY2Vyc3mYw8TW7PkVKi"
    "s5PENhdbfJHDtIdIiQsLe+1Nr+/wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA4eKDU=\n"
)


class Line(NamedTuple):
    name: str
    key_hash: bytes
    signature: bytes


def split(note: str) -> tuple[str, list[Line]]:
    """The note's text (its final newline included) and its signature lines."""
    assert all(c == "\n" or ord(c) >= 0x20 for c in note), "a control character"
    cut = note.rindex("\n\n")
    text, block = note[: cut + 1], note[cut + 2 :]
    assert block.endswith("\n") and block.count("\n") >= 1
    lines = []
    for line in block.splitlines():
        assert line[:2] == "\u2014 ", line
        name, coded = line[2:].split(" ")
        raw = base64.standard_b64decode(coded)
        lines.append(Line(name, raw[:4], raw[4:]))
    return text, lines


def checkpoint(text: str) -> tuple[str, int, bytes, list[str]]:
    """tlog-checkpoint, "Note text": the origin, the size, the root, the extension lines."""
    origin, size, root, *rest = text.split("\n")
    assert rest[-1] == "" and all(rest[:-1]) and origin and size == str(int(size)), text
    return origin, int(size), base64.standard_b64decode(root), rest[:-1]


def key_hash(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(f"{name}\n".encode() + bytes([kind]) + public).digest()[:4]


def vkey(text: str) -> tuple[str, bytes, int, bytes]:
    name, hex_hash, coded = text.split("+", 2)
    material = base64.standard_b64decode(coded)
    assert key_hash(name, material[0], material[1:]).hex() == hex_hash
    return name, bytes.fromhex(hex_hash), material[0], material[1:]


def make_vkey(name: str, kind: int, public: bytes) -> str:
    """signed-note, "Verifier keys": name, hex key ID, base64 of the type and the key."""
    coded = base64.standard_b64encode(bytes([kind]) + public).decode()
    return f"{name}+{key_hash(name, kind, public).hex()}+{coded}"


def verifies(note: str, name: str, public: bytes) -> bool:
    """Whether a signature line of ``note`` is the Ed25519 signature (type 0x01) of the key
    ``public`` under ``name`` over its text."""
    text, lines = split(note)
    wanted = (name, key_hash(name, 0x01, public))
    return any(_good(public, line.signature, text.encode())
               for line in lines if (line.name, line.key_hash) == wanted)  # fmt: skip


def subtree_message(name: str, stamp: int, text: str) -> bytes:
    """tlog-cosignature, "ML-DSA-44 signed message": the ``cosigned_message`` struct of
    RFC 8446 §3 (``opaque x<1..2^8-1>``: a length byte, then the bytes) of a checkpoint's
    whole tree: start 0, end its size; its extension lines not in it."""
    origin, size, root, _ = checkpoint(text)
    return (b"subtree/v1\n\0" + bytes([len(name.encode())]) + name.encode()
            + struct.pack(">Q", stamp) + bytes([len(origin.encode())]) + origin.encode()
            + struct.pack(">QQ", 0, size) + root)  # fmt: skip


def cosigned_at(note: str, name: str, public: bytes) -> int | None:
    """The timestamp of the witness ``name``'s verified cosignature of the checkpoint
    ``note``: of type 0x04 for a 32-byte Ed25519 key, 0x06 for a 1,312-byte ML-DSA-44 key;
    ``None`` without one."""
    text, lines = split(note)
    kind = 0x06 if len(public) == 1312 else 0x04
    for line in lines:
        if (line.name, line.key_hash) != (name, key_hash(name, kind, public)):
            continue
        (stamp,) = struct.unpack(">Q", line.signature[:8])
        if kind == 0x06 and _good_mldsa(
            public, line.signature[8:], subtree_message(name, stamp, text)
        ):
            return int(stamp)
        message = f"cosignature/v1\ntime {stamp}\n".encode() + text.encode()
        if kind == 0x04 and _good(public, line.signature[8:], message):
            return int(stamp)
    return None


def cosign(note: str, name: str, private: Ed25519PrivateKey | MLDSA44PrivateKey, stamp: int) -> str:
    """A cosignature line of the checkpoint ``note`` by the witness ``name`` at ``stamp``,
    made here: the key ID, the timestamp (8 bytes, big-endian), the signature."""
    text, _ = split(note)
    public = private.public_key().public_bytes_raw()
    if len(public) == 1312:
        kind, signed = 0x06, private.sign(subtree_message(name, stamp, text))
    else:
        kind = 0x04
        signed = private.sign(f"cosignature/v1\ntime {stamp}\n".encode() + text.encode())
    raw = key_hash(name, kind, public) + struct.pack(">Q", stamp) + signed
    return f"\u2014 {name} {base64.standard_b64encode(raw).decode()}\n"


def request(old: int, proof: list[bytes], note: str) -> str:
    """tlog-witness, add-checkpoint: the old size line, a consistency proof line a hash,
    an empty line, the checkpoint."""
    lines = [f"old {old}\n", *(base64.standard_b64encode(h).decode() + "\n" for h in proof)]
    return "".join(lines) + "\n" + note


def parse_request(body: str) -> tuple[int, list[bytes], str]:
    """tlog-witness, add-checkpoint: the old size (ASCII decimal, no leading zeroes), the
    consistency proof (a base64 hash a line, 63 at most), the checkpoint after the empty
    line; each line ends in a newline."""
    head, empty, note = body.partition("\n\n")
    assert empty and note.endswith("\n"), body[:80]
    old, *proof = head.split("\n")
    assert old.startswith("old ") and old[4:] == str(int(old[4:])) and len(proof) <= 63, old
    hashes = [base64.b64decode(line, validate=True) for line in proof]
    assert all(len(h) == 32 for h in hashes)
    return int(old[4:]), hashes, note


def consistent(first: int, second: int, first_hash: bytes, second_hash: bytes,
               path: list[bytes]) -> bool:  # fmt: skip
    """RFC 9162 §2.1.4.2, step by step: whether ``path`` proves the tree of ``second``
    leaves, root ``second_hash``, extends the one of ``first`` leaves, root ``first_hash``
    (0 < first < second; tlog-witness's consistency proof lines)."""
    if not path:
        return False
    if first & (first - 1) == 0:
        path = [first_hash, *path]
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = hashlib.sha256(b"\x01" + c + fr).digest()
            sr = hashlib.sha256(b"\x01" + c + sr).digest()
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = hashlib.sha256(b"\x01" + sr + c).digest()
        fn, sn = fn >> 1, sn >> 1
    return fr == first_hash and sr == second_hash and sn == 0


def log_signed(text: str, origin: str, private: Ed25519PrivateKey) -> str:
    """The note of the checkpoint ``text`` signed by the log ``origin`` (type 0x01)."""
    raw = key_hash(origin, 0x01, private.public_key().public_bytes_raw()) + private.sign(
        text.encode()
    )
    return f"{text}\n\u2014 {origin} {base64.standard_b64encode(raw).decode()}\n"


def _good(public: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except InvalidSignature:
        return False
    return True


def _good_mldsa(public: bytes, signature: bytes, message: bytes) -> bool:
    from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA44PublicKey

    try:
        MLDSA44PublicKey.from_public_bytes(public).verify(signature, message)
    except InvalidSignature:
        return False
    return True
