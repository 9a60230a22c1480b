"""The command line: ``tail`` against real files, ``status`` against a real query's znodes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kazoo.client import KazooClient
from pyspark.sql import SparkSession

import pyspark_aof as aof
from pyspark_aof.testing import ZooKeeperServer
from pyspark_aof.testing._process import wait_until
from writers import append

CLI = [sys.executable, "-m", "pyspark_aof"]


@pytest.fixture(scope="module")
def zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooKeeperServer]:
    with ZooKeeperServer(tmp_path_factory.mktemp("zookeeper")) as server:
        yield server


def test_tail_prints_each_line_once_and_stops_cleanly_on_ctrl_c(
    zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    log = tmp_path / "app.log"
    written = append(log, [f"before-{n}" for n in range(200)])
    tail = subprocess.Popen(
        [
            *CLI,
            "tail",
            f"{tmp_path}/app\\.log",
            "--zookeeper",
            zookeeper.address,
            "--starting-offsets",
            "earliest",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    printed: list[str] = []
    reader = threading.Thread(target=lambda: printed.extend(tail.stdout or []), daemon=True)
    reader.start()
    try:
        wait_until(lambda: len(printed) >= 200, 120, "the lines already there")
        written += append(log, [f"after-{n}" for n in range(200)])
        wait_until(lambda: len(printed) >= 400, 60, "the lines appended since")
    finally:
        tail.send_signal(signal.SIGINT)  # Ctrl-C
        code = tail.wait(60)
    reader.join(10)
    errors = tail.stderr.read() if tail.stderr else ""
    assert code == 0, errors
    assert errors == "", "Spark's own output reached the terminal"
    assert sorted(p.split(" ", 1)[0] for p in printed) == sorted(written)
    zk = KazooClient(hosts=zookeeper.address)
    zk.start()
    try:
        assert zk.exists("/aof-tail") is None  # its own meta store, removed at the end
    finally:
        zk.stop()


def test_tail_shows_sparks_own_output_when_asked(tmp_path: Path) -> None:
    tail = subprocess.Popen(
        [*CLI, "tail", f"{tmp_path}/app\\.log", "--verbose"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its JVM with it, for the kill below
    )
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.extend(tail.stderr or []), daemon=True)
    reader.start()
    try:
        wait_until(
            lambda: any("Setting default log level" in e for e in errors),
            120,
            "Spark's start-up notes on stderr",
        )
    finally:
        # Stopped while it may still be starting, when Ctrl-C would leave its JVM behind.
        os.killpg(tail.pid, signal.SIGKILL)
        tail.wait(60)


def test_status_shows_endpoints_offsets_and_lag_of_a_running_query(
    spark: SparkSession, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    log = tmp_path / "logs" / "app.log"
    log.parent.mkdir()
    append(log, [f"line-{n}" for n in range(100)])
    store = "/aof-status-test"
    query = (
        aof.read_stream(
            spark, f"{log.parent}/app\\.log", zookeeper_address=zookeeper.address, meta_store=store
        )
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start()
    )
    try:
        query.processAllAvailable()
        append(log, [f"more-{n}" for n in range(10)])  # a batch more commits the first one
        query.processAllAvailable()
        args = ["status", "--zookeeper", zookeeper.address, "--meta-store", store]
        found: dict[str, Any] = {}

        def reports_current_size() -> bool:
            # An endpoint publishes its files at most a second after it saw them.
            found.update(
                json.loads(
                    subprocess.run(
                        [*CLI, *args, "--json"], capture_output=True, text=True, check=True
                    ).stdout
                )
            )
            return [f["size"] for f in found["files"]] == [log.stat().st_size]

        wait_until(reports_current_size, 30, "status to report the file's current size")
        text = subprocess.run([*CLI, *args], capture_output=True, text=True, check=True).stdout
    finally:
        query.stop()
    (run,) = found["runs"]
    assert run["driverAlive"]
    assert [h["endpoint"] is not None for h in run["hosts"]] == [True]
    (committed,) = found["offsets"]
    assert committed["path"] == str(log)
    assert 0 < committed["position"] <= log.stat().st_size
    (reported,) = found["files"]
    assert reported["size"] == log.stat().st_size
    assert reported["bytesBehind"] == log.stat().st_size - committed["position"]
    assert "serving endpoint" in text and str(log) in text


def test_status_reads_an_offset_backup_larger_than_a_znode(
    spark: SparkSession, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    # The offsets of 40,000 files take over 1 MB even compressed: the backup is kept in parts.
    logs = tmp_path / "logs"
    logs.mkdir()
    count = 40_000
    for n in range(count):
        (logs / f"app-{n:05d}.log").write_bytes(f"line {n}\n".encode())
    store = "/aof-status-many"
    query = (
        aof.read_stream(
            spark,
            f"{logs}/app-.*",
            zookeeper_address=zookeeper.address,
            meta_store=store,
            meta_await_timeout=60_000,  # the first look at 40,000 files takes seconds
        )
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    assert sum(p["numInputRows"] for p in query.recentProgress) == count
    zk = KazooClient(hosts=zookeeper.address)
    zk.start(timeout=20)
    try:
        assert zk.get_children(f"{store}/offsets"), "the backup is not in parts"
    finally:
        zk.stop()
        zk.close()
    result = subprocess.run(
        [*CLI, "status", "--zookeeper", zookeeper.address, "--meta-store", store, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(result.stdout)
    assert len(found["offsets"]) == count
    assert all(o["position"] > 0 for o in found["offsets"])


def test_status_says_clearly_when_nothing_is_there(zookeeper: ZooKeeperServer) -> None:
    result = subprocess.run(
        [*CLI, "status", "--zookeeper", zookeeper.address, "--meta-store", "/nothing/here"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "nothing at /nothing/here" in result.stderr


def test_the_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("pyspark-aof")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=True)
    for command in ("demo", "tail", "status"):
        assert command in result.stdout


def test_the_progress_line_shows_batch_lines_and_lag() -> None:
    from pyspark_aof.tail import _lag

    progress = {
        "batchId": 7,
        "numInputRows": 120,
        "sources": [{"metrics": {"bytesBehindLatest": "4096"}}],
    }
    assert _lag(progress) == "aof tail: batch 7, 120 lines, 4096 bytes behind"
    assert _lag(None) == "aof tail: starting"
