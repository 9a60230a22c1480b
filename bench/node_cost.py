"""A node's own cost: the source on one worker, beside Spark's ``rate`` and rsyslog's ``imfile``.

``python bench/node_cost.py [--seconds 30] [--warmup 10] [--phases NAME ...] [--triggers NAME ...]``
(as root: the cluster's worker runs in a mount namespace of its own). A standalone master and ONE
worker of one core on 127.0.0.2 (``LocalCluster``); the driver is this process's JVM, with the
source's embedded ZooKeeper server. Per phase and trigger a query reads that node's files into
Spark's ``noop`` sink (real-time mode: the JVM's JSON-lines sink to a file, ``noop`` not being a
real-time sink), and the CPU of the executor's and the driver's JVMs is taken from ``/proc`` over
the phase, after a warm-up of three triggers at least (``node_queries``). References of the same
run: ``rate`` at the same trigger and rows a second (micro-batch triggers, written phases), and
``rsyslogd`` reading the same files (``rsyslog_imfile``). This Spark line's figures go to
``bench/node-cost-spark<major>.json``, merged with those kept there (a partial run replaces only
its rows); ``bench/node-cost.md`` shows every line's (``node_cost_report``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspark
from pyspark.sql import SparkSession

import node_cost_report
import proc_stats
import pyspark_aof as aof
from node_queries import REAL_TIME_BATCH, Node, Trigger, alone, rate, source
from node_writer import Writer, line_id, tally, write_quiet, written_ids
from pyspark_aof.demo import quiet_zookeeper
from pyspark_aof.testing import Host, LocalCluster
from pyspark_aof.testing._process import wait_until
from rsyslog_imfile import Rsyslog, version
from run import machine

HERE = Path(__file__).parent
LINE = f"spark{pyspark.__version__.split('.')[0]}"
REAL_TIME = tuple(int(p) for p in pyspark.__version__.split(".")[:2]) >= (4, 1)
SETTINGS = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.memory": "1g",
    "spark.executor.cores": "1",
    "spark.executor.memory": "1g",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    # Every batch's progress kept, for the lines counted (Spark keeps 100 by default).
    "spark.sql.streaming.numRecentProgressUpdates": "100000",
}


@dataclass(frozen=True)
class Phase:
    """What the node's files do in a phase: ``files`` quiet ones, a writer's ``rate``, or both."""

    name: str
    label: str
    files: int = 0
    directories: int = 1
    rate: int = 0

    def pattern(self, directory: str, regex: bool) -> str:
        """Return the phase's files in ``directory``: the source's ``path``, or imfile's glob."""
        if not self.files:
            return f"{directory}/app\\.log(\\.[12])?" if regex else f"{directory}/app.log*"
        parent = directory if self.directories == 1 else f"{directory}/*"
        if not regex:
            return f"{parent}/quiet-*.log"
        # With a writer too, its directory is one more beside the quiet files' (``_row``).
        names = "(quiet-.*|app)\\.log(\\.[12])?" if self.rate else "quiet-.*\\.log"
        return f"{parent}/{names}"


PHASES = {
    p.name: p
    for p in (
        Phase("idle-100", "idle, 100 quiet files", files=100),
        Phase("idle-20000", "idle, 20,000 quiet files in 200 directories", 20000, 200),
        Phase("write-1000", "1,000 lines/s, rotated every 10 s", rate=1000),
        Phase("write-10000", "10,000 lines/s, rotated every 10 s", rate=10000),
        Phase("busy-20000", "1,000 lines/s beside 20,000 quiet files", 20000, 200, rate=1000),
    )
}
TRIGGERS = {
    t.name: t
    for t in (
        Trigger("default", "default (none set)"),
        Trigger("1s", "ProcessingTime 1 s", 1.0),
        Trigger("10s", "ProcessingTime 10 s", 10.0),
        Trigger("real-time", f'real-time, "{REAL_TIME_BATCH}"', real_time=True),
    )
}


