"""Every node read or named (option ``nodes``), on a real standalone cluster of three nodes.

Each node is a worker host in a mount namespace of its own, with its own files at one path. The
third starts without a worker: no executor can read it until one is started there.
``Trigger.AvailableNow`` and ``Once`` failing on a node unread are the Scala suites'
(``EveryNodeSuite``, in local mode, where a node other than the driver's host is never read).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import figures
import pytest
from kazoo.client import KazooClient

from apps import App, host_dirs
from pyspark_aof.status import format_status, read_status
from pyspark_aof.testing import LocalCluster, ZooKeeperServer
from pyspark_aof.testing._process import wait_until
from sink import assert_exactly_once
from writers import append


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """Three nodes of two cores; the third without a worker until a test starts one."""
    with LocalCluster(tmp_path_factory.mktemp("nodes"), hosts=3, cores=2, workers=2) as c:
        yield c


def ids(host: str, what: str, count: int) -> list[str]:
    return [f"{host}-{what}-{n}" for n in range(count)]


def start(
    cluster: LocalCluster,
    work: Path,
    name: str,
    zookeeper: ZooKeeperServer,
    options: dict[str, str],
    **kwargs: object,
) -> App:
    source = {"zookeeper.address": zookeeper.address, "meta.store": f"/aof-nodes/{name}"}
    path = f"{cluster.mount / name}/app\\.log"
    return App(cluster, work, path, {**source, **options}, **kwargs)  # type: ignore[arg-type]


def unread(kazoo: KazooClient, name: str) -> dict[str, Any] | None:
    """What ``pyspark-aof status`` shows of the nodes to read, for the query's run."""
    status = read_status(kazoo, f"/aof-nodes/{name}", wait=0)
    runs = status["runs"] if status else []
    return runs[0]["nodes"] if runs else None


def test_a_node_without_an_executor_is_named_then_read_once_a_worker_starts_there(
    nodes: LocalCluster, zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    first, second, third = nodes.hosts
    dirs = host_dirs(nodes, "late")
    before = {h.address: append(d / "app.log", ids(h.address, "before", 100)) for h, d in dirs}
    names = json.dumps([h.address for h in nodes.hosts])
    # `latest`: what the nodes read at the first trigger hold is skipped; the third node, to be
    # read from the start, is read from byte 0 when its executor comes.
    options = {"nodes": names, "starting.offsets": "latest"}
    started = time.monotonic()
    app = start(nodes, tmp_path, "late", zookeeper, options, executors=4)
    warning = f"have had no endpoint for 10 s: {third.address}."
    wait_until(lambda: warning in app.text(), 120, "the warning naming the third node")
    figures.record(
        "every node: seconds to name a node unread, driver start included",
        time.monotonic() - started,
    )
    wait_until(lambda: unread(kazoo, "late") is not None, 30, "the nodes in status")
    assert unread(kazoo, "late") == {"expected": 3, "unread": [third.address]}
    shown = format_status(read_status(kazoo, "/aof-nodes/late", wait=0) or {})
    assert f"{third.address}  -" in shown and "unread: no executor reads it" in shown, shown

    after = {h.address: append(d / "app.log", ids(h.address, "after", 500)) for h, d in dirs}
    nodes.start_worker(third)
    later = {h.address: append(d / "app.log", ids(h.address, "later", 500)) for h, d in dirs}
    written = {
        first.address: after[first.address] + later[first.address],
        second.address: after[second.address] + later[second.address],
        third.address: before[third.address] + after[third.address] + later[third.address],
    }
    app.wait_rows(sum(map(len, written.values())))
    wait_until(lambda: unread(kazoo, "late") == {"expected": 3, "unread": []}, 60, "status")
    app.stop()
    assert_exactly_once(app.rows(), written)
    assert app.text().count(warning) == 1, "said once"


# On both lines: the master's JSON is the Spark line's own.
@pytest.mark.both_lines
def test_the_standalone_master_names_its_alive_workers_and_the_one_without_an_executor(
    nodes: LocalCluster, zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    nodes.start_worker(nodes.hosts[2])
    dirs = host_dirs(nodes, "master")
    written = {h.address: append(d / "app.log", ids(h.address, "m", 200)) for h, d in dirs}
    options = {"nodes": "standalone", "nodes.url": nodes.master_web_url}
    # Two executors of one core: the master spreads them over two of the three workers.
    conf = {"spark.cores.max": "2"}
    app = start(nodes, tmp_path, "master", zookeeper, options, conf=conf, executors=2)
    wait_until(
        lambda: (
            (unread(kazoo, "master") or {}).get("expected") == 3
            and len((unread(kazoo, "master") or {}).get("unread", [])) == 1
        ),
        120,
        "the node without an executor in status",
    )
    (left_out,) = (unread(kazoo, "master") or {})["unread"]
    read = {h: ids for h, ids in written.items() if h != left_out}
    app.wait_rows(sum(map(len, read.values())))
    warning = f"have had no endpoint for 10 s: {left_out}."
    wait_until(lambda: warning in app.text(), 120, "the warning naming the node left out")
    app.stop()
    assert_exactly_once(app.rows(), read)
    assert "run a worker on each of these nodes" in app.text()
