"""The command line: ``tail`` against real files, ``status`` against a real query's znodes."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import signal
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from kazoo.client import KazooClient
from pyspark.sql import DataFrame, SparkSession

import pyspark_aof as aof
from pyspark_aof import _znodes
from pyspark_aof._since_start import sizes_now
from pyspark_aof._znodes import RunZnodes
from pyspark_aof.status import command_for, printable
from pyspark_aof.tail import missing_directory
from pyspark_aof.testing import ZooKeeperServer
from pyspark_aof.testing._process import free_port, wait_until
from writers import append

CLI = [sys.executable, "-m", "pyspark_aof"]


def _tail_from_start(
    path: str, zookeeper: ZooKeeperServer, *more: str, temp: Path | None = None
) -> tuple[subprocess.Popen[str], list[str], threading.Thread]:
    """Start ``pyspark-aof tail`` from the files' start; a thread gathers the lines it prints.

    With ``temp``, its temporary directory is that one.
    """
    command = [*CLI, "tail", path, "--zookeeper", zookeeper.address, "--starting-offsets"]
    tail = subprocess.Popen(
        [*command, "earliest", *more],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)} if temp else None,
    )
    printed: list[str] = []
    reader = threading.Thread(target=lambda: printed.extend(tail.stdout or []), daemon=True)
    reader.start()
    return tail, printed, reader


@pytest.mark.both_lines
@pytest.mark.parametrize(
    "stop",
    [
        signal.SIGINT,  # Ctrl-C
        signal.SIGTERM,  # `kill`, a service manager's stop
    ],
    ids=["ctrl-c", "sigterm"],
)
def test_tail_prints_each_line_once_and_stops_cleanly(
    stop: signal.Signals, zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    log = tmp_path / "app.log"
    written = append(log, [f"before-{n}" for n in range(200)])
    temp = tmp_path / "temp"
    temp.mkdir()
    tail, printed, reader = _tail_from_start(f"{tmp_path}/app\\.log", zookeeper, temp=temp)
    try:
        wait_until(lambda: len(printed) >= 200, 120, "the lines already there")
        written += append(log, [f"after-{n}" for n in range(200)])
        wait_until(lambda: len(printed) >= 400, 60, "the lines appended since")
    finally:
        tail.send_signal(stop)
        code = tail.wait(60)
    reader.join(10)
    errors = tail.stderr.read() if tail.stderr else ""
    assert code == 0, errors
    assert [p.name for p in temp.iterdir()] == [], "its checkpoint or log was left behind"
    # One line says it reads and from where; nothing of Spark's own output.
    assert errors.splitlines() == [
        f"pyspark-aof tail: reading {tmp_path}/app\\.log from the start of each file"
    ], errors
    assert sorted(p.split(" ", 1)[0] for p in printed) == sorted(written)
    assert kazoo.exists("/aof-tail") is None  # its own meta store, removed at the end


@pytest.mark.both_lines
def test_tail_verbose_shows_sparks_output_and_the_status_command_for_it(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    append(log, [f"line-{n}" for n in range(10)])
    tail = subprocess.Popen(
        [*CLI, "tail", f"{tmp_path}/app\\.log", "--verbose", "--starting-offsets", "earliest"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its JVM with it, for the kill below
    )
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.extend(tail.stderr or []), daemon=True)
    reader.start()
    said = "pyspark-aof tail: its state: "
    try:
        wait_until(lambda: any(said in e for e in errors), 120, "the status command on stderr")
        assert any("Setting default log level" in e for e in errors), "Spark's start-up notes"
        command = next(e for e in errors if said in e).split(said, 1)[1].split()
        assert command[:2] == ["pyspark-aof", "status"], command
        # That command, against the tail's embedded ZooKeeper, shows the file it reads.
        found: dict[str, Any] = {}

        def shows_the_file() -> bool:
            result = subprocess.run([*CLI, *command[1:], "--json"], capture_output=True, text=True)
            found.update(json.loads(result.stdout or "{}"))
            return [f["size"] for f in found.get("files", [])] == [log.stat().st_size]

        wait_until(shows_the_file, 30, "status to show the tail's file")
    finally:
        os.killpg(tail.pid, signal.SIGKILL)
        tail.wait(60)


def test_status_shows_endpoints_offsets_and_lag_of_a_running_query(
    spark: SparkSession, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    log = tmp_path / "logs" / "app.log"
    log.parent.mkdir()
    append(log, [f"line-{n}" for n in range(100)])
    rotated = log.parent / "app.log.1.gz"  # left out by ignore.older: counted, not reported
    rotated.write_bytes(gzip.compress(b"".join(b"old-%d whole end\n" % n for n in range(200))))
    os.utime(rotated, (time.time() - 3 * 86400, time.time() - 3 * 86400))
    store = "/aof-status-test"
    query = (
        aof.read_stream(
            spark,
            f"{log.parent}/app\\.log.*",
            zookeeper_address=zookeeper.address,
            meta_store=store,
            ignore_older="1d",
        )
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start()
    )
    try:
        query.processAllAvailable()
        append(log, [f"more-{n}" for n in range(10)])  # a batch more commits the first one
        query.processAllAvailable()
        args = ["status", "--zookeeper", zookeeper.address, "--meta-store", store]
        found: dict[str, Any] = {}

        def reports_current_size() -> bool:
            # Status asks the endpoint for its files and waits for them; they are as its last
            # trigger saw them, so this is polled all the same.
            found.update(
                json.loads(
                    subprocess.run(
                        [*CLI, *args, "--json"], capture_output=True, text=True, check=True
                    ).stdout
                )
            )
            return [f["size"] for f in found["files"]] == [log.stat().st_size]

        wait_until(reports_current_size, 30, "status to report the file's current size")
        text = subprocess.run([*CLI, *args], capture_output=True, text=True, check=True).stdout
    finally:
        query.stop()
    (run,) = found["runs"]
    assert run["driverAlive"]
    assert [h["endpoint"] is not None for h in run["hosts"]] == [True]
    assert [h["ignored"] for h in run["hosts"]] == [1]
    (committed,) = found["offsets"]
    assert committed["path"] == str(log)
    assert 0 < committed["position"] <= log.stat().st_size
    (reported,) = found["files"]
    assert reported["size"] == log.stat().st_size
    assert reported["bytesBehind"] == log.stat().st_size - committed["position"]
    assert "serving endpoint" in text and "files ignored" in text and str(log) in text


def test_status_reads_an_offset_backup_larger_than_a_znode(
    spark: SparkSession, zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    # The offsets of 40,000 files take over 1 MB even compressed: the backup is kept in parts.
    logs = tmp_path / "logs"
    logs.mkdir()
    count = 40_000
    for n in range(count):
        (logs / f"app-{n:05d}.log").write_bytes(f"line {n}\n".encode())
    store = "/aof-status-many"
    query = (
        aof.read_stream(
            spark,
            f"{logs}/app-.*",
            zookeeper_address=zookeeper.address,
            meta_store=store,
            meta_await_timeout=60_000,  # the first look at 40,000 files takes seconds
        )
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    assert sum(p["numInputRows"] for p in query.recentProgress) == count
    assert kazoo.get_children(f"{store}/offsets"), "the backup is not in parts"
    result = subprocess.run(
        [*CLI, "status", "--zookeeper", zookeeper.address, "--meta-store", store, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(result.stdout)
    assert len(found["offsets"]) == count
    assert all(o["position"] > 0 for o in found["offsets"])


def test_status_shows_a_run_it_cannot_ask_for_reports(
    zookeeper: ZooKeeperServer, kazoo: KazooClient
) -> None:
    # A run of a version before reports were asked for: no reports znode to write.
    store = "/aof-status-older"
    for path, data in [("driver", b""), ("latches/host-a", b""), ("endpoints/host-a", b"1@a")]:
        kazoo.create(f"{store}/runs/run-1/{path}", data, makepath=True)
    result = subprocess.run(
        [*CLI, "status", "--zookeeper", zookeeper.address, "--meta-store", store, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    (run,) = json.loads(result.stdout)["runs"]
    assert [(h["host"], h["endpoint"]) for h in run["hosts"]] == [("host-a", "1@a")]


# What a forged value holds: a clear screen, a window title, and a line made to look like status's.
FORGED = "\x1b[2J\x1b]0;owned\x07\nrun run-2 (driver alive)"
FORGED_SHOWN = r"\x1b[2J\x1b]0;owned\x07\nrun run-2 (driver alive)"


def _sealed(message: dict[str, Any]) -> bytes:
    """A message as the source seals it: a version byte, an HMAC (status checks none), gzip."""
    return b"\x01" + bytes(32) + gzip.compress(json.dumps(message).encode())


def test_status_shows_what_a_forged_store_holds_escaped(
    zookeeper: ZooKeeperServer, kazoo: KazooClient
) -> None:
    # Anyone who can write the store can forge its values: `kazoo` writes them as they would.
    store = "/aof-status-forged"
    run = RunZnodes.of(store, "run-\u202e1")  # a right-to-left override in a znode's name
    host = "host\x1b[31m"  # a znode's name holds no ESC: the source URL-encodes its hosts
    path = f"/var/log/{FORGED}"
    kazoo.create(run.driver, b"", makepath=True)
    kazoo.create(_znodes.of_host(run.latches, host), b"", makepath=True)
    kazoo.create(_znodes.of_host(run.endpoints, host), f"1@{FORGED}".encode(), makepath=True)
    files = [{"path": path, "dev": 1, "ino": 2, "size": 10, "lineEnd": 10, "unreadable": FORGED}]
    report = {"files": files, "unlisted": FORGED, "ignored": 0}
    kazoo.create(_znodes.of_host(run.reports, host), _sealed(report), makepath=True)
    kazoo.create(run.nodes, json.dumps({"expected": FORGED, "unread": [FORGED]}).encode())
    offsets = {"1:2:0": {"path": path, "dev": 1, "ino": 2, "pos": 5}}
    backup = {"version": 1, "hosts": {host: {"files": offsets}}}
    kazoo.create(_znodes.offsets(store), gzip.compress(json.dumps(backup).encode()))
    status = [*CLI, "status", "--zookeeper", zookeeper.address, "--meta-store", store]
    # One second to wait for the endpoint's report, which no endpoint writes.
    text = subprocess.run([*status, "--timeout", "1"], capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    shown = text.stdout
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202e]", shown), shown
    # A driver holds its znode in its session: a persistent one, anyone's, is no live driver.
    assert [line for line in shown.splitlines() if line.startswith("run ")] == [
        r"run run-\u202e1 (driver gone)"
    ]
    # Endpoint, problem, unread node, nodes to read; the backup's path; the report's two.
    assert shown.count(FORGED_SHOWN) == 7, shown
    assert shown.count(r"host\x1b[31m") == 3, shown  # hosts, offsets and files tables
    # JSON escapes them itself, and gives them back as they are.
    found = subprocess.run([*status, "--json", "--timeout", "1"], capture_output=True, text=True)
    assert "\x1b" not in found.stdout and "\x07" not in found.stdout
    assert json.loads(found.stdout)["files"][0]["path"] == path


def test_printable_escapes_what_a_terminal_would_act_on() -> None:
    assert printable("/var/log/app.log 10") == "/var/log/app.log 10"
    assert printable(FORGED) == FORGED_SHOWN
    # A backslash too, so that a shown \x1b is always an escaped ESC.
    assert printable("a\\x1b\u2028\ud800\x85\t") == r"a\\x1b\u2028\ud800\x85\t"
    assert printable(12) == "12"


def _gzip_of_zeros(size: int) -> bytes:
    """Gzip of ``size`` zero bytes (a multiple of a MiB), built from one compressed MiB.

    After a full flush deflate starts afresh, so every MiB compresses to the same bytes: a
    bomb of gigabytes at once, without the memory or the seconds compressing them takes.
    """
    mib = bytes(1 << 20)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate, the header written here
    block = deflate.compress(mib) + deflate.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(size >> 20):
        crc = zlib.crc32(mib, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    last = b"\x03\x00"  # an empty final block
    return header + block * (size >> 20) + last + struct.pack("<II", crc, size & 0xFFFFFFFF)


def test_a_gzip_of_zeros_is_what_it_says() -> None:
    assert gzip.decompress(_gzip_of_zeros(3 << 20)) == bytes(3 << 20)


def test_status_refuses_a_gzip_bomb_in_the_offset_backup_in_bounded_memory(
    zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    store = "/aof-status-bomb"
    bomb = _gzip_of_zeros(2 << 30)  # 2 MB that expand to 2 GiB
    # In parts, as the source writes a value larger than a znode (docs/protocol.md).
    parts = [bomb[i : i + 1_000_000] for i in range(0, len(bomb), 1_000_000)]
    for i, part in enumerate(parts):
        kazoo.create(f"{_znodes.offsets(store)}/forged.{i}", part, makepath=True)
    kazoo.set(_znodes.offsets(store), f"aof-parts forged {len(parts)} {len(bomb)}".encode())
    started = time.monotonic()
    result, peak = _run_measured(
        [*CLI, "status", "--zookeeper", zookeeper.address, "--meta-store", store], tmp_path
    )
    took = time.monotonic() - started
    _one_line_error(
        result,
        1,
        f"pyspark-aof: cannot show {store}/offsets: its value expands beyond 1073741824 bytes",
    )
    # The bound (1 GiB) and the interpreter; the whole value would take 2 GiB and more.
    assert peak < 1.5 * 2**30, f"held {peak / 2**30:.2f} GiB"
    assert took < 60, f"took {took:.0f} s"


def _run_measured(
    command: list[str], tmp_path: Path
) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run ``command``; return how it ended and the most memory it held (its peak RSS, bytes)."""
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr)
        # wait4 gives that process's own resource use, which Popen.wait does not.
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    ended = subprocess.CompletedProcess(
        command, process.returncode, out.read_text(), err.read_text()
    )
    return ended, usage.ru_maxrss * 1024  # kilobytes on Linux