def _session(cluster: LocalCluster) -> SparkSession:
    builder = aof.configure(
        SparkSession.builder.master(cluster.master_url).appName("pyspark-aof node cost")
    )
    for key, value in SETTINGS.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    quiet_zookeeper(spark)
    context = spark.sparkContext._jsc.sc()
    # Registered with the scheduler and the block manager master (the source lists executors
    # from the second); each counts the driver too.
    wait_until(
        lambda: (
            min(
                len(context.statusTracker().getExecutorInfos()),
                context.getExecutorMemoryStatus().size(),
            )
            > 1
        ),
        120,
        "the worker's executor",
    )
    return spark


def _executor(host: Host) -> int:
    pids = host.executor_pids()
    if len(pids) != 1:
        raise RuntimeError(f"{len(pids)} executors on {host.address}, not one: {pids}")
    return pids[0]


def _settle(count: Callable[[], int], total: int, timeout: float) -> None:
    """Wait until ``count`` reaches ``total``, or for ``timeout`` s, or 15 s without growing."""
    deadline, last, moved = time.monotonic() + timeout, -1, time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - moved < 15:
        now = count()
        if now >= total:
            return
        if now != last:
            last, moved = now, time.monotonic()
        time.sleep(0.5)


def _rsyslog(work: Path, phase: Phase, files: Path, quiet: set[str], args: Any) -> dict[str, Any]:
    """``rsyslogd`` following ``files`` through a phase: its CPU, memory, descriptors, lines."""
    with Rsyslog(work, phase.pattern(str(files), regex=False)) as shipper:
        writer = Writer(files, phase.rate) if phase.rate else None
        try:
            _settle(lambda: len(shipper.lines()), len(quiet) or 1, 300)
            time.sleep(args.warmup)
            cpu = proc_stats.Phase({"rsyslogd": shipper.pid})
            time.sleep(args.seconds)
            figures: dict[str, Any] = {
                "rsyslogd": cpu.end()["rsyslogd"].figures(),
                "end": proc_stats.snapshot(shipper.pid),
            }
        finally:
            ids = written_ids(writer.stop()) if writer else quiet
        _settle(lambda: len(shipper.lines()), len(ids), 90)
        figures["lines"] = tally((line_id(v) for v in shipper.lines()), ids)
    # The node's directory, a temporary one, named as such.
    errors = [e.replace(str(files.parent), "<node>") for e in shipper.errors()]
    figures["errors"] = {"count": len(errors), "first": errors[0] if errors else None}
    return figures


def measure(args: Any, phases: list[Phase], triggers: list[Trigger]) -> dict[str, Any]:
    """Every phase under every trigger, with the references: this line's figures."""
    data = HERE / "data"
    data.mkdir(exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="node-cost-", dir=data))
    results: dict[str, Any] = {"rows": {}, "rsyslog": {}, "load": _load()}
    try:
        with LocalCluster(root, hosts=1, cores=1, memory="2g") as cluster:
            host = cluster.hosts[0]
            quiet = {
                p.name: write_quiet(host.files / p.name, p.files, p.directories)
                for p in phases
                if p.files
            }
            spark = _session(cluster)
            jvm = spark.sparkContext._jvm
            assert jvm is not None
            driver = int(jvm.java.lang.ProcessHandle.current().pid())
            node = Node(spark, lambda: _executor(host), driver, root / "bench")
            for phase in phases:
                # Not where a writer is among 20,000 files: rsyslog runs out of descriptors on
                # the quiet files alone (the idle phase shows it).
                if not (phase.files and phase.rate):
                    files = host.files / (phase.name if phase.files else f"{phase.name}-rsyslog")
                    work = root / "bench" / "rsyslog" / phase.name
                    shipped = _rsyslog(work, phase, files, quiet.get(phase.name, set()), args)
                    results["rsyslog"][phase.name] = shipped
                    print(phase.name, "rsyslog", json.dumps(shipped), flush=True)
                for trigger in triggers:
                    row = _row(node, cluster, host, phase, trigger, quiet, args)
                    results["rows"][f"{phase.name} {trigger.name}"] = row
                    print(phase.name, trigger.name, json.dumps(row), flush=True)
            # Spark's JVMs, warm, with every query stopped: the floor of the idle figures.
            results["spark_alone"] = alone(node, args.seconds)
            print("spark alone", json.dumps(results["spark_alone"]), flush=True)
            spark.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return results


