"""``tail`` as a terminal, ``timeout`` or systemd runs it: its first moment, and a stop of its
whole process group (the JVM gets the signal too)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import pyspark_aof as aof
from pyspark_aof._since_start import Start, note_start
from pyspark_aof.testing._process import wait_until

# The command as installed: the script pip writes, which imports the package first.
CLI = Path(sys.executable).parent / "pyspark-aof"


class _Writer(threading.Thread):
    """Append numbered lines at about 200 a second until stopped."""

    def __init__(self, log: Path) -> None:
        super().__init__(name="writer-200", daemon=True)
        self.log = log
        self.written = 0
        self.stop = threading.Event()

    def run(self) -> None:
        with self.log.open("a") as out:
            while not self.stop.is_set():
                out.write(f"line-{self.written} end\n")
                out.flush()
                self.written += 1
                time.sleep(0.005)


# How a PySpark session is stopped differs between the lines.
@pytest.mark.both_lines
def test_a_tail_misses_no_line_written_as_it_began_and_its_group_stopped_leaves_nothing(
    tmp_path: Path,
) -> None:
    log = tmp_path / "app.log"
    writer = _Writer(log)
    writer.start()
    wait_until(lambda: writer.written > 100, 30, "the writer under way")
    temp = tmp_path / "temp"
    temp.mkdir()
    # Spark's JVM and the embedded ZooKeeper's files in it too: all of them must go.
    env = {**os.environ, "TMPDIR": str(temp), "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={temp}"}
    began = writer.written
    tail = subprocess.Popen(
        [str(CLI), "tail", f"{tmp_path}/app\\.log"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # a group of its own: the JVM gets the signal too
    )
    printed: list[str] = []
    reader = threading.Thread(target=lambda: printed.extend(tail.stdout or []), daemon=True)
    reader.start()
    try:
        wait_until(lambda: len(printed) > 400, 120, "lines written since it began")
    finally:
        os.killpg(tail.pid, signal.SIGTERM)
        code = tail.wait(60)
        writer.stop.set()
    reader.join(10)
    errors = tail.stderr.read() if tail.stderr else ""
    assert code == 0, errors
    assert errors.splitlines() == [
        f"pyspark-aof tail: reading {tmp_path}/app\\.log from where each file ended as the "
        "command started (new lines only; --starting-offsets earliest for all)"
    ], errors
    numbers = [int(p.split(" ", 1)[0].removeprefix("line-")) for p in printed]
    assert numbers == sorted(set(numbers)), "a line printed twice, or out of order"
    # Every line from the one written as the command began, to the last printed; a few before.
    missed = sorted(set(range(began, numbers[-1] + 1)) - set(numbers))
    assert missed == [], f"began at line {began}, missed {missed[:20]}"
    assert numbers[0] > began - 200, "it printed lines long before it began"
    # Its log, its checkpoint, Spark's directories and the embedded ZooKeeper's: all removed,
    # the JVM's once it has exited.
    wait_until(lambda: not any(temp.iterdir()), 30, "nothing left in the temp directory")


def test_a_file_written_as_the_command_began_is_taken_back_by_its_growth_and_to_its_last_line(
    tmp_path: Path,
) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"a\nbb\nccc\n")
    key = f"{log.stat().st_dev}:{log.stat().st_ino}"
    noted = time.monotonic() - 1.0  # a second ago, 0.1 s after its process began

    def began(lag: float) -> int | None:
        sizes = Start(noted, {key: 6}, lag, {key: str(log)}).as_it_began()
        return sizes[key] if sizes else None

    # Noted at byte 6, amid "ccc"; 3 bytes grown in the second since.
    assert began(0.1) == 5  # 2 * 3 * 0.1 = 0 bytes back, then to its last line's start
    assert began(0.7) == 2  # 2 * 3 * 0.7 = 4 bytes back
    assert began(2.0) == 0  # 12 bytes back: the file's start
    # A file not written since its process began keeps its size; one noted now, as tail.run
    # notes it when called without the command's start, too.
    assert Start(noted, {key: 6}, 0.1, {}).as_it_began() == {key: 6}
    options = aof.AofOptions()
    assert note_start(str(log), options, process=False).as_it_began() == {key: 9}
