"""The Merkle tree of a trail's records, as Certificate Transparency hashes a log (RFC 9162
§2.1, SHA-256), pure: the root over the records in their order, an inclusion proof of one
record (§2.1.3) and a consistency proof between two sizes of the same trail (§2.1.4), and
their verification, which needs the proof, the record and the root, never the trail.

A leaf is one line of the trail's file as the next line's ``prev`` hashes it (its bytes
uncompressed, ``prev`` and the line feed included): RFC 9162 §2.1.1's ``HASH(0x00 ||
d)``, and a node ``HASH(0x01 || left || right)``. The tree of ``n`` leaves splits at
``k``, the largest power of two smaller than ``n``; built level by level from the leaves,
a last node without a sibling is carried up unchanged, which gives the same tree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

#: RFC 9162 §2.1.1: the hash of an empty tree.
EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    """RFC 9162 §2.1.1: ``HASH(0x00 || d)``."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 9162 §2.1.1: ``HASH(0x01 || left || right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


class Frontier:
    """The root of a growing tree from one leaf hash at a time, holding only the roots of
    its largest perfect subtrees (at most one per bit of its size): what a trail's writer
    keeps to say its tree head at the end of each run."""

    def __init__(self) -> None:
        #: The roots of the perfect subtrees, largest (leftmost) first, with their sizes.
        self._subtrees: list[tuple[int, bytes]] = []
        self.size = 0

    def add(self, leaf: bytes) -> None:
        """Append one leaf hash (:func:`leaf_hash`)."""
        size, root = 1, leaf
        while self._subtrees and self._subtrees[-1][0] == size:
            left = self._subtrees.pop()[1]
            size, root = size * 2, node_hash(left, root)
        self._subtrees.append((size, root))
        self.size += 1

    def roots(self) -> list[bytes]:
        """The roots of its perfect subtrees, largest first: what a tree head keeps of it
        (``frontier``) so that the writer of the next run goes on without reading the
        trail again."""
        return [root for _, root in self._subtrees]

    @classmethod
    def resumed(cls, size: int, roots: Sequence[bytes]) -> Frontier | None:
        """The frontier of a tree of ``size`` leaves from its :meth:`roots` (``None``: not
        one root per bit of ``size``, or one that is not 32 bytes)."""
        sizes = [1 << bit for bit in reversed(range(size.bit_length())) if size >> bit & 1]
        if len(sizes) != len(roots) or any(len(root) != 32 for root in roots):
            return None
        frontier = cls()
        frontier._subtrees, frontier.size = list(zip(sizes, roots, strict=True)), size
        return frontier

    def root(self) -> bytes:
        """The root over every leaf added (:data:`EMPTY_ROOT`: none): the subtrees joined
        from the right, as §2.1.1's split at the largest power of two joins them."""
        if not self._subtrees:
            return EMPTY_ROOT
        root = self._subtrees[-1][1]
        for _, left in reversed(self._subtrees[:-1]):
            root = node_hash(left, root)
        return root


class MerkleTree:
    """Every level of the tree over ``leaves`` (leaf hashes), for proofs, each level one
    byte string of its 32-byte nodes: about 64 bytes a leaf (a million lines: 64 MB), never
    the lines themselves."""

    def __init__(self, leaves: Iterable[bytes] | bytes) -> None:
        """``leaves``: the leaf hashes, or a byte string of them end to end."""
        below = leaves if isinstance(leaves, (bytes, bytearray)) else b"".join(leaves)
        self.levels: list[bytes] = [bytes(below)]
        while len(below) > 32:
            above = bytearray()
            for i in range(0, len(below) - 32, 64):
                above += node_hash(below[i : i + 32], below[i + 32 : i + 64])
            if len(below) % 64:
                above += below[-32:]  # no sibling: carried up unchanged
            self.levels.append(below := bytes(above))

    @property
    def size(self) -> int:
        return len(self.levels[0]) // 32

    def node(self, level: int, index: int) -> bytes:
        return self.levels[level][index * 32 : index * 32 + 32]

    def root(self) -> bytes:
        return self.levels[-1] if self.size else EMPTY_ROOT

    def inclusion_proof(self, index: int) -> list[bytes]:
        """RFC 9162 §2.1.3.1's ``PATH(m, D[n])`` of the leaf at ``index``: the sibling at
        each level, from the leaf up (a level where it has none adds nothing)."""
        if not 0 <= index < self.size:
            raise IndexError(f"no leaf {index} in a tree of {self.size}")
        path = []
        for level in range(len(self.levels) - 1):
            sibling = index ^ 1
            if sibling * 32 < len(self.levels[level]):
                path.append(self.node(level, sibling))
            index //= 2
        return path

    def subtree_root(self, start: int, end: int) -> bytes:
        """``MTH(D[start:end])`` of §2.1.1, for the ranges a consistency proof names."""
        width = end - start
        if width & (width - 1) == 0 and start % width == 0:  # a perfect subtree: a node
            return self.node(width.bit_length() - 1, start // width)
        split = 1 << ((width - 1).bit_length() - 1)
        return node_hash(
            self.subtree_root(start, start + split), self.subtree_root(start + split, end)
        )

    def consistency_proof(self, old_size: int) -> list[bytes]:
        """RFC 9162 §2.1.4.1's ``PROOF(m, D[n])``: that the tree of ``old_size`` leaves is
        the start of this one."""
        if not 0 < old_size <= self.size:
            raise ValueError(f"no consistency proof from {old_size} leaves to {self.size}")
        return self._subproof(old_size, 0, self.size, True)

    def _subproof(self, m: int, start: int, end: int, whole: bool) -> list[bytes]:
        """§2.1.4.1's ``SUBPROOF(m, D[start:end], b)``."""
        n = end - start
        if m == n:
            return [] if whole else [self.subtree_root(start, end)]
        k = 1 << ((n - 1).bit_length() - 1)
        if m <= k:
            return [*self._subproof(m, start, start + k, whole), self.subtree_root(start + k, end)]
        return [*self._subproof(m - k, start + k, end, False), self.subtree_root(start, start + k)]


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> bool:
    """RFC 9162 §2.1.3.2: whether ``proof`` proves the leaf hash ``leaf`` at ``index`` in
    the tree of ``size`` leaves whose root is ``root`` (each hash 32 bytes: an empty leaf
    hash and root are no proof)."""
    if not 0 <= index < size or len(leaf) != 32 or len(root) != 32:
        return False
    fn, sn, result = index, size - 1, leaf
    for sibling in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            result = node_hash(sibling, result)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            result = node_hash(result, sibling)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and result == root


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """RFC 9162 §2.1.4.2: whether ``proof`` proves that the tree of ``old_size`` leaves
    (root ``old_root``) is the start of the tree of ``new_size`` (root ``new_root``): the
    log only grew."""
    if not 0 < old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: its root is a node of the path
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    first = second = path[0]
    for node in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            first, second = node_hash(node, first), node_hash(node, second)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            second = node_hash(second, node)
        fn, sn = fn >> 1, sn >> 1
    return first == old_root and second == new_root and sn == 0
