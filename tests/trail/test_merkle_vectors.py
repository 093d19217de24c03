"""rep_engine/trail/merkle.py's verifiers against transparency-dev/merkle's known answers
(tests/support/data/transparency-dev-merkle.json, Apache-2.0: tests/support/data/NOTICE):
every inclusion and consistency vector, the happy paths and the negative cases (a bit of
the proof flipped, a node added, removed or moved, a wrong size or index, a wrong or empty
root, a consistency proof from size 0), each verified or refused as the vector says."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from rep_engine.trail.merkle import verify_consistency, verify_inclusion
from tests.support.paths import ROOT

VECTORS: dict[str, dict[str, Any]] = json.loads(
    (ROOT / "tests" / "support" / "data" / "transparency-dev-merkle.json").read_text()
)["vectors"]


def raw(text: str | None) -> bytes:
    return base64.b64decode(text or "")


def proof(vector: dict[str, Any]) -> list[bytes]:
    return [raw(node) for node in vector["proof"] or []]


@pytest.mark.parametrize("name", [name for name in VECTORS if "/inclusion/" in name])
def test_an_inclusion_vector(name: str) -> None:
    vector = VECTORS[name]
    held = verify_inclusion(raw(vector["leafHash"]), vector["leafIdx"], vector["treeSize"],
                            proof(vector), raw(vector["root"]))  # fmt: skip
    assert held is not vector["wantErr"], vector["desc"]


@pytest.mark.parametrize("name", [name for name in VECTORS if "/consistency/" in name])
def test_a_consistency_vector(name: str) -> None:
    vector = VECTORS[name]
    held = verify_consistency(vector["size1"], vector["size2"], raw(vector["root1"]),
                              raw(vector["root2"]), proof(vector))  # fmt: skip
    assert held is not vector["wantErr"], vector["desc"]


def test_the_vectors_are_all_there_negative_cases_too() -> None:
    wanted = [vector["wantErr"] for vector in VECTORS.values()]
    assert len(wanted) == 196 and wanted.count(False) == 12, wanted.count(False)
    assert any(name.endswith("size1-is-zero-and-size2-is-not-zero.json") for name in VECTORS)
