"""Where a run spends its CPU: Java Flight Recorder's samples of the local-mode JVM."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from pyspark.sql import SparkSession


def _jfr_tool() -> str:
    """Find the JDK's ``jfr`` command, beside the ``java`` that runs Spark."""
    java_home = os.environ.get("JAVA_HOME")
    beside = Path(java_home, "bin", "jfr") if java_home else None
    found = str(beside) if beside and beside.exists() else shutil.which("jfr")
    if found is None:
        raise RuntimeError("the JDK's 'jfr' command is needed to profile; set JAVA_HOME")
    return found


def top_frames(spark: SparkSession, run: Callable[[], object], count: int = 8) -> list[list[str]]:
    """Run ``run`` under a recording; return ``[method, share]`` of the most sampled frames.

    A frame's share is the fraction of execution samples whose top of stack it is: where the
    threads of the driver's JVM (in local mode, also the executor's) spent their time.
    """
    jvm = spark.sparkContext._jvm
    assert jvm is not None, "a session started in this process"
    jfr = jvm.jdk.jfr
    recording = jfr.Recording(jfr.Configuration.getConfiguration("profile"))
    recording.start()
    try:
        run()
    finally:
        recording.stop()
    with tempfile.TemporaryDirectory(prefix="aof-profile-") as tmp:
        dump = Path(tmp) / "run.jfr"
        recording.dump(jvm.java.io.File(str(dump)).toPath())
        recording.close()
        command = [_jfr_tool(), "print", "--json", "--stack-depth", "1"]
        printed = subprocess.run(
            [*command, "--events", "jdk.ExecutionSample", str(dump)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    tops: Counter[str] = Counter()
    for event in json.loads(printed)["recording"]["events"]:
        frames = event["values"]["stackTrace"]["frames"]
        if frames:
            method = frames[0]["method"]
            tops[f"{method['type']['name'].replace('/', '.')}.{method['name']}"] += 1
    total = sum(tops.values()) or 1
    return [[name, f"{100 * n / total:.0f}%"] for name, n in tops.most_common(count)]