def test_status_says_clearly_when_nothing_is_there(zookeeper: ZooKeeperServer) -> None:
    result = subprocess.run(
        [*CLI, "status", "--zookeeper", zookeeper.address, "--meta-store", "/nothing/here"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "nothing at /nothing/here" in result.stderr


def test_help_says_which_versions_work() -> None:
    from pyspark_aof._versions import SUPPORTED_TEXT

    result = subprocess.run([*CLI, "--help"], capture_output=True, text=True, timeout=60)
    assert SUPPORTED_TEXT in " ".join(result.stdout.split())
    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text().split())
    assert "PySpark 3.4 to 4.3" in readme
    pyproject = (Path(__file__).parents[2] / "python" / "pyproject.toml").read_text()
    python = re.search(r'requires-python = ">=([\d.]+)"', pyproject)
    assert python and f"Python {python[1]} or newer" in readme


def test_tails_help_shows_the_one_path_it_takes() -> None:
    result = subprocess.run([*CLI, "tail", "--help"], capture_output=True, text=True, timeout=60)
    usage = result.stdout.split("\n\n")[0]
    assert usage.rstrip().endswith(" path") and "[path ...]" not in usage, usage


def test_tail_says_what_a_glob_read_as_a_regex_leaves_out(tmp_path: Path) -> None:
    from pyspark_aof._arguments import read_as_regex

    for name in ("app.log", "app-1.log", "app.log.1"):
        (tmp_path / name).write_text("a line\n")
    said = read_as_regex(f"{tmp_path}/app*.log")
    assert said is not None
    assert "matches 1 (app.log) here" in said and "would match 2 (app-1.log, app.log)" in said
    assert said.endswith(f"use '{tmp_path}/app.*\\.log'")
    assert f"use '{tmp_path}/app\\.log.*'" in (read_as_regex(f"{tmp_path}/app.log*") or "")
    # A regex that reads as none, and one whose files are the glob's: nothing to say.
    assert read_as_regex(f"{tmp_path}/app.*\\.log") is None
    assert read_as_regex(f"{tmp_path}/app-1*.log") is None


@pytest.mark.both_lines
def test_a_commands_session_drops_sparks_falling_behind_warnings(spark: SparkSession) -> None:
    """``tail --verbose`` shows Spark's log, but not that a batch outlasted tail's own trigger."""
    from pyspark_aof.demo import quiet_zookeeper

    quiet_zookeeper(spark)
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    executor = jvm.org.apache.spark.sql.execution.streaming
    this_line = (
        executor.runtime.ProcessingTimeExecutor
        if spark.version >= "4"
        else executor.ProcessingTimeExecutor
    )
    name = this_line._java_lang_class.getName()  # fails when Spark moves the class again
    assert str(jvm.org.apache.logging.log4j.LogManager.getLogger(name).getLevel()) == "ERROR"


def test_the_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("pyspark-aof")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=True)
    for command in ("demo", "tail", "status"):
        assert command in result.stdout


