"""What a process costs, read from ``/proc``: its CPU, resident memory and open descriptors.

The CPU is the process's ``utime`` + ``stime`` (every thread's, in clock ticks), taken at a
phase's start and end: its difference over the phase's wall time is the cores it used.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid: int) -> int:
    """Return the user and system CPU ``pid`` has used so far, every thread's, in clock ticks."""
    return _ticks(Path(f"/proc/{pid}/stat").read_text())


def jit_ticks(pid: int) -> dict[int, int]:
    """Return the CPU each of a JVM's JIT compiler threads has used so far, by thread id.

    HotSpot names them ``C1 CompilerThread<n>`` and ``C2 CompilerThread<n>``; the kernel keeps
    a thread's name to 15 bytes.
    """
    ticks = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError):  # the thread ended meanwhile
            continue
        if stat[stat.index("(") + 1 : stat.rindex(")")].startswith(_COMPILERS):
            ticks[int(task.name)] = _ticks(stat)
    return ticks


_COMPILERS = ("C1 CompilerThre", "C2 CompilerThre")


def _ticks(stat: str) -> int:
    # The fields after the command (in brackets, which may hold spaces): utime and stime are
    # the 14th and 15th of the whole line, the 12th and 13th after the bracket.
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])


def rss_mb(pid: int) -> float:
    """Return the process's resident memory (``VmRSS``) now, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise ValueError(f"no VmRSS for process {pid}")


def open_fds(pid: int) -> int:
    """How many descriptors the process holds open now (entries of ``/proc/<pid>/fd``)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


@dataclass(frozen=True)
class Usage:
    """One process's CPU over a phase."""

    ticks: int
    seconds: float
    jit_ticks: int = 0  # of ``ticks``, the JIT compiler threads'

    @property
    def cores(self) -> float:
        """The cores it used on average: CPU seconds over wall seconds."""
        return self.ticks / TICKS_PER_SECOND / self.seconds

    def figures(self) -> dict[str, float]:
        """For the results' JSON: the cores, the ticks they come from, the phase's length."""
        return {
            "cores": round(self.cores, 5),
            "ticks": self.ticks,
            "jit_ticks": self.jit_ticks,
            "seconds": round(self.seconds, 2),
        }


class Phase:
    """The CPU of some processes from now to :meth:`end`; ``pids`` names each process.

    >>> phase = Phase({"executor": 1234, "driver": 5678})  # doctest: +SKIP
    >>> time.sleep(30)  # doctest: +SKIP
    >>> phase.end()["executor"].cores  # doctest: +SKIP
    """

    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids
        self._started = time.monotonic()
        self._ticks = {name: cpu_ticks(pid) for name, pid in pids.items()}
        self._jit = {name: jit_ticks(pid) for name, pid in pids.items()}

    def end(self) -> dict[str, Usage]:
        """Each process's CPU since the phase began."""
        ticks = {name: cpu_ticks(pid) for name, pid in self.pids.items()}
        jit = {name: jit_ticks(pid) for name, pid in self.pids.items()}
        seconds = time.monotonic() - self._started
        return {
            name: Usage(
                ticks[name] - self._ticks[name], seconds, _since(self._jit[name], jit[name])
            )
            for name in self.pids
        }


def _since(before: dict[int, int], after: dict[int, int]) -> int:
    # Per thread: HotSpot ends compiler threads it no longer needs, and starts them again. One
    # that ended within the phase is not counted here, so its time stays in the rest's.
    return sum(t - before.get(tid, 0) for tid, t in after.items())


def snapshot(pid: int) -> dict[str, float]:
    """Return the process's resident memory (MiB) and open descriptors now."""
    return {"rss_mb": rss_mb(pid), "fds": open_fds(pid)}