def _row(
    node: Node,
    cluster: LocalCluster,
    host: Host,
    phase: Phase,
    trigger: Trigger,
    quiet: dict[str, set[str]],
    args: Any,
) -> dict[str, Any]:
    name = f"{phase.name}-{trigger.name}"
    rel = phase.name if phase.files else name
    # Beside quiet files, a directory of its own among theirs, gone once the query stopped.
    writing = host.files / rel / f"writer-{trigger.name}" if phase.files else host.files / rel
    writers: list[Writer] = []

    def start_writing() -> Callable[[], int] | None:
        if not phase.rate:
            return None
        writers.append(Writer(writing, phase.rate))
        return writers[0].stop

    def expected() -> set[str]:
        written = written_ids(writers[0].stop()) if writers else set()
        return written | quiet.get(phase.name, set())

    labels: dict[str, Any] = {"phase": phase.label, "trigger": trigger.label}
    labels.update(seconds=args.seconds, warmup=trigger.warmup(args.warmup))
    path = phase.pattern(f"{cluster.mount}/{rel}", regex=True)
    try:
        row = source(node, name, path, trigger, args.warmup, args.seconds, expected, start_writing)
    except Exception as e:  # a query that fails is a figure too: the rows after it still run
        return {**labels, "error": _first_line(e)}
    finally:
        for writer in writers:
            writer.stop()
        if phase.files and phase.rate:
            shutil.rmtree(writing, ignore_errors=True)
    row.update(labels)
    if phase.rate and not trigger.real_time:
        try:
            row["rate"] = rate(node, name, trigger, phase.rate, args.warmup, args.seconds)
        except Exception as e:
            row["rate"] = {"error": _first_line(e)}
    return row


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0][:400] if str(error).strip() else repr(error)


def main() -> None:
    """Measure the phases and triggers asked for; merge them into this line's figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="seconds before each phase, 3 triggers at least"
    )
    parser.add_argument("--phases", nargs="+", choices=list(PHASES), default=list(PHASES))
    parser.add_argument("--triggers", nargs="+", choices=list(TRIGGERS), default=list(TRIGGERS))
    args = parser.parse_args()
    triggers = [TRIGGERS[t] for t in args.triggers if REAL_TIME or not TRIGGERS[t].real_time]
    if len(triggers) < len(args.triggers):
        print(f"PySpark {pyspark.__version__} has no real-time mode: left out", flush=True)
    results = measure(args, [PHASES[p] for p in args.phases], triggers)
    kept_path = HERE / f"node-cost-{LINE}.json"
    kept = json.loads(kept_path.read_text()) if kept_path.exists() else {"rows": {}, "rsyslog": {}}
    descriptors = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    kept["machine"] = {**machine(), "rsyslog": version(), "open files (hard limit)": descriptors}
    kept["load"] = results["load"]
    kept["spark_alone"] = results["spark_alone"]
    kept["rows"].update(results["rows"])
    kept["rsyslog"].update(results["rsyslog"])
    kept["rows"] = {k: kept["rows"][k] for k in sorted(kept["rows"], key=_order)}
    kept_path.write_text(json.dumps(kept, indent=2) + "\n")
    node_cost_report.write(HERE)


def _load() -> str:
    """Return the machine's load average over 1, 5 and 15 minutes, as the run begins."""
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


def _order(key: str) -> tuple[int, int]:
    phase, trigger = key.split(" ")
    return list(PHASES).index(phase), list(TRIGGERS).index(trigger)


if __name__ == "__main__":
    main()
