"""A streaming application for the cluster suites: the source into a JSON file sink.

Run as ``python cluster_app.py --master URL --path P --checkpoint C --output O --stop-file S
[--executors N] [--conf k=v ...] [--option k=v ...] [--available-now] [--real-time D]
[--hold-file H]``. It runs until the stop file appears, then stops the query cleanly; it exits
non-zero with the query's error when the query fails. With ``--available-now`` it runs one
``Trigger.AvailableNow`` query to its end. With ``--real-time`` the query runs in real-time mode,
batches of ``D``, into :class:`AttemptFiles`. With ``--hold-file``, once its executors are there
it writes ``H.ready`` and starts the query when ``H`` appears.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import uuid
from pathlib import Path
from typing import IO

from pyspark.sql import Row, SparkSession

import pyspark_aof as aof


def _pairs(values: list[str]) -> dict[str, str]:
    return dict(v.split("=", 1) for v in values)


class AttemptFiles:
    """A real-time query's sink (file sinks have no real-time mode): each task attempt's rows as
    JSON lines in a file of its own, ``<epoch>-<partition>-<attempt>.jsonl``, written as they come,
    so a test sees what an attempt delivered before it was killed."""

    def __init__(self, output: str) -> None:
        self.output = output
        self.file: IO[str] | None = None

    def open(self, partition_id: int, epoch_id: int) -> bool:
        name = f"{epoch_id}-{partition_id}-{uuid.uuid4().hex}.jsonl"
        self.file = open(Path(self.output) / name, "a", buffering=1)  # noqa: SIM115
        return True

    def process(self, row: Row) -> None:
        assert self.file is not None
        self.file.write(json.dumps(row.asDict(), default=str) + "\n")

    def close(self, error: BaseException | None) -> None:
        if self.file is not None:
            self.file.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("--master", "--path", "--checkpoint", "--output", "--stop-file"):
        parser.add_argument(name, required=True)
    parser.add_argument("--executors", type=int, default=0)
    parser.add_argument("--conf", action="append", default=[])
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("--available-now", action="store_true")
    parser.add_argument("--real-time")
    parser.add_argument("--hold-file")
    args = parser.parse_args()

    builder = aof.configure(SparkSession.builder.master(args.master).appName("aof cluster test"))
    settings = {
        "spark.driver.host": "127.0.0.1",
        "spark.executor.cores": "1",
        "spark.executor.memory": "512m",
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.executor.defaultJavaOptions": os.environ.get("AOF_TEST_JVM_OPTIONS", ""),
        **_pairs(args.conf),
    }
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    context = spark.sparkContext._jsc.sc()
    tracker = context.statusTracker()

    def executors() -> int:
        # Registered with the scheduler (the status tracker) and with the block manager master,
        # which the source lists executors from: an executor joins the second a moment after the
        # first, and one frozen in between would not be a host with an executor to the source.
        # Each counts the driver too.
        listed = min(len(tracker.getExecutorInfos()), context.getExecutorMemoryStatus().size())
        return int(listed) - 1

    deadline = time.monotonic() + 120
    while executors() < args.executors:
        if time.monotonic() > deadline:
            raise TimeoutError(f"fewer than {args.executors} executors registered")
        time.sleep(0.2)
    if args.hold_file:
        Path(f"{args.hold_file}.ready").touch()
        while not Path(args.hold_file).exists():
            time.sleep(0.05)

    lines = aof.read_stream(
        spark, args.path, options=aof.AofOptions.from_strings(_pairs(args.option))
    )
    writer = lines.writeStream.format("json").option("checkpointLocation", args.checkpoint)
    if args.available_now:
        writer.trigger(availableNow=True).start(args.output).awaitTermination()
        spark.stop()
        return
    if args.real_time:
        Path(args.output).mkdir(parents=True, exist_ok=True)
        writer = (
            lines.writeStream.outputMode("update")  # real-time mode's only mode
            .foreach(AttemptFiles(args.output))
            .option("checkpointLocation", args.checkpoint)
            .trigger(realTime=args.real_time)  # type: ignore[call-overload]
        )
        query = writer.start()
    else:
        query = writer.start(args.output)
    stop_file = Path(args.stop_file)
    while not stop_file.exists():
        query.awaitTermination(1)  # raises the query's error when it failed
    if args.real_time:  # a real-time batch runs until its time is up: stopped inside one
        query.stop()
        spark.stop()
        return
    # Stopped between batches, as a driver to be switched should be: a stop that lands inside a
    # batch, after the sink committed it and before Spark's commit log did, leaves the offset
    # backup one trigger behind, as a crash does. While it gets offsets, the last batch is done.
    while query.status["isTriggerActive"] and not query.status["message"].startswith(
        "Getting offsets"
    ):
        time.sleep(0.01)
    query.stop()
    spark.stop()


if __name__ == "__main__":
    main()
