"""Driver processes of ``cluster_app.py`` on a cluster, started and killed by the tests."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

from pyspark_aof.testing import Host, LocalCluster
from pyspark_aof.testing._process import wait_until
from sink import assert_exactly_once, committed_rows
from writers import LineWriter

APP = Path(__file__).with_name("cluster_app.py")
EXECUTORS = 4  # two hosts, two executors of one core each, on the cluster suites' cluster


class App:
    """One run of the streaming application: a driver process of its own.

    Parameters
    ----------
    cluster : LocalCluster
        Where its executors run.
    work : Path
        Holds its checkpoint (``checkpoint``), output (``output``) and log.
    path : str
        The source's ``path`` option.
    options, conf : dict
        Source options and Spark settings.
    available_now : bool
        Run one ``Trigger.AvailableNow`` query to its end instead of a query until stopped.
    real_time : str, optional
        Run the query in real-time mode with batches of this duration (``"60 seconds"``).
    hold : bool
        Wait with the query until :meth:`release`, once the executors are there.
    """

    started: ClassVar[list[App]] = []  # for the tests' cleanup, whatever happened

    def __init__(
        self,
        cluster: LocalCluster,
        work: Path,
        path: str,
        options: dict[str, str],
        conf: dict[str, str] | None = None,
        executors: int = 0,
        checkpoint: str = "checkpoint",
        output: str = "output",
        available_now: bool = False,
        real_time: str | None = None,
        hold: bool = False,
    ) -> None:
        work.mkdir(parents=True, exist_ok=True)
        self.output = work / output
        self.log = work / f"{output}.driver.log"
        self.stop_file = work / f"{output}.stop"
        self.hold_file = work / f"{output}.hold"
        command = [
            sys.executable,
            str(APP),
            "--master",
            cluster.master_url,
            "--path",
            path,
            "--checkpoint",
            str(work / checkpoint),
            "--output",
            str(self.output),
            "--stop-file",
            str(self.stop_file),
            "--executors",
            str(executors),
        ]
        command += [a for k, v in options.items() for a in ("--option", f"{k}={v}")]
        command += [a for k, v in (conf or {}).items() for a in ("--conf", f"{k}={v}")]
        command += ["--available-now"] if available_now else []
        command += ["--real-time", real_time] if real_time else []
        command += ["--hold-file", str(self.hold_file)] if hold else []
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        App.started.append(self)

    def wait_held(self, timeout: float = 120) -> None:
        """Wait until a held application has its executors and waits to start its query."""
        ready = self.hold_file.with_name(f"{self.hold_file.name}.ready")
        wait_until(ready.exists, timeout, f"{ready}")

    def release(self) -> None:
        """Let a held application start its query."""
        self.hold_file.touch()

    def rows(self) -> list[dict[str, Any]]:
        """What the sink has committed so far."""
        return committed_rows(self.output)

    def wait_rows(self, count: int, timeout: float = 180) -> None:
        """Wait until at least ``count`` rows are committed, failing early if the driver dies."""

        def enough() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"driver exited {self.process.returncode}:\n{self.tail()}")
            return len(self.rows()) >= count

        try:
            wait_until(enough, timeout, f"{count} rows in {self.output}")
        except TimeoutError as e:
            raise TimeoutError(f"{e}; the query's thread:\n{self.query_thread()}") from None

    def query_thread(self) -> str:
        """The stack of the driver's micro-batch thread: what a stalled query waits on."""
        java = subprocess.run(
            ["pgrep", "-g", str(self.process.pid), "java"], capture_output=True, text=True
        ).stdout.split()
        for pid in java:
            dump = subprocess.run(["jcmd", pid, "Thread.print"], capture_output=True, text=True)
            for block in dump.stdout.split("\n\n"):
                if "stream execution thread" in block:
                    return block
        return "(not found)"

    def stop(self, timeout: float = 120) -> None:
        """Stop the query cleanly and wait for the driver to exit."""
        self.stop_file.touch()
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        assert code == 0, f"driver exited {code}:\n{self.tail()}"

    def wait_exit(self, timeout: float = 180) -> int:
        """Wait for the driver to exit by itself; return its exit code."""
        return self.process.wait(timeout)

    def kill(self) -> None:
        """SIGKILL the driver and everything it started, as a crashed driver host does."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def text(self) -> str:
        """The driver's log."""
        return self.log.read_text(errors="replace")

    def tail(self, lines: int = 60) -> str:
        """The end of the driver's log."""
        return "\n".join(self.text().splitlines()[-lines:])


def host_dirs(cluster: LocalCluster, name: str) -> list[tuple[Host, Path]]:
    """Each host's own directory that the source sees at ``<mount>/<name>``."""
    dirs = [(h, h.files / name) for h in cluster.hosts]
    for _, d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    return dirs


def start_app(
    cluster: LocalCluster,
    work: Path,
    name: str,
    zookeeper_address: str,
    options: dict[str, str] | None = None,
    pattern: str = r"app\.log",
    **kwargs: object,
) -> App:
    """The application on ``cluster``, reading ``<mount>/<name>/<pattern>`` on every host; an
    empty ``zookeeper_address`` starts the driver's embedded server."""
    source = {"meta.store": f"/aof-test/{name}"}
    if zookeeper_address:
        source["zookeeper.address"] = zookeeper_address
    return App(
        cluster,
        work,
        f"{cluster.mount / name}/{pattern}",
        {**source, **(options or {})},
        executors=EXECUTORS,
        **kwargs,  # type: ignore[arg-type]
    )


def start_writers(
    cluster: LocalCluster, name: str, count: int, pause: float = 0.0
) -> list[LineWriter]:
    """One writer per host, each appending ``count`` lines with ids of its host to ``app.log``."""
    writers = [
        LineWriter(d / "app.log", h.address, count, pause) for h, d in host_dirs(cluster, name)
    ]
    for w in writers:
        w.start()
    return writers


def finish(app: App, writers: list[LineWriter]) -> None:
    """Let the writers end, wait for every line, stop the query and check each arrived once."""
    for w in writers:
        w.join()
    app.wait_rows(sum(w.count for w in writers))
    app.stop()
    assert_exactly_once(app.rows(), {w.prefix: w.ids for w in writers})
