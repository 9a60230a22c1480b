"""rsyslog's ``imfile`` in inotify mode, reading a wildcard of files into one file (``omfile``).

The reference shipper of the node-cost benchmark (``bench/node_cost.py``): ``rsyslogd -n`` with a
configuration, pid file and work directory of its own in a temporary directory, never the
system's. Its output holds each line as read (``%msg%``), one a line, for :func:`lines`.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
from pathlib import Path

from pyspark_aof.testing._process import Managed, wait_until

_CONFIG = """\
global(workDirectory="{state}" maxMessageSize="8k")
module(load="imfile" mode="inotify")
template(name="line" type="string" string="%msg%\\n")
ruleset(name="lines") {{
  action(type="omfile" file="{output}" template="line")
}}
input(type="imfile" file="{files}" tag="app:" ruleset="lines")
"""


def version() -> str:
    """``rsyslogd 8.x`` as the installed one names itself, or why there is none."""
    if shutil.which("rsyslogd") is None:
        return "not installed (build/install-system-packages installs it)"
    out = subprocess.run(["rsyslogd", "-v"], capture_output=True, text=True).stdout
    return " ".join(out.splitlines()[0].split(" (")[0].split()) if out else "unknown"


class Rsyslog(Managed):
    """``rsyslogd`` reading ``files`` (an imfile wildcard) into ``work/output.log`` until stopped.

    Its descriptors are raised to the hard limit: imfile holds every file it follows open.
    """

    def __init__(self, work: Path, files: str) -> None:
        self.work = work
        self.files = files
        self.output = work / "output.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        """The process id of ``rsyslogd`` (it runs in the foreground: the one started)."""
        assert self._process is not None
        return self._process.pid

    def start(self) -> Rsyslog:
        """Start ``rsyslogd``; return once it has written its pid file."""
        state = self.work / "state"
        state.mkdir(parents=True, exist_ok=True)
        config = self.work / "rsyslog.conf"
        config.write_text(_CONFIG.format(state=state, output=self.output, files=self.files))
        check = subprocess.run(
            ["rsyslogd", "-N1", "-f", str(config)], capture_output=True, text=True
        )
        if check.returncode != 0:
            raise RuntimeError(f"rsyslogd refused {config}:\n{check.stderr}")
        pid_file = self.work / "rsyslogd.pid"
        with (self.work / "rsyslogd.log").open("ab") as log:
            self._process = subprocess.Popen(
                ["rsyslogd", "-n", "-f", str(config), "-i", str(pid_file)],
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_all_descriptors,
            )
        wait_until(pid_file.exists, 30, f"rsyslogd's pid file {pid_file}")
        return self

    def lines(self) -> list[str]:
        """Return what it has written so far, a line each (a last line not ended yet left out)."""
        if not self.output.exists():
            return []
        lines = self.output.read_bytes().decode(errors="replace").splitlines(True)
        return lines if not lines or lines[-1].endswith("\n") else lines[:-1]

    def errors(self) -> list[str]:
        """Return what ``rsyslogd`` printed: in the foreground, its warnings and errors."""
        log = self.work / "rsyslogd.log"
        return log.read_text(errors="replace").splitlines() if log.exists() else []

    def stop(self) -> None:
        """Stop ``rsyslogd`` (SIGTERM: it ends its queues and exits)."""
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(10)
            self._process = None


def _all_descriptors() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
