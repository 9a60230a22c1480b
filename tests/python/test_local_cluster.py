"""What the cluster suites' helpers find on a machine shared with another test run."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pyspark_aof.testing import Host

EXECUTOR = "org.apache.spark.executor.CoarseGrainedExecutorBackend"


@contextmanager
def executor_like(cwd: Path, address: str) -> Iterator[int]:
    """A process with an executor's command line, working in ``cwd``: a stand-in for another
    cluster's executor, which would otherwise cost a second cluster with the same addresses."""
    cwd.mkdir(parents=True)
    # It lives until its stdin closes: as long as the block, however long that takes. Its first
    # line says it runs: Popen returns once exec began, when its command line may still be empty.
    script = "import sys; print(flush=True); sys.stdin.read()"
    args = ["-c", script, "--hostname", address, EXECUTOR]
    process = subprocess.Popen(
        [sys.executable, *args], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdout is not None
    process.stdout.readline()
    try:
        yield process.pid
    finally:
        process.kill()
        process.communicate()  # closes its stdin too


def test_a_hosts_executors_are_its_own_workers_not_another_runs_at_the_same_address(
    tmp_path: Path,
) -> None:
    ours = Host("127.0.0.2", tmp_path / "ours" / "hosts", "127.0.0.2", tmp_path / "ours" / "work")
    # The executor's directory, as a worker makes it: <work>/<application>/<executor>.
    with (
        executor_like(ours.work / "app-1" / "0", ours.address) as own,
        executor_like(tmp_path / "theirs" / "work" / "app-1" / "0", ours.address),
    ):
        assert ours.executor_pids() == [own]
