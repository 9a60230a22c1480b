"""A container's log as Kubernetes writes it: a runtime writing two streams in its format, and the
kubelet rotating the file under it.

The runtime splits a line longer than 16 KiB into chunks, partial ones first (CRI's ``P``, a
Docker ``log`` without its newline), and its stdout and stderr writers interleave their chunks in
one file. The kubelet renames ``0.log`` to ``0.log.<YYYYmmdd-HHMMSS>`` and asks the runtime to
reopen ``0.log``; the runtime writes to the renamed file until it does, and a line being written
then has its first chunks in one file and the rest in the next. Then every rotation but
the newest is gzipped into ``<name>.tmp``, renamed to ``<name>.gz`` and the original deleted, and
the oldest are deleted beyond ``containerLogMaxFiles``, as the kubelet's container log manager
does.
"""

from __future__ import annotations

import gzip
import json
import random
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import BinaryIO

CHUNK = 16 * 1024  # what containerd, CRI-O and Docker split lines at


@dataclass
class Message:
    """A line the container printed, and the time the runtime gave its first chunk."""

    text: str
    stream: str
    time: datetime


@dataclass
class Container:
    """One container's log directory, ``<pods>/<namespace>_<pod>_<uid>/<name>/``."""

    directory: Path
    format: str  # "cri" or "docker"
    max_files: int = 5
    seed: int = 0
    written: list[Message] = field(default_factory=list)
    _out: BinaryIO | None = None
    _open: dict[str, list[bytes]] = field(default_factory=dict)  # chunks left, by stream
    _clock: datetime = datetime(2026, 11, 28, 10, 0, 0, tzinfo=UTC)
    _rotations: int = 0
    _parts: dict[str, list[tuple[bytes, datetime]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._random = random.Random(self.seed)
        self._out = (self.directory / "0.log").open("ab")

    def print(self, stream: str, text: str) -> None:
        """Queue a line the container prints on ``stream``; its chunks go out with ``write``."""
        assert stream not in self._open, "one line at a time on a stream"
        data = text.encode()
        self._open[stream] = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)] or [b""]
        self._parts[stream] = []

    def write(self, chunks: int) -> None:
        """Write up to ``chunks`` chunks of the queued lines, the two streams' interleaved."""
        for _ in range(chunks):
            if not self._open:
                return
            stream = self._random.choice(sorted(self._open))
            self._write_chunk(stream)

    def busy(self) -> bool:
        """Whether a queued line is not written whole yet."""
        return bool(self._open)

    def rotate(self, reopen_after: int = 0) -> None:
        """The kubelet's rotation: rename, ``reopen_after`` chunks to the renamed file, reopen."""
        self._rotations += 1
        stamp = (self._clock + timedelta(seconds=self._rotations)).strftime("%Y%m%d-%H%M%S")
        (self.directory / "0.log").rename(self.directory / f"0.log.{stamp}")
        self.write(reopen_after)
        assert self._out is not None
        self._out.close()
        self._out = (self.directory / "0.log").open("ab")
        self._compress_and_clean()

    def close(self) -> None:
        assert self._out is not None
        self._out.close()

    def _write_chunk(self, stream: str) -> None:
        chunks = self._open[stream]
        chunk = chunks.pop(0)
        last = not chunks
        self._clock += timedelta(microseconds=self._random.randrange(1, 5000), milliseconds=1)
        self._parts[stream].append((chunk, self._clock))
        if self.format == "cri":
            stamp = self._clock.strftime("%Y-%m-%dT%H:%M:%S.%f") + "123Z"
            line = f"{stamp} {stream} {'F' if last else 'P'} ".encode() + chunk + b"\n"
        else:
            log = chunk.decode() + ("\n" if last else "")
            stamp = self._clock.strftime("%Y-%m-%dT%H:%M:%S.%f") + "123Z"
            line = json.dumps({"log": log, "stream": stream, "time": stamp}).encode() + b"\n"
        assert self._out is not None
        self._out.write(line)
        self._out.flush()
        if last:
            del self._open[stream]
            # A line split by a reopen is one message too, at its first chunk's time.
            parts = self._parts.pop(stream)
            text = b"".join(c for c, _ in parts).decode()
            self.written.append(Message(text, stream, parts[0][1]))

    def _compress_and_clean(self) -> None:
        rotated = sorted(p for p in self.directory.iterdir() if p.name.startswith("0.log."))
        plain = [p for p in rotated if not p.name.endswith((".gz", ".tmp"))]
        for p in plain[:-1]:  # the newest stays as it is
            tmp = p.with_name(p.name + ".tmp")
            with p.open("rb") as source, gzip.open(tmp, "wb") as target:
                shutil.copyfileobj(source, target)
            tmp.rename(p.with_name(p.name + ".gz"))
            p.unlink()
        rotated = sorted(p for p in self.directory.iterdir() if p.name.startswith("0.log."))
        for p in rotated[: max(0, len(rotated) - (self.max_files - 1))]:
            p.unlink()


class Runtime:
    """A container runtime for a real process: its stdout and stderr, read by a thread each as
    containerd's do, written to ``0.log`` in CRI lines, a line longer than 16 KiB in chunks."""

    def __init__(self, directory: Path, command: list[str]) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._out = (directory / "0.log").open("ab")
        self._lock = threading.Lock()
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert self.process.stdout is not None and self.process.stderr is not None
        self._threads = [
            threading.Thread(target=self._copy, args=(pipe, name), daemon=True)
            for pipe, name in ((self.process.stdout, "stdout"), (self.process.stderr, "stderr"))
        ]
        for t in self._threads:
            t.start()

    def wait(self, timeout: float) -> None:
        """Wait for the process to end and its lines to be written."""
        self.process.wait(timeout)
        for t in self._threads:
            t.join(timeout)
        self._out.close()

    def _copy(self, pipe: BinaryIO, stream: str) -> None:
        for line in pipe:
            data = line.rstrip(b"\n")
            chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)] or [b""]
            for n, chunk in enumerate(chunks):
                tag = b"F" if n == len(chunks) - 1 else b"P"
                stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z"
                with self._lock:
                    self._out.write(f"{stamp} {stream} ".encode() + tag + b" " + chunk + b"\n")
                    self._out.flush()
