"""Reference row: the same lines read from a Kafka topic by Spark's Kafka source.

What users would otherwise run. One broker in KRaft mode (no ZooKeeper), its JARs fetched by
Maven, holding the throughput file's lines in a topic of two partitions (one per core of
``local[2]``). The topic is loaded once and kept in ``bench/data/kafka`` with the other data.

Run as a script, it runs a command while a broker with no topic is up, ``{broker}`` in the
command replaced by its address: the real-time latency benchmark's reference row.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyspark

KAFKA = ("org.apache.kafka", "kafka_2.13", "3.7.2")
LOGGING = ("org.slf4j", "slf4j-reload4j", "1.7.36")
PORT, CONTROLLER_PORT = 19092, 19093
TOPIC = "lines"


def spark_package() -> str:
    """Spark's Kafka source for this PySpark, for ``spark.jars.packages``."""
    scala = "2.12" if pyspark.__version__.startswith("3") else "2.13"
    return f"org.apache.spark:spark-sql-kafka-0-10_{scala}:{pyspark.__version__}"


def published() -> bool:
    """Whether Maven has Spark's Kafka source for this PySpark (it may follow a release later).

    Fetches the JAR, not only its POM: Spark's package resolver looks in the local Maven
    repository first and fails on a POM found there without its JAR.
    """
    group, artifact, version = spark_package().split(":")
    found = subprocess.run(
        [
            "mvn",
            "-q",
            "dependency:get",
            f"-Dartifact={group}:{artifact}:{version}",
            "-Dtransitive=false",
        ],
        capture_output=True,
    )
    return found.returncode == 0


def _install(home: Path) -> Path:
    """Fetch the broker's JARs once, by Maven, from a two-dependency POM."""
    lib = home / "lib"
    if (lib / ".done").exists():
        return lib
    dependencies = "".join(
        f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
        f"<version>{v}</version></dependency>"
        for g, a, v in (KAFKA, LOGGING)
    )
    pom = home / "pom.xml"
    pom.write_text(
        "<project><modelVersion>4.0.0</modelVersion>"
        "<groupId>bench</groupId><artifactId>kafka-broker</artifactId><version>1</version>"
        f"<dependencies>{dependencies}</dependencies></project>\n"
    )
    subprocess.run(
        ["mvn", "-q", "-f", str(pom), "dependency:copy-dependencies", f"-DoutputDirectory={lib}"],
        check=True,
    )
    (lib / ".done").touch()
    return lib


def _java(lib: Path, home: Path, *args: str) -> list[str]:
    quiet = home / "log4j.properties"
    quiet.write_text(
        "log4j.rootLogger=WARN, out\n"
        "log4j.appender.out=org.apache.log4j.ConsoleAppender\n"
        "log4j.appender.out.layout=org.apache.log4j.PatternLayout\n"
    )
    return ["java", "-Xmx1g", f"-Dlog4j.configuration=file:{quiet}", "-cp", f"{lib}/*", *args]


def _config(home: Path) -> Path:
    config = home / "server.properties"
    config.write_text(
        "process.roles=broker,controller\n"
        "node.id=1\n"
        f"controller.quorum.voters=1@127.0.0.1:{CONTROLLER_PORT}\n"
        f"listeners=PLAINTEXT://127.0.0.1:{PORT},CONTROLLER://127.0.0.1:{CONTROLLER_PORT}\n"
        "controller.listener.names=CONTROLLER\n"
        f"log.dirs={home / 'data'}\n"
        "num.partitions=2\n"
        "offsets.topic.replication.factor=1\n"
        "transaction.state.log.replication.factor=1\n"
        "transaction.state.log.min.isr=1\n"
    )
    return config


def _await_port(process: subprocess.Popen[bytes], output: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the Kafka broker exited: {output.read_text()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the Kafka broker did not listen within {seconds} s: {output}")


@contextmanager
def broker(home: Path, log: Path | None) -> Iterator[str]:
    """Run a broker whose topic ``TOPIC`` holds every line of ``log``, if any; yield its address.

    A topic loaded from another file, or whose load was interrupted, is dropped with the
    broker's data and loaded again.
    """
    home.mkdir(parents=True, exist_ok=True)
    lib = _install(home)
    config = _config(home)
    stamp = f"{log.stat().st_size} {log.stat().st_mtime_ns}" if log else "no topic"
    marker = home / "topic.done"
    loaded = marker.exists() and marker.read_text() == stamp
    if not loaded:
        marker.unlink(missing_ok=True)
        shutil.rmtree(home / "data", ignore_errors=True)
    if not (home / "data" / "meta.properties").exists():
        cluster = subprocess.run(
            _java(lib, home, "kafka.tools.StorageTool", "random-uuid"),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        format_storage = ["kafka.tools.StorageTool", "format", "-t", cluster, "-c", str(config)]
        subprocess.run(_java(lib, home, *format_storage), capture_output=True, check=True)
    output = home / "broker.log"
    with output.open("wb") as out:
        process = subprocess.Popen(
            _java(lib, home, "kafka.Kafka", str(config)), stdout=out, stderr=subprocess.STDOUT
        )
    try:
        _await_port(process, output)
        address = f"127.0.0.1:{PORT}"
        if not loaded:
            if log:
                _load(lib, home, address, log)
            marker.write_text(stamp)
        yield address
    finally:
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()


def _load(lib: Path, home: Path, address: str, log: Path) -> None:
    """Every line of ``log`` as one record, through Kafka's own console producer."""
    properties = {"batch.size": 1 << 20, "linger.ms": 50, "acks": 1, "buffer.memory": 1 << 27}
    producer = ["kafka.tools.ConsoleProducer", "--bootstrap-server", address, "--topic", TOPIC]
    for key, value in properties.items():
        producer += ["--producer-property", f"{key}={value}"]
    with log.open("rb") as lines:
        subprocess.run(_java(lib, home, *producer), stdin=lines, capture_output=True, check=True)


def main() -> None:
    """Run the command given while a broker is up, ``{broker}`` in it replaced by its address."""
    home = Path(__file__).parent / "data" / "kafka-no-topic"
    with broker(home, None) as address:
        subprocess.run([a.replace("{broker}", address) for a in sys.argv[1:]], check=True)


if __name__ == "__main__":
    main()
