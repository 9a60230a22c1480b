"""Executors that share a node, as pods on one Kubernetes node share a ``hostPath`` volume.

Two workers on their own addresses see the same files (one node's disk): with ``node.name.env``
they are one node to the source; without it, each reads the files, and the driver says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from apps import App
from pyspark_aof.testing import LocalCluster, ZooKeeperServer
from pyspark_aof.testing._process import wait_until
from sink import assert_exactly_once, once_each
from writers import append

NODE_ENV = "AOF_TEST_NODE"


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    root = tmp_path_factory.mktemp("node")
    with LocalCluster(root, hosts=2, cores=1, hosts_per_node=2, node_name_env=NODE_ENV) as c:
        yield c


def start(
    node: LocalCluster,
    work: Path,
    name: str,
    zk: str,
    options: dict[str, str],
    real_time: str | None = None,
) -> App:
    (node.hosts[0].files / name).mkdir(parents=True, exist_ok=True)
    source = {"zookeeper.address": zk, "meta.store": f"/aof-nodes/{name}", **options}
    # Small tasks, so that both executors of the node read.
    source["partition.bytes.max"] = "4096"
    path = f"{node.mount / name}/app\\.log"
    return App(node, work, path, source, executors=2, real_time=real_time)


def ids(first: int, count: int) -> list[str]:
    return [f"node-0-{n}" for n in range(first, first + count)]


@pytest.mark.both_lines
def test_executors_of_one_node_read_its_files_once_as_that_node(
    node: LocalCluster, zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    assert {h.node for h in node.hosts} == {"node-0"}
    log = node.hosts[0].files / "one" / "app.log"
    app = start(node, tmp_path, "one", zookeeper.address, {"node.name.env": NODE_ENV})
    written = append(log, ids(1, 2000))
    app.wait_rows(2000)
    written += append(log, ids(2001, 2000))
    app.wait_rows(4000)

    run = f"/aof-nodes/one/runs/{kazoo.get_children('/aof-nodes/one/runs')[0]}"
    endpoints = kazoo.get_children(f"{run}/endpoints")
    # Both executors joined the node's latch: one serves, the other stands by.
    candidates = kazoo.get_children(f"{run}/latches/node-0")
    app.stop()
    assert endpoints == ["node-0"]
    assert len(candidates) == 2
    assert_exactly_once(app.rows(), {"node-0": written})
    assert "report the same file" not in app.text()


def test_without_the_option_hosts_sharing_files_are_warned_about(
    node: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    log = node.hosts[0].files / "two" / "app.log"
    app = start(node, tmp_path, "two", zookeeper.address, {})
    append(log, ids(1, 100))
    warning = "aof: hosts 127.0.0.2, 127.0.0.3 report the same file"
    wait_until(lambda: warning in app.text(), 120, "the warning of hosts sharing files")
    app.stop()
    assert "set the option node.name.env" in app.text()
    assert app.text().count(warning) == 1, "said once"


def test_real_time_mode_follows_a_node_once_from_either_of_its_executors(
    node: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    log = node.hosts[0].files / "live" / "app.log"
    options = {"node.name.env": NODE_ENV}
    app = start(node, tmp_path, "live", zookeeper.address, options, real_time="10 seconds")
    written = append(log, ids(1, 500))
    wait_until(lambda: len(once_each(app.output)) >= 500, 120, "the first lines")
    written += append(log, ids(501, 500))
    wait_until(lambda: len(once_each(app.output)) >= 1000, 60, "the later lines")
    app.stop()
    assert_exactly_once(list(once_each(app.output).values()), {"node-0": written})
    assert "ran on" not in app.text(), "a task was placed off its node"
