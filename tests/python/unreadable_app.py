"""A query over files and a directory that cannot be read for a while.

Run by ``test_unreadable.py`` as a user whom permissions bind (root reads everything). Prints one
JSON object: the ids written, the rows the sink had while each part was unreadable, and the
source's ``bytesLost`` at every progress.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql.streaming.query import StreamingQuery

import pyspark_aof as aof
from sink import committed_rows


def _write(out: Any, ids: list[str]) -> list[str]:
    out.write("".join(f"{i} held end\n" for i in ids).encode())
    out.flush()
    return ids


def _triggers(query: StreamingQuery, held: dict[str, Any], tag: str) -> list[str]:
    """Three rounds of 20 lines to each file, each round's triggers run before the next."""
    ids: list[str] = []
    for step in range(3):
        for prefix, out in held.items():
            ids += _write(out, [f"{prefix}-{tag}{step}-{n}" for n in range(20)])
        query.processAllAvailable()
    return ids


def _lost(query: StreamingQuery) -> list[int]:
    return [int(s["metrics"]["bytesLost"]) for p in query.recentProgress for s in p["sources"]]


def main(work: Path) -> None:
    """Write, make unreadable, write on, make readable again; print what was seen."""
    logs = work / "logs"
    logs.mkdir()
    spark = (
        aof.configure(SparkSession.builder.master("local[2]").appName("unreadable"))
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    output = work / "out"
    query = (
        aof.read_stream(spark, f"{logs}/app-.*\\.log")
        .writeStream.format("json")
        .option("checkpointLocation", str(work / "checkpoint"))
        .start(str(output))
    )
    a, b = logs / "app-a.log", logs / "app-b.log"
    seen: dict[str, int] = {}
    # Applications keep their descriptors: they write on while no one else may read.
    with a.open("ab") as held_a, b.open("ab") as held_b:
        ids = _write(held_a, [f"a-{n}" for n in range(50)])
        ids += _write(held_b, [f"b-{n}" for n in range(50)])
        query.processAllAvailable()

        a.chmod(0)
        assert not os.access(a, os.R_OK), "permissions do not bind this user"
        ids += _triggers(query, {"a": held_a, "b": held_b}, "locked")
        seen["fileUnreadable"] = len(committed_rows(output))
        a.chmod(0o644)
        query.processAllAvailable()

        logs.chmod(0)
        assert not os.access(logs, os.R_OK)
        ids += _triggers(query, {"a": held_a, "b": held_b}, "unlisted")
        seen["directoryUnlisted"] = len(committed_rows(output))
        logs.chmod(0o755)
        query.processAllAvailable()
    query.stop()
    spark.stop()
    print(json.dumps({"ids": ids, "seen": seen, "bytesLost": _lost(query)}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