def test_the_progress_line_shows_batch_lines_and_lag() -> None:
    from pyspark_aof._output import progress_line

    progress = {
        "batchId": 7,
        "numInputRows": 120,
        "sources": [{"metrics": {"bytesBehindLatest": "4096"}}],
    }
    assert progress_line(progress) == "aof tail: batch 7, 120 lines, 4096 bytes behind"
    assert progress_line(None) == "aof tail: starting"


def test_the_status_command_of_a_query_with_acls_names_its_user_and_no_password() -> None:
    metrics = {"zookeeperAddress": "127.0.0.1:2181", "metaStore": "/aof/x"}
    command = command_for({"sources": [{"metrics": metrics}]}, "reader")
    assert (
        command == "pyspark-aof status --zookeeper 127.0.0.1:2181 --meta-store /aof/x --auth reader"
    )


def _one_line_error(result: subprocess.CompletedProcess[str], status: int, *words: str) -> None:
    """Assert the command failed with ``status`` and one line on stderr that holds ``words``."""
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.endswith("\n") and result.stderr.count("\n") == 1, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param(["tail", "relative/path"], ["tail: error:", "absolute"], id="relative"),
        pytest.param(["tail", "/var/log/"], ["tail: error:", "regex"], id="no-file-part"),
        pytest.param(["tail", "/x", "--option", "bytes.max"], ["--option", "KEY=VALUE"], id="no-="),
        pytest.param(["tail", "/x", "--option", "no.such=1"], ["--option", "no.such"], id="key"),
        pytest.param(
            ["tail", "/x", "--option", "bytes.max=0"], ["--option", "bytes.max"], id="value"
        ),
        pytest.param(["tail", "/x", "--zookeeper", "zk"], ["tail: error:", "--zookeeper"], id="zk"),
        pytest.param(
            ["tail", "/tmp/x/*.log"],
            ["tail: error:", "not a shell glob", r"'/tmp/x/.*\.log'"],
            id="glob",
        ),
        pytest.param(
            ["tail", "/tmp/x/a.log", "/tmp/x/b.log"],
            ["tail: error:", "2 paths", "Quote it", r"'/tmp/x/.*\.log'"],
            id="expanded",
        ),
        # The shell's expansion of /var/log/pods/*/*/0.log: its directories kept, as a glob.
        pytest.param(
            ["tail", "/var/log/pods/a_1/web/0.log", "/var/log/pods/b_2/db/0.log"],
            ["2 paths", "takes one path", r"'/var/log/pods/*/*/0\.log'"],
            id="expanded-directories",
        ),
        # Of app.log*: what the names share at the start.
        pytest.param(
            ["tail", "/var/log/app.log", "/var/log/app.log.1", "/var/log/app.log.2.gz"],
            ["3 paths", r"'/var/log/app\.log.*'"],
            id="expanded-rotations",
        ),
        pytest.param(["tail", "/x", "--meta-store", "aof"], ["--meta-store"], id="store"),
        pytest.param(["tail", "/x", "--auth", ""], ["--auth", "a user name"], id="auth"),
        pytest.param(["tail", "/x", "--starting-offsets", "soon"], ["--starting"], id="start"),
        pytest.param(["demo", "--seconds", "-1"], ["demo: error:", "--seconds"], id="seconds"),
        pytest.param(["demo", "--seconds", "nan"], ["--seconds", "positive"], id="nan"),
        pytest.param(["demo", "--rate", "0"], ["demo: error:", "--rate"], id="rate"),
        pytest.param(
            ["status", "--zookeeper", "zk:port", "--meta-store", "/aof"],
            ["status: error:", "--zookeeper"],
            id="status-zk",
        ),
        pytest.param(
            ["status", "--zookeeper", "zk:2181", "--meta-store", "aof"],
            ["status: error:", "--meta-store"],
            id="status-store",
        ),
        pytest.param(
            ["status", "--zookeeper", "zk:2181", "--meta-store", "/aof", "--timeout", "0"],
            ["status: error:", "--timeout"],
            id="status-timeout",
        ),
        # A password is never taken on the command line, which any user of the host can read.
        pytest.param(
            ["tail", "/x", "--auth", "reader:s3cret"],
            ["--auth", "visible to every", "AOF_ZOOKEEPER_AUTH_PASSWORD", "--auth-password-file"],
            id="tail-auth-password",
        ),
        pytest.param(
            ["tail", "/x", "--option", "zookeeper.sasl.password=s3cret"],
            ["--option", "visible to every user", "AOF_ZOOKEEPER_SASL_PASSWORD"],
            id="tail-option-password",
        ),
        pytest.param(
            ["tail", "/x", "--auth", "reader"],
            ["--auth is set but AOF_ZOOKEEPER_AUTH_PASSWORD (or --auth-password-file) is not"],
            id="tail-no-password",
        ),
        *(
            pytest.param(
                ["status", "--zookeeper", "zk:2181", "--meta-store", "/aof", given],
                [f"argument {flag}:", "visible to every user", variable, file],
                id=f"status{flag}",
            )
            for given, flag, variable, file in [
                (
                    "--auth=reader:s3cret",
                    "--auth",
                    "AOF_ZOOKEEPER_AUTH_PASSWORD",
                    "--auth-password-file",
                ),
                (
                    "--auth-password=s3cret",
                    "--auth-password",
                    "AOF_ZOOKEEPER_AUTH_PASSWORD",
                    "--auth-password-file",
                ),
                (
                    "--sasl-password=s3cret",
                    "--sasl-password",
                    "AOF_ZOOKEEPER_SASL_PASSWORD",
                    "--sasl-password-file",
                ),
                (
                    "--ssl-keystore-password=s3cret",
                    "--ssl-keystore-password",
                    "AOF_ZOOKEEPER_SSL_KEYSTORE_PASSWORD",
                    "--ssl-keystore-password-file",
                ),
            ]
        ),
    ],
)
def test_a_bad_argument_is_one_line_with_status_2(args: list[str], words: list[str]) -> None:
    # A timeout: some of these once ran a tail or a demo instead.
    result = subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=120, env=_without_passwords()
    )
    _one_line_error(result, 2, "pyspark-aof ", *words)
    assert result.stdout == ""
    assert "s3cret" not in result.stderr, "an error repeats the password"
    if "--option" not in args:  # there the user named the source's option
        for option in ("for option", "spark.aof."):
            assert option not in result.stderr, "a flag's error names the source's option"


