"""The formats of docs/protocol.md, read from the golden files the Scala suites check too.

The Scala side writes and reads these values; ``pyspark-aof status`` only reads them. A change to
a format on the Scala side changes the golden files (its suite fails until they are written
again), and then these tests say whether ``status`` still reads them.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import hmac
import json
from pathlib import Path

import pytest

from pyspark_aof import _store_values as values

GOLDEN = Path(__file__).parents[2] / "docs" / "protocol"


def golden_json(name: str) -> object:
    return json.loads((GOLDEN / name).read_text())


def test_a_sealed_message_is_a_version_an_hmac_of_the_run_key_and_gzip_json() -> None:
    key = base64.b64decode((GOLDEN / "key.txt").read_text().strip())
    for name in ("request", "response"):
        message = (GOLDEN / f"{name}.bin").read_bytes()
        assert message[0] == 1
        expected = hmac.new(key, message[33:], hashlib.sha256).digest()
        assert hmac.compare_digest(message[1:33], expected)
        assert values.decode_sealed(message) == golden_json(f"{name}.json")


def test_status_finds_the_report_fields_it_shows() -> None:
    report = values.decode_sealed((GOLDEN / "response.bin").read_bytes())
    shown = {"path", "dev", "ino", "size", "lineEnd"}
    assert all(shown <= f.keys() for f in report["files"])
    assert any("unreadable" in f for f in report["files"])
    assert "unlisted" in report


def test_status_reads_the_offset_backup() -> None:
    backup = values.decode_backup((GOLDEN / "offsets.bin").read_bytes())
    assert backup == golden_json("offsets.json")
    assert backup["version"] == 1
    for host in backup["hosts"].values():
        assert all({"path", "dev", "ino", "pos"} <= f.keys() for f in host["files"].values())


def test_a_parts_manifest_names_generation_count_and_length() -> None:
    named = values.manifest((GOLDEN / "manifest.bin").read_bytes())
    assert named is not None
    assert list(named) == golden_json("manifest.json")
    assert values.manifest(b"\x01not a manifest") is None


@pytest.mark.parametrize(
    ("head", "why"),
    [
        pytest.param(b"aof-parts g 2 1073741825", "of 1073741825 bytes, beyond", id="too-long"),
        pytest.param(b"aof-parts g 3 2000000", "of 3 parts for 2000000 bytes", id="too-many"),
        pytest.param(b"aof-parts g 0 10", "of 0 parts", id="none"),
        pytest.param(b"aof-parts g 1", "not well formed", id="short"),
        pytest.param(b"aof-parts g x 10", "not well formed", id="count"),
    ],
)
def test_a_forged_manifest_is_refused(head: bytes, why: str) -> None:
    # Anyone who can write the store can write one: status would read the parts it names.
    with pytest.raises(ValueError, match=why):
        values.manifest(head)


def test_a_value_is_decompressed_up_to_a_bound() -> None:
    value = gzip.compress(bytes(3 << 20))
    assert values.gunzip(value, limit=3 << 20) == bytes(3 << 20)
    with pytest.raises(ValueError, match=f"expands beyond {2 << 20} bytes"):
        values.gunzip(value, limit=2 << 20)
    with pytest.raises(ValueError, match="ends early"):
        values.gunzip(value[:-100])
    with pytest.raises(ValueError, match="is not gzip"):
        values.gunzip(b"\x01" + value)


def test_status_reads_the_nodes_to_read_and_those_unread() -> None:
    nodes = golden_json("nodes.json")
    assert nodes == {"expected": 3, "unread": ["node-2", "node-3"]}
