"""What a sink received: a file sink's committed files (those its ``_spark_metadata`` log lists),
or a real-time query's rows as each task attempt wrote them (``cluster_app.AttemptFiles``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

Key = tuple[str, str, int]


def committed_rows(output: Path) -> list[dict[str, Any]]:
    """Rows of every file the sink committed, in no particular order.

    Spark's log holds one file per batch, every tenth compacted into ``<n>.compact`` holding all
    entries so far; files it has not listed (an aborted batch's) are not part of the output.
    """
    log = output / "_spark_metadata"
    if not log.is_dir():
        return []
    batches = {}
    for f in log.iterdir():
        if f.name.startswith("."):
            continue  # a log entry still being written
        batches[int(f.name.split(".")[0])] = f
    compacts = [n for n, f in batches.items() if f.name.endswith(".compact")]
    first = max(compacts, default=-1)
    rows: list[dict[str, Any]] = []
    for n in sorted(b for b in batches if b >= first):
        for entry in batches[n].read_text().splitlines()[1:]:  # after the version line
            listed = json.loads(entry)
            if listed.get("action", "add") == "add":
                part = Path(unquote(urlparse(listed["path"]).path))
                rows.extend(json.loads(line) for line in part.read_text().splitlines())
    return rows


def line_ids(rows: list[dict[str, Any]]) -> Counter[str]:
    """How often each line id (the first word of a line) was delivered."""
    return Counter(str(r["value"]).split(" ", 1)[0] for r in rows)


def assert_exactly_once(rows: list[dict[str, Any]], written: dict[str, list[str]]) -> None:
    """Every id written on each host delivered once, nothing else, each row under its host."""
    counts = line_ids(rows)
    expected = Counter(i for ids in written.values() for i in ids)
    duplicated = sorted(i for i, n in counts.items() if n > 1)
    missing = sorted(expected - counts)
    unexpected = sorted(counts - expected)
    assert not duplicated, f"{len(duplicated)} lines delivered more than once: {duplicated[:5]}"
    assert not missing, f"{len(missing)} lines lost: {missing[:5]}"
    assert not unexpected, f"{len(unexpected)} lines never written: {unexpected[:5]}"
    for host, ids in written.items():
        mine = set(ids)
        wrong = [r for r in rows if str(r["value"]).split(" ", 1)[0] in mine and r["host"] != host]
        assert not wrong, f"lines of {host} delivered under another host: {wrong[:3]}"


def attempts(output: Path) -> dict[str, list[dict[str, Any]]]:
    """The rows each task attempt delivered, by its file's name ``<epoch>-<partition>-<id>``."""
    found = {}
    for part in output.glob("*.jsonl"):
        text = part.read_text()
        whole = text[: text.rfind("\n") + 1]  # a line being written is not a row yet
        found[part.stem] = [json.loads(line) for line in whole.splitlines()]
    return found


def key(row: dict[str, Any]) -> Key:
    return (row["host"], row["file_id"], row["offset"])


def once_each(output: Path) -> dict[Key, dict[str, Any]]:
    """Every row delivered, once per key; a key delivered with two lines fails."""
    rows: dict[Key, dict[str, Any]] = {}
    for delivered in attempts(output).values():
        for row in delivered:
            seen = rows.setdefault(key(row), row)
            assert seen["value"] == row["value"], f"one key, two lines: {seen} and {row}"
    return rows