@pytest.mark.both_lines
def test_a_file_name_regex_spark_refuses_is_one_line_with_status_2(tmp_path: Path) -> None:
    # The regex is Java's, so only Spark can judge it: the JVM's message, without its stack.
    result = subprocess.run(
        [*CLI, "tail", f"{tmp_path}/app[.log"], capture_output=True, text=True, timeout=120
    )
    _one_line_error(result, 2, "pyspark-aof tail: error:", "regex", "Unclosed character class")


@pytest.mark.both_lines
def test_a_spark_that_cannot_start_is_one_line_with_status_1(tmp_path: Path) -> None:
    result = subprocess.run(
        [*CLI, "tail", f"{tmp_path}/app\\.log"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "JAVA_HOME": str(tmp_path / "no-java")},
    )
    # Why is in the JVM's output, which goes to the log the line names.
    _one_line_error(result, 1, "pyspark-aof: Spark did not start", "pyspark-aof-tail-")


@pytest.mark.parametrize(
    ("address", "why"),
    [
        pytest.param("127.0.0.1:{port}", "Connection refused", id="refused"),
    ],
)
def test_status_says_in_one_line_when_zookeeper_is_out_of_reach(address: str, why: str) -> None:
    address = address.format(port=free_port())
    result = subprocess.run(
        [*CLI, "status", "--zookeeper", address, "--meta-store", "/aof", "--timeout", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # Nothing of kazoo's own log (a line per attempt), the reason in the one line instead.
    _one_line_error(
        result,
        1,
        f"pyspark-aof: cannot reach ZooKeeper at {address} within 1 s",
        "--zookeeper",
        why,
    )


def test_status_reads_a_store_with_acls_with_the_password_from_the_environment_or_a_file(
    spark: SparkSession, zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    append(tmp_path / "app.log", ["line-1"])
    store = "/aof-status-acl"
    query = (
        aof.read_stream(
            spark,
            f"{tmp_path}/app\\.log",
            zookeeper_address=zookeeper.address,
            meta_store=store,
            zookeeper_auth_user="reader",
            zookeeper_auth_password="secret",
        )
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start()
    )
    status = [*CLI, "status", "--zookeeper", zookeeper.address, "--meta-store", store]
    password = tmp_path / "password"
    password.write_text("secret\n")  # as `echo` writes it: the line end is no part of it

    def run(*args: str, **environment: str) -> subprocess.CompletedProcess[str]:
        env = {**_without_passwords(), **environment}
        return subprocess.run([*status, *args], capture_output=True, text=True, env=env)

    try:
        query.processAllAvailable()
        refused = run()
        from_environment = run("--auth", "reader", AOF_ZOOKEEPER_AUTH_PASSWORD="secret")
        from_file = run("--auth", "reader", "--auth-password-file", str(password), "--json")
    finally:
        query.stop()
    _one_line_error(refused, 1, f"pyspark-aof: ZooKeeper refused to show {store}", "--auth")
    assert from_environment.returncode == 0, from_environment.stderr
    assert f"meta store {store}" in from_environment.stdout
    assert from_file.returncode == 0, from_file.stderr
    (committed,) = json.loads(from_file.stdout)["offsets"]
    assert committed["path"] == str(tmp_path / "app.log")


def _without_passwords() -> dict[str, str]:
    """The environment of this process, less the variables the command line takes passwords from."""
    return {k: v for k, v in os.environ.items() if not k.startswith("AOF_ZOOKEEPER_")}


def _runs_an_endpoint(kazoo: KazooClient, store: str) -> bool:
    """Whether a run of the query on ``store`` has an endpoint serving its host's files."""
    runs = kazoo.get_children(f"{store}/runs") if kazoo.exists(f"{store}/runs") else []
    return any(
        kazoo.exists(f"{store}/runs/{run}/endpoints")
        and kazoo.get_children(f"{store}/runs/{run}/endpoints")
        for run in runs
    )


def test_tail_warns_once_of_a_missing_directory_and_waits_for_it(
    zookeeper: ZooKeeperServer, kazoo: KazooClient, tmp_path: Path
) -> None:
    logs = tmp_path / "later"
    store = "/aof-missing-directory"
    tail, printed, reader = _tail_from_start(f"{logs}/app\\.log", zookeeper, "--meta-store", store)
    try:
        wait_until(lambda: _runs_an_endpoint(kazoo, store), 120, "the tail's query to run")
        logs.mkdir()
        written = append(logs / "app.log", [f"line-{n}" for n in range(100)])
        wait_until(lambda: len(printed) >= 100, 60, "the lines of the directory made since")
    finally:
        tail.send_signal(signal.SIGINT)
        code = tail.wait(60)
    reader.join(10)
    errors = tail.stderr.read() if tail.stderr else ""
    assert code == 0, errors
    assert errors.splitlines() == [
        f"pyspark-aof tail: warning: {logs} does not exist (yet); watching for it",
        f"pyspark-aof tail: reading {logs}/app\\.log from the start of each file",
    ]
    assert sorted(p.split(" ", 1)[0] for p in printed) == sorted(written)


def test_tail_prints_what_is_written_while_spark_starts_and_nothing_from_before(
    zookeeper: ZooKeeperServer, tmp_path: Path
) -> None:
    """Lines written from the command's start on, in write order across a rotation."""
    log = tmp_path / "app.log"
    append(log, [f"before-{n}" for n in range(100)])
    command = [*CLI, "tail", f"{tmp_path}/app\\.log.*", "--zookeeper", zookeeper.address]
    tail = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    launched = time.monotonic()
    printed: list[str] = []
    reader = threading.Thread(target=lambda: printed.extend(tail.stdout or []), daemon=True)
    reader.start()
    written_at: dict[str, float] = {}
    try:
        with log.open("a") as out:  # a logger writing while Spark starts
            while not printed and time.monotonic() - launched < 120:
                n = len(written_at)
                out.write(f"during-{n}\n")
                out.flush()
                written_at[f"during-{n}"] = time.monotonic() - launched
                time.sleep(0.02)
            out.write("rest-of-old\n")
        # Rotated as logrotate's `create` does; the new file's line most likely read in the same
        # batch as the rest of the old one, and the new file's inode may sort first.
        log.rename(tmp_path / "app.log.1")
        append(log, ["new-file"])
        wait_until(lambda: "new-file whole end\n" in printed, 60, "the new file's line")
    finally:
        tail.send_signal(signal.SIGINT)
        code = tail.wait(60)
    reader.join(10)
    assert code == 0, tail.stderr.read() if tail.stderr else ""
    lines = [p.rstrip("\n") for p in printed]
    before = [line for line in lines if line.startswith("before-")]
    during = [line for line in lines if line.startswith("during-")]
    # Every line written since the command began, in order, the first ones too (written as
    # Python started). Before them, at most the few last written as it began: a file written
    # then is taken back by an estimate of what it grew meanwhile (see _since_start).
    assert during == [f"during-{n}" for n in range(len(written_at))]
    assert before == [f"before-{n} whole end" for n in range(100 - len(before), 100)], before
    assert len(before) <= 30, before
    assert lines == [*before, *during, "rest-of-old", "new-file whole end"]


def test_a_pattern_is_watched_for_from_its_literal_start(tmp_path: Path) -> None:
    pattern = f"{tmp_path}/pods/*_*/{{app,side}}/0\\.log"
    assert missing_directory(pattern) == f"{tmp_path}/pods does not exist (yet)"
    (tmp_path / "pods").mkdir()
    assert missing_directory(pattern) is None  # no pod yet is no reason to warn


def test_the_sizes_tail_notes_at_its_start_are_of_the_files_the_source_reads(
    tmp_path: Path,
) -> None:
    def key(path: Path) -> str:
        found = path.stat()
        return f"{found.st_dev}:{found.st_ino}"

    read = []
    for pod, name in (("a_1", "0.log"), ("b_2", "0.log"), ("b_2", "0.log.1")):
        (tmp_path / "pods" / pod / "app").mkdir(parents=True, exist_ok=True)
        read.append(tmp_path / "pods" / pod / "app" / name)
        read[-1].write_text("x" * len(read))
    (tmp_path / "pods" / "a_1" / "app" / "other.txt").write_text("other")
    (tmp_path / "pods" / "a_1" / "app" / "0.log.link").symlink_to(read[0])
    rotated = tmp_path / "pods" / "b_2" / "app" / "0.log.2.gz"
    rotated.write_bytes(gzip.compress(b"old lines\n" * 100))
    sizes = sizes_now(f"{tmp_path}/pods/*_*/app/0\\.log.*")
    # A gzip file's offsets are of what it decompresses to: all it holds is from before.
    assert sizes == {key(path): n for n, path in enumerate(read, 1)} | {key(rotated): 1 << 62}
    # What Python cannot match as the JVM does: no sizes, and tail starts at each file's end.
    assert sizes_now(f"{tmp_path}/pods/{{a_1,b_2}}/app/0\\.log") is None
    assert sizes_now(f"{tmp_path}/pods/(unclosed") is None


def test_status_fails_at_once_when_no_host_resolves() -> None:
    started = time.monotonic()
    result = subprocess.run(
        [*CLI, "status", "--zookeeper", "notaconnectstring.invalid:2181", "--meta-store", "/aof"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    _one_line_error(result, 1, "pyspark-aof: cannot reach ZooKeeper", "does not resolve")
    assert time.monotonic() - started < 15, "waited for the whole --timeout (20 s)"


@pytest.mark.parametrize("written_after", [10_000, 0], ids=["more-than-a-pipe", "nothing"])
def test_tail_stops_quietly_when_its_reader_goes(tmp_path: Path, written_after: int) -> None:
    log = tmp_path / "app.log"
    append(log, [f"before-{n}" for n in range(10)])
    tail = subprocess.Popen(
        [*CLI, "tail", f"{tmp_path}/app\\.log", "--starting-offsets", "earliest"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert tail.stdout is not None
    try:
        assert tail.stdout.readline().startswith("before-")
        tail.stdout.close()  # as `| head -1` does
        closed = time.monotonic()
        append(log, [f"after-{n}" for n in range(written_after)])
        code = tail.wait(60)
        stopped = time.monotonic() - closed
    finally:
        tail.kill()
    errors = tail.stderr.read() if tail.stderr else ""
    assert (code, errors.splitlines()[1:]) == (0, [])  # the line that it reads, nothing else
    # Without a write to fail, it sees the pipe closed within a second; Spark then stops.
    assert stopped < 15, f"took {stopped:.1f} s to stop"


def _session(leader: int) -> list[int]:
    """Return the processes left of the session ``leader`` started, its JVM included."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):  # gone meanwhile
            if entry.name.isdigit() and os.getsid(int(entry.name)) == leader:
                found.append(int(entry.name))
    return found


def _is_java(pid: int) -> bool:
    """Whether process ``pid`` runs Java; ``False`` once it is gone."""
    try:
        command = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return False
    return Path(command.decode()).name == "java"


@pytest.mark.both_lines
def test_ctrl_c_while_tail_starts_stops_its_jvm_too(tmp_path: Path) -> None:
    tail = subprocess.Popen(
        [*CLI, "tail", f"{tmp_path}/app\\.log"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its JVM with it, to find and to kill if it stays
    )
    try:
        # Java runs Spark's launcher, then the JVM, before that reports to Python: a Ctrl-C
        # then used to end Python and leave the JVM waiting for it for ever.
        wait_until(lambda: any(map(_is_java, _session(tail.pid))), 60, "Spark's JVM starting")
        os.killpg(tail.pid, signal.SIGINT)  # a terminal's Ctrl-C signals the whole group
        code = tail.wait(60)
        wait_until(lambda: not _session(tail.pid), 60, "the tail's JVM to stop")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(tail.pid, signal.SIGKILL)
    errors = tail.stderr.read() if tail.stderr else ""
    assert (code, errors) == (130, "")


@pytest.mark.both_lines
def test_spark_errors_come_down_to_the_jvm_message_on_one_line(
    spark: SparkSession, tmp_path: Path
) -> None:
    from pyspark.errors import IllegalArgumentException, StreamingQueryException

    from pyspark_aof._errors import spark_message

    # With the JVM's stack trace in the message too, as the session may ask for.
    spark.conf.set("spark.sql.pyspark.jvmStacktrace.enabled", "true")
    try:
        with pytest.raises(IllegalArgumentException) as refused:
            spark.readStream.format("aof").load("relative/app\\.log")
        with pytest.raises(ValueError) as converted:
            aof.read_stream(spark, "relative/app\\.log")
    finally:
        spark.conf.unset("spark.sql.pyspark.jvmStacktrace.enabled")
    assert spark_message(refused.value).startswith("Invalid value 'relative/app\\.log' for option")
    assert str(converted.value) == spark_message(refused.value)

    def fail(batch: DataFrame, batch_id: int) -> None:
        raise RuntimeError("no room left")

    query = (
        spark.readStream.format("rate")
        .load()
        .writeStream.foreachBatch(fail)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start()
    )
    with pytest.raises(StreamingQueryException) as failed:
        query.awaitTermination(60)
    # The query's wrapping goes, and so does the Python traceback inside it.
    message = spark_message(failed.value)
    assert message.endswith("RuntimeError: no room left"), message
    assert "\n" not in message and "terminated with exception" not in message
