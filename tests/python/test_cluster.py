"""The source on a real Spark standalone cluster: two hosts with their own files at one path.

Each test runs its own application (a driver process) against one shared cluster and one
ZooKeeper server in its own process, and breaks something real: executors, the driver, the
ZooKeeper server, the network to it.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import time
from pathlib import Path

import figures
import pytest
from kazoo.client import KazooClient
from kazoo.exceptions import NoAuthError, NoNodeError
from kazoo.retry import KazooRetry

from apps import EXECUTORS, App, finish, host_dirs, start_app, start_writers
from pyspark_aof.testing import Link, LocalCluster, ZooKeeperServer
from pyspark_aof.testing._process import wait_until
from sink import assert_exactly_once, line_ids
from writers import append


def ids(prefix: str, first: int, count: int) -> list[str]:
    return [f"{prefix}-{n}" for n in range(first, first + count)]


# The test's own client asks again when ZooKeeper, restarted under it, lost its connection or
# its session: kazoo opens a new session by itself.
AGAIN = KazooRetry(max_tries=-1, delay=0.2, max_delay=2, deadline=60, ignore_expire=True)


def children(kazoo: KazooClient, path: str) -> list[str]:
    """The znode's children, none when it is gone (ephemeral nodes go between any two calls)."""
    try:
        found: list[str] = AGAIN(kazoo.get_children, path)
    except NoNodeError:
        return []
    return found


def data(kazoo: KazooClient, path: str) -> str | None:
    """The znode's data, or None when it is gone."""
    try:
        found: bytes = AGAIN(kazoo.get, path)[0]
    except NoNodeError:
        return None
    return found.decode()


def live_runs(zookeeper: ZooKeeperServer, runs: str) -> list[str]:
    """The runs under ``runs`` whose driver znode is still there, read as the test's user."""
    kazoo = KazooClient(hosts=zookeeper.address, auth_data=[("digest", "aof:s3cret")])
    kazoo.start()
    try:
        return [r for r in children(kazoo, runs) if kazoo.exists(f"{runs}/{r}/driver")]
    finally:
        kazoo.stop()
        kazoo.close()


def run_path(kazoo: KazooClient, name: str) -> str:
    """The znode of the application's current query run."""
    runs = f"/aof-test/{name}/runs"
    wait_until(lambda: bool(children(kazoo, runs)), 120, runs)
    return f"{runs}/{children(kazoo, runs)[0]}"


