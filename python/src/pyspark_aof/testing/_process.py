"""Starting and stopping the harness's server processes."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

import pyspark


class Managed:
    """Started on entering a ``with`` block, stopped on leaving it, whatever happened inside."""

    def start(self) -> Self:
        """Start; return self."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop, releasing everything started."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class ServerProcess(Managed):
    """A server in a process of its own on 127.0.0.1, logging to ``<root>/server.log``."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.name = name
        self.port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    def launch(self, command: Sequence[str], timeout: float) -> None:
        """Start ``command`` and wait until the server listens on its port."""
        self._process = start(command, self.root / "server.log")
        wait_until(self._listening, timeout, f"{self.name} on port {self.port}")

    def stop(self) -> None:
        """Stop the server."""
        if self._process is not None:
            stop(self._process)
            self._process = None

    def _listening(self) -> bool:
        if self._process is not None and self._process.poll() is not None:
            log = (self.root / "server.log").read_text(errors="replace")
            raise RuntimeError(f"{self.name} exited:\n{log[-3000:]}")
        return accepts("127.0.0.1", self.port)


def spark_home() -> Path:
    """Return the Spark distribution inside the installed ``pyspark`` wheel."""
    return Path(pyspark.__file__).parent


def start(
    command: Sequence[str], log: Path, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.Popen[bytes]:
    """Start ``command`` in a process group of its own, its output going to ``log``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        return subprocess.Popen(
            list(command),
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            cwd=cwd,
            start_new_session=True,
        )


def stop(process: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """Stop the process and everything it started (its group): politely, then for sure."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, timeout)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(wait)
            # Children (executors) may outlive the group leader for a moment.
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` until it holds; raise naming ``what`` at the deadline."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


def free_port(host: str = "127.0.0.1") -> int:
    """Return a port that is free on ``host`` now, outside the kernel's ephemeral range.

    A port found free inside that range (a bind to port 0) is soon given again to another bind
    to 0 or to a connection, as servers and clients beside this one start, and the server told
    it cannot start. Where the range leaves no room outside it, a port the kernel gives.
    """
    low, high = _outside_ephemeral()
    for _ in range(1000 if high > low else 0):
        port = random.randrange(low, high)
        if port not in _given and _bindable(host, port):
            _given.add(port)
            return port
    with socket.socket() as s:
        s.bind((host, 0))
        given: int = s.getsockname()[1]
        return given


_given: set[int] = set()


def _outside_ephemeral() -> tuple[int, int]:
    """Return the larger span of ports beside the ephemeral range (32768-60999 unless set)."""
    try:
        first, last = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        first, last = 32768, 60999
    below = (max(1024, first - 12000), first)
    above = (last + 1, min(65536, last + 12001))
    low, high = max(below, above, key=lambda span: span[1] - span[0])
    return (low, high) if high - low >= 1000 else (0, 0)


def _bindable(host: str, port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def accepts(host: str, port: int) -> bool:
    """Whether something listens on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False
