"""The store's values as the source writes them, decoded within bounds: anyone may write them."""

from __future__ import annotations

import json
import zlib
from typing import Any

# The formats are those of docs/protocol.md, whose golden files the suites of both sides decode.
# A sealed message: a version byte and an HMAC-SHA256 before the gzip payload. Reading needs no
# key; only the query's driver and endpoints can write one that they accept.
SEAL = 1 + 32
_PARTS = b"aof-parts "
# Anyone who can write the store can write any value there, and status checks no seal: every
# value is bounded as the JVM bounds the offset backup (OffsetBackup.MaxJsonBytes), a node's
# answer in full too (the JVM leaves it unbounded only because it opens none whose seal fails).
MAX_VALUE_BYTES = 1 << 30
_PART_BYTES = 1_000_000  # of a value in parts, each part at most (ZnodeValues.PartBytes)
_INFLATED = 1 << 20  # decompressed at a time


def manifest(head: bytes) -> tuple[str, int, int] | None:
    """Return the generation, count and length a value's parts manifest names, if it is one.

    Raises
    ------
    ValueError
        For a manifest that is not well formed, or names a value larger than
        ``MAX_VALUE_BYTES`` or more parts than its length fills.

    """
    if not head.startswith(_PARTS):
        return None
    try:
        generation, count, length = head[len(_PARTS) :].decode("ascii").split(" ")
        named = generation, int(count), int(length)
    except ValueError:
        raise ValueError("is a parts manifest that is not well formed") from None
    if not 0 < named[2] <= MAX_VALUE_BYTES:
        raise ValueError(f"is a parts manifest of {named[2]} bytes, beyond {MAX_VALUE_BYTES}")
    # As many parts as its length fills: a forged count would have status read them all.
    if not 0 < named[1] <= -(-named[2] // _PART_BYTES):
        raise ValueError(f"is a parts manifest of {named[1]} parts for {named[2]} bytes")
    return named


def gunzip(data: bytes, limit: int = MAX_VALUE_BYTES) -> bytearray:
    """Return what gzip ``data`` holds, decompressed a MiB at a time up to ``limit`` bytes.

    Raises
    ------
    ValueError
        When it holds more than ``limit`` bytes (a gzip bomb, say), or is no whole gzip stream.

    """
    inflate = zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer
    out = bytearray()
    pending = data
    try:
        while not inflate.eof:
            chunk = inflate.decompress(pending, _INFLATED)
            if not chunk and not inflate.unconsumed_tail:
                raise ValueError("is not whole: its gzip stream ends early")
            out += chunk
            if len(out) > limit:
                raise ValueError(f"expands beyond {limit} bytes")
            pending = inflate.unconsumed_tail
    except zlib.error as e:
        raise ValueError(f"is not gzip ({e})") from None
    return out


def decode_sealed(message: bytes) -> dict[str, Any]:
    """Return the JSON of a sealed request or response (the seal is not checked).

    Raises
    ------
    ValueError
        For a value that is not one, or expands beyond ``MAX_VALUE_BYTES``.

    """
    return json_object(gunzip(message[SEAL:]))


def decode_backup(value: bytes) -> dict[str, Any]:
    """Return the JSON of the offset backup.

    Raises
    ------
    ValueError
        For a value that is not one, or expands beyond ``MAX_VALUE_BYTES``.

    """
    return json_object(gunzip(value))


def json_object(text: bytes | bytearray) -> dict[str, Any]:
    try:
        decoded = json.loads(text)
    except ValueError as e:
        raise ValueError(f"is not JSON ({e})") from None
    except RecursionError:  # arrays nested a hundred thousand deep
        raise ValueError("is JSON nested too deep") from None
    if not isinstance(decoded, dict):
        raise ValueError("is not a JSON object")
    return decoded
