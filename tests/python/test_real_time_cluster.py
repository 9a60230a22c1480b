"""Real-time mode on a standalone cluster: a host's executors killed in the middle of a batch.

Spark runs a real-time batch's task again from the batch's start when its executor is lost, so
the lines the first attempt delivered come again. They must come with the same
``(host, file_id, offset)``, so that a sink keyed by those holds each line once, and none may be
lost. The task's new attempt first lands on the other host, which hands it back.
"""

from __future__ import annotations

import signal
from collections import defaultdict
from pathlib import Path

import figures

from apps import host_dirs, start_app
from pyspark_aof.testing import LocalCluster, ZooKeeperServer
from pyspark_aof.testing._process import wait_until
from sink import assert_exactly_once, attempts, key, once_each


def append_padded(path: Path, prefix: str, first: int, count: int) -> list[str]:
    """Lines of 1,000 bytes: Python's ``foreach`` gets rows through a pipe flushed every 64 KiB,
    so the writer sees them while the batch runs only when they are this large."""
    ids = [f"{prefix}-{n}" for n in range(first, first + count)]
    pad = "x" * 980
    with path.open("ab") as out:
        out.write("".join(f"{i} {pad}\n" for i in ids).encode())
    return ids


def test_executors_killed_mid_batch_lines_replayed_with_the_same_ids_none_lost(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    (busy, busy_dir), (other, other_dir) = host_dirs(cluster, "rtm")
    written = {
        busy.address: append_padded(busy_dir / "app.log", busy.address, 1, 400),
        other.address: append_padded(other_dir / "app.log", other.address, 1, 400),
    }
    app = start_app(
        cluster,
        tmp_path,
        "rtm",
        zookeeper.address,
        pattern=r"app\.log(\.1)?",
        # Longer than the test's steps: the kill lands in the first batch.
        real_time="60 seconds",
        # The task of the killed executors goes at once to the other host, which hands it back.
        conf={"spark.locality.wait": "0"},
    )

    def read(host: str, first: int) -> int:
        """How many of ``host``'s lines from ``<host>-<first>`` on were delivered."""
        return sum(
            1
            for v in once_each(app.output).values()
            if v["host"] == host and int(str(v["value"]).split()[0].split("-")[1]) >= first
        )

    wait_until(lambda: read(busy.address, 1) >= 100, 180, "the first lines delivered")
    (busy_dir / "app.log").rename(busy_dir / "app.log.1")  # a rotation within the batch
    written[busy.address] += append_padded(busy_dir / "app.log", busy.address, 401, 400)
    wait_until(lambda: read(busy.address, 401) >= 100, 60, "the rotated file's successor read")
    assert busy.signal_executors(signal.SIGKILL)
    written[busy.address] += append_padded(busy_dir / "app.log", busy.address, 801, 200)
    written[other.address] += append_padded(other_dir / "app.log", other.address, 401, 200)
    total = sum(len(ids) for ids in written.values())
    wait_until(lambda: len(once_each(app.output)) >= total, 240, f"{total} lines")
    app.stop()

    assert_exactly_once(list(once_each(app.output).values()), written)
    # Lines the killed attempt delivered came again from its retry, under the same keys.
    first_batch = defaultdict(set)
    for name, rows in attempts(app.output).items():
        if name.startswith("0-"):
            for row in rows:
                if row["host"] == busy.address:
                    first_batch[key(row)].add(name)
    replayed = [k for k, names in first_batch.items() if len(names) > 1]
    figures.record("real-time kill: lines delivered again by the retry", len(replayed))
    assert replayed, "no line of the killed attempt came again: was it killed mid-batch?"
    assert f"a task for files of host {busy.address} ran on" in app.text(), "never handed back"
