"""The rules Python applies too, held to the tables the JVM's suite writes (``tests/tables/``).

``SharedTablesSuite`` writes what the connector's Scala code does: the znode layout with host
names encoded in it, a directory's wildcard characters, a shell glob as a regex. Python must
do the same, case for case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pyspark_aof import _znodes, tail
from pyspark_aof._arguments import glob_as_regex

TABLES = Path(__file__).parents[1] / "tables"
HOST_ZNODES = {"latches": "latch", "endpoints": "endpoint", "reports": "report"}


def _table(name: str) -> Any:
    return json.loads((TABLES / name).read_text(encoding="utf-8"))


def test_status_reads_the_znodes_the_jvm_writes() -> None:
    table = _table("znodes.json")
    store, znodes = table["metaStore"], table["znodes"]
    run = _znodes.RunZnodes.of(store, table["runId"])
    assert _znodes.offsets(store) == znodes["offsets"]
    assert _znodes.runs(store) == znodes["runs"]
    for znode in ("run", "driver", "latches", "endpoints", "reports", "nodes"):
        assert getattr(run, znode) == znodes[znode], znode
    assert len(table["hosts"]) > 10
    for host in table["hosts"]:
        name = host["host"]
        assert _znodes.encode_host(name) == host["encoded"], name
        assert _znodes.decode_host(host["encoded"]) == name
        for parent, znode in HOST_ZNODES.items():
            assert _znodes.of_host(getattr(run, parent), name) == host[znode], (znode, name)


def test_a_directory_is_a_glob_for_the_same_characters() -> None:
    table = _table("globs.json")
    assert len(table["checked"]) > 90
    for c in table["checked"]:
        assert (c in tail.WILDCARDS) == (c in table["wildcards"]), repr(c)


def test_a_shell_glob_is_taken_for_the_same_regex() -> None:
    globs = _table("globs.json")["globs"]
    assert len(globs) > 5
    for glob, regex in globs.items():
        assert glob_as_regex(glob) == regex, glob