@pytest.mark.both_lines
def test_each_host_reads_only_its_own_files_exactly_once(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    # Each executor's metrics to CSV files: its endpoint's gauges, from the plugin that
    # `aof.configure` turns on, which each executor loads from the JARs it fetched.
    csv = tmp_path / "csv"
    csv.mkdir()
    sink = "spark.metrics.conf.executor.sink.csv"
    conf = {f"{sink}.class": "org.apache.spark.metrics.sink.CsvSink", f"{sink}.period": "1"}
    app = start_app(
        cluster, tmp_path, "own", zookeeper.address, conf={**conf, f"{sink}.directory": str(csv)}
    )
    writers = start_writers(cluster, "own", 3000)
    read = sum(w.count for w in writers)

    def last(name: str) -> dict[str, int]:
        """Each executor's last value of the endpoint's gauge ``name``, by executor id."""
        found = {}
        for f in csv.glob(f"*.MetricsPlugin.endpoint._aof-test_own.{name}.csv"):
            rows = f.read_text().split()
            found[f.name.split(".")[1]] = int(rows[-1].split(",")[1]) if len(rows) > 1 else 0
        return found

    # Read while the query runs: its endpoints' gauges go when it stops.
    for w in writers:
        w.join()
    app.wait_rows(read)
    wait_until(lambda: sum(last("linesRead").values()) >= read, 60, "the executors' linesRead")
    # One serving endpoint per host, each watching its one file.
    assert len(last("serving")) == EXECUTORS and sum(last("serving").values()) == 2
    assert sorted(v for v in last("filesWatched").values() if v) == [1, 1]
    finish(app, writers)
    figures.record("own: lines", read)
    assert {r["path"] for r in app.rows()} == {str(cluster.mount / "own" / "app.log")}


def append_padded(path: Path, ids: list[str], width: int = 1000) -> list[str]:
    """Append lines of ``width`` bytes, so that a backlog is many megabytes of few lines."""
    pad = "x" * (width - 20)
    with path.open("ab") as out:
        out.write("".join(f"{i} {pad}\n" for i in ids).encode())
    return ids


def failed_tasks(app: App) -> list[str]:
    """The driver's lines for tasks that failed; a task killed to be queued again is not one."""
    return [
        line for line in app.text().splitlines() if "Lost task" in line and "TaskKilled" not in line
    ]


def start_catching_up(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path, name: str, **conf: str
) -> tuple[App, dict[str, list[str]]]:
    """A query that starts with 150 MB to read on the first host and 3 MB on the second."""
    (big, big_dir), (small, small_dir) = host_dirs(cluster, name)
    written = {
        big.address: append_padded(big_dir / "app.log", ids(big.address, 1, 150_000)),
        small.address: append_padded(small_dir / "app.log", ids(small.address, 1, 3_000)),
    }
    # 1 MiB ranges: once 150 tasks for the first host's two slots, queued there for longer than
    # the locality wait, then sent to the second host, where they failed and stopped the query.
    options = {"partition.bytes.max": "1048576"}
    app = start_app(cluster, tmp_path, name, zookeeper.address, options, conf=conf)
    return app, written


def test_a_host_with_fifty_times_the_backlog_catches_up_with_no_failed_task(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    started = time.monotonic()
    app, written = start_catching_up(cluster, zookeeper, tmp_path, "backlog")
    app.wait_rows(153_000, timeout=300)
    figures.record(
        "backlog: seconds to catch up, driver start included", time.monotonic() - started
    )
    app.stop()
    assert_exactly_once(app.rows(), written)
    assert failed_tasks(app) == []


@pytest.mark.both_lines
def test_a_task_spark_runs_on_the_wrong_host_is_queued_again_not_failed(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    # With no locality wait, the task of an executor killed mid-catch-up goes at once to the
    # other host, idle and holding a file of the same path: read there, it would bring that
    # host's lines under the wrong host; failed, it would stop the query (4 failures).
    app, written = start_catching_up(
        cluster, zookeeper, tmp_path, "misplaced", **{"spark.locality.wait": "0"}
    )
    busy = cluster.hosts[0]
    wait_until(lambda: any(app.output.glob("part-*")), 180, "the catch-up batch writing")
    executors = busy.executor_pids()
    assert executors
    os.kill(executors[0], signal.SIGKILL)
    killed = time.monotonic()
    app.wait_rows(153_000, timeout=300)
    figures.record(
        "misplaced: seconds from the executor kill to every line", time.monotonic() - killed
    )
    app.stop()
    assert_exactly_once(app.rows(), written)
    log = app.text()
    figures.record("misplaced: attempts killed and queued again", log.count("; queued again for"))
    assert f"a task for files of host {busy.address} ran on" in log, "never placed wrong"
    assert not [line for line in failed_tasks(app) if "ExecutorLostFailure" not in line]


@pytest.mark.both_lines
def test_a_stand_by_endpoint_takes_over_when_the_serving_executor_dies(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    app = start_app(
        cluster,
        tmp_path,
        "takeover",
        zookeeper.address,
        # Tasks of 4 KiB or more: every executor reads, and joins its host's latch.
        {"zookeeper.session.timeout": "4000", "partition.bytes.max": "4096"},
    )
    writers = start_writers(cluster, "takeover", 3000, pause=0.005)
    host = cluster.hosts[0].address
    run = run_path(kazoo, "takeover")
    wait_until(
        lambda: len(children(kazoo, f"{run}/latches/{host}")) >= 2, 120, f"a stand-by on {host}"
    )
    hosts = [h.address for h in cluster.hosts]
    wait_until(lambda: sorted(children(kazoo, f"{run}/endpoints")) == hosts, 60, "both endpoints")
    serving = kazoo.get(f"{run}/endpoints/{host}")[0].decode()
    os.kill(int(serving.split("@")[0]), signal.SIGKILL)
    killed = time.monotonic()

    def taken_over() -> bool:
        now = data(kazoo, f"{run}/endpoints/{host}")
        return now is not None and now != serving

    wait_until(taken_over, 60, f"another endpoint serving {host}")
    figures.record(
        "takeover: seconds from the kill to a stand-by serving", time.monotonic() - killed
    )
    finish(app, writers)
    figures.record("takeover: lines", sum(w.count for w in writers))


def test_the_embedded_server_on_a_cluster_lets_in_the_executors_it_gave_its_secret(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    # No zookeeper.address: the driver's own server, which only the query's JVMs may log in to.
    app = start_app(cluster, tmp_path, "embedded", "")
    writers = start_writers(cluster, "embedded", 500)
    finish(app, writers)


def test_a_silent_host_is_left_out_and_catches_up(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    (silent, silent_dir), (other, other_dir) = host_dirs(cluster, "silent")
    written = {silent.address: [], other.address: []}  # type: dict[str, list[str]]
    for h, d in ((silent, silent_dir), (other, other_dir)):
        written[h.address] += append(d / "app.log", ids(h.address, 1, 100))
    app = start_app(cluster, tmp_path, "silent", zookeeper.address)
    app.wait_rows(200)
    stopped = silent.signal_executors(signal.SIGSTOP)  # the host hangs, its sessions live on
    try:
        assert stopped
        for h, d in ((silent, silent_dir), (other, other_dir)):
            written[h.address] += append(d / "app.log", ids(h.address, 101, 100))
        app.wait_rows(300, timeout=25)  # the other host's lines flow meanwhile
        delivered = line_ids(app.rows())
        assert all(delivered[i] == 1 for i in written[other.address])
        assert not any(delivered[i] for i in written[silent.address][100:])
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    resumed = time.monotonic()
    app.wait_rows(400)
    figures.record("silent: seconds from resuming to caught up", time.monotonic() - resumed)
    app.stop()
    assert_exactly_once(app.rows(), written)


def test_zookeeper_restarted_and_sessions_expired_mid_stream(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    with Link("127.0.0.1", zookeeper.port) as link:
        app = start_app(
            cluster, tmp_path, "outage", link.address, {"zookeeper.session.timeout": "4000"}
        )
        writers = start_writers(cluster, "outage", 4000, pause=0.005)
        app.wait_rows(500)
        suspended = app.text().count("SUSPENDED; retrying")
        zookeeper.stop()
        # Down until the driver has lost its connection (ZooKeeperLogs says so), not for a time.
        wait_until(
            lambda: app.text().count("SUSPENDED; retrying") > suspended, 60, "the outage's WARN"
        )
        zookeeper.start()
        # More lines after the restart, unless the writers were done by then.
        app.wait_rows(min(len(app.rows()) + 500, sum(w.count for w in writers)))

        run = run_path(kazoo, "outage")
        endpoints = f"{run}/endpoints"

        def owners() -> set[int]:
            stats = [AGAIN(kazoo.exists, f"{endpoints}/{h}") for h in children(kazoo, endpoints)]
            return {s.ephemeralOwner for s in stats if s}

        before = owners()
        assert before, "no endpoint registered to cut off"
        link.cut()  # a partition past the session timeout: ZooKeeper expires the sessions
        wait_until(lambda: not owners() & before, 60, "ZooKeeper to expire the cut sessions")
        link.restore()
        restored = time.monotonic()

        def new_sessions() -> bool:
            hosts = children(kazoo, endpoints)
            now = {AGAIN(kazoo.exists, f"{endpoints}/{h}") for h in hosts}
            return len(hosts) == 2 and all(s and s.ephemeralOwner not in before for s in now)

        wait_until(new_sessions, 120, "endpoints registered again on new sessions")
        figures.record("outage: seconds to register again", time.monotonic() - restored)
        finish(app, writers)
        figures.record("outage: lines", sum(w.count for w in writers))


@pytest.mark.both_lines
def test_driver_killed_mid_batch_then_restarted_then_switched(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    # resume.from.backup trusts a backup only where ZooKeeper's ACLs keep others from writing it.
    options = {
        "bytes.max": "8192",
        "zookeeper.auth.user": "aof",
        "zookeeper.auth.password": "s3cret",
    }
    app = start_app(cluster, tmp_path, "driver", zookeeper.address, options)
    writers = start_writers(cluster, "driver", 3000, pause=0.005)
    app.wait_rows(300)

    def batches(log: str) -> set[int]:
        d = tmp_path / "checkpoint" / log
        return {int(f.name) for f in d.iterdir() if f.name.isdigit()} if d.is_dir() else set()

    # Planned (in the offsets log) but not yet committed: the batch is running.
    wait_until(lambda: max(batches("offsets")) > max(batches("commits"), default=-1), 60, "a batch")
    app.kill()
    killed = time.monotonic()
    restarted = start_app(cluster, tmp_path, "driver", zookeeper.address, options)
    restarted.wait_rows(len(restarted.rows()) + 300)
    figures.record("driver: seconds from the kill to 300 new lines", time.monotonic() - killed)
    restarted.stop()
    # Another checkpoint's query is refused while the killed driver's run lives, until ZooKeeper
    # ends the killed driver's session, as the refusal says: a user waits as much.
    wait_until(lambda: not live_runs(zookeeper, "/aof-test/driver/runs"), 120, "the run to end")

    # A new driver with a new checkpoint, told to, resumes from the offsets backed up in ZooKeeper.
    switched = start_app(
        cluster,
        tmp_path,
        "driver",
        zookeeper.address,
        {**options, "resume.from.backup": "true"},
        checkpoint="checkpoint2",
        output="output2",
    )
    for w in writers:
        w.join()
    written = {w.prefix: w.ids for w in writers}
    total = sum(len(v) for v in written.values())
    wait_until(lambda: len(restarted.rows()) + len(switched.rows()) >= total, 180, "every line")
    switched.stop()
    assert switched.rows(), "the switched driver should have read the lines written meanwhile"
    assert_exactly_once(restarted.rows() + switched.rows(), written)
    figures.record("driver: lines", total)


def test_acls_keep_other_clients_out_of_the_source_znodes(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    written = {
        h.address: append(d / "app.log", ids(h.address, 1, 100))
        for h, d in host_dirs(cluster, "acl")
    }
    credentials = {"zookeeper.auth.user": "aof", "zookeeper.auth.password": "s3cret"}
    app = start_app(cluster, tmp_path, "acl", zookeeper.address, credentials)
    owner = KazooClient(hosts=zookeeper.address, auth_data=[("digest", "aof:s3cret")])
    intruder = KazooClient(hosts=zookeeper.address)
    owner.start()
    intruder.start()
    try:
        app.wait_rows(200)
        root = "/aof-test/acl"
        run = run_path(owner, "acl")
        host = cluster.hosts[0].address
        wait_until(lambda: bool(owner.exists(f"{root}/offsets")), 60, "the offset backup")
        for path in (f"{run}/requests/{host}", f"{run}/responses/{host}", f"{root}/offsets"):
            with pytest.raises(NoAuthError):
                intruder.set(path, b"{}")
            with pytest.raises(NoAuthError):
                intruder.delete(path)
            with pytest.raises(NoAuthError):
                intruder.get(path)
        with pytest.raises(NoAuthError):
            intruder.create(f"{run}/requests/127.0.0.9", b"")
        assert json.loads(gzip.decompress(owner.get(f"{root}/offsets")[0]))["version"] == 1
    finally:
        owner.stop()
        intruder.stop()
    app.stop()
    assert_exactly_once(app.rows(), written)


def test_a_forged_request_cannot_make_an_endpoint_look_elsewhere(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    dirs = host_dirs(cluster, "forged")
    written = {h.address: append(d / "app.log", ids(h.address, 1, 100)) for h, d in dirs}
    host, directory = dirs[0]
    outside = host.files / "secret.log"  # on the same host, outside the source's directory
    outside.write_text("secret\n")
    beside = directory / "notes.txt"  # in the directory, not matching the pattern
    beside.write_text("private\n")
    app = start_app(cluster, tmp_path, "forged", zookeeper.address)
    app.wait_rows(200)
    run = run_path(kazoo, "forged")

    known = [
        {"dev": f.stat().st_dev, "ino": f.stat().st_ino, "floor": 0, "fpLength": 0, "fpMd5": ""}
        for f in (outside, beside)
    ]
    payload = gzip.compress(json.dumps({"id": "forged", "known": known}).encode())
    forged = b"\x01" + os.urandom(32) + payload
    executor_logs = host.work

    def forged_and_ignored() -> bool:
        # Forged again on every poll: the driver's own request of the next trigger can replace
        # one forged write before the endpoint has read it.
        kazoo.set(f"{run}/requests/{host.address}", forged)
        return any(
            "ignores a request" in p.read_text(errors="replace")
            for p in executor_logs.rglob("stderr")
        )

    wait_until(forged_and_ignored, 60, "the endpoint to log that it ignored the forged request")
    response = kazoo.get(f"{run}/responses/{host.address}")[0]
    answer = json.loads(gzip.decompress(response[33:]))  # version byte and seal first
    assert answer["id"] != "forged"
    # In full or only what changed: never a file outside the pattern and directory.
    assert {f["path"] for f in answer["files"]} <= {str(cluster.mount / "forged" / "app.log")}

    for h, d in dirs:
        written[h.address] += append(d / "app.log", ids(h.address, 101, 100))
    app.wait_rows(400)
    app.stop()
    assert_exactly_once(app.rows(), written)


@pytest.mark.both_lines
def test_available_now_waits_for_a_slow_host_and_reads_what_it_held(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    dirs = host_dirs(cluster, "slow")
    written = {h.address: append(d / "app.log", ids(h.address, 1, 100)) for h, d in dirs}
    # Its first answer scans 1 GiB of holes for a newline, twice: seconds, far longer than
    # meta.await.timeout (here 500 ms; 3 s by default), which once left the host out of the
    # whole run. The timeout is shortened rather than the file made larger: each GiB scanned
    # is seconds of CPU.
    with (dirs[0][1] / "app.log.sparse").open("wb") as huge:
        huge.truncate(1 << 30)
    started = time.monotonic()
    app = start_app(
        cluster,
        tmp_path,
        "slow",
        zookeeper.address,
        {"meta.await.timeout": "500"},
        pattern=r"app\.log.*",
        available_now=True,
    )
    assert app.wait_exit() == 0, app.tail()
    figures.record("slow: seconds for the AvailableNow run", time.monotonic() - started)
    assert_exactly_once(app.rows(), written)


def test_available_now_fails_naming_a_host_that_never_answers(
    cluster: LocalCluster, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    for h, d in host_dirs(cluster, "never"):
        append(d / "app.log", ids(h.address, 1, 100))
    options = {"start.await.timeout": "5000"}
    app = start_app(
        cluster, tmp_path, "never", zookeeper.address, options, available_now=True, hold=True
    )
    app.wait_held()
    frozen = cluster.hosts[0]
    stopped = frozen.signal_executors(signal.SIGSTOP)  # alive to Spark, silent to the source
    try:
        assert stopped
        app.release()
        code = app.wait_exit()
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    assert code != 0, f"{len(app.rows())} rows, driver log:\n{app.tail(200)}"
    # Every host that did not answer is named: on a slow machine another one's endpoint may not
    # have started within the 5 s either.
    silent = re.search(
        r"aof: ([\d., ]+) did not answer within 5000 ms \(start\.await\.timeout\)", app.text()
    )
    assert silent and frozen.address in silent.group(1).split(", "), app.tail(50)
    assert app.rows() == [], "it finished without the frozen host"
