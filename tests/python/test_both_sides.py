"""What the Python package and the JVM side each judge, held equal by running both.

Each case goes to the Python code and to the connector's Scala code in the session's JVM (through
py4j): option checks and their messages, and ``status`` on znodes the JVM lays out. The znode
layout and the path rules are held to tables instead (``test_shared_tables.py``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from kazoo.client import KazooClient
from pyspark.errors import IllegalArgumentException
from pyspark.sql import SparkSession

from pyspark_aof import AofOptions, StartingOffsets, status
from pyspark_aof._errors import spark_message
from pyspark_aof._options import _as_string
from pyspark_aof.testing import ZooKeeperServer

# Options as PySpark passes them, strings, with what each case shows. Each kind of option has
# good and bad values, spaced, signed, out of range, and non-ASCII look-alikes of good ones.
_MULTILINE = {"multiline.start": "^\\d"}  # the multi-line tuning applies to records only
OPTIONS: list[tuple[str, dict[str, str]]] = [
    *[
        (f"int {raw!r}", {"zookeeper.session.timeout": raw})
        for raw in [
            *("10000", " 42 ", "+7", "007", "2147483647", "\u0661\u0660"),
            *("0", "-1", "2147483648", "1.5", "ten", "", "1_000", "0x10", "5\u00a0", "\x015"),
        ]
    ],
    *[
        (f"long {raw!r}", {"bytes.max": raw})
        for raw in ("1", "9223372036854775807", "\t64\n", "0", "9223372036854775808", "1e6")
    ],
    *[
        (f"boolean {raw!r}", {"md5.check.enabled": raw})
        for raw in ("true", "FALSE", " True ", "yes", "1", "", "tru\u0435", "it's")
    ],
    *[
        (f"choice {raw!r}", {"starting.offsets": raw})
        for raw in (
            *("latest", "EARLIEST", " latest ", "middle", "", "latest,earliest"),
            *("EARLIE\u017fT", "EARL\u0130EST"),  # letters whose case folds onto ASCII ones
        )
    ],
    *[
        (f"connect string {raw!r}", {"zookeeper.address": raw})
        for raw in (
            *("zk1:2181", "zk1:2181,zk2:2181/chroot", "zk\u00a0one:2181", "zk\u00fc:2181"),
            *("zk1", "zk1:218100", "zk1:\u0661\u0662", "zk one:2181", ""),
        )
    ],
    *[
        (f"znode path {raw!r}", {"meta.store": raw})
        for raw in ("/aof/app", " /aof/app ", "/it's", "relative", "/", "/a//b", "")
    ],
    *[
        (f"variable name {raw!r}", {"node.name.env": raw})
        for raw in ("NODE_NAME", "_x1", "$NODE_NAME", "1X", "N\u00c9", "")
    ],
    *[
        (f"digest user {raw!r}", {"zookeeper.auth.user": raw, "zookeeper.auth.password": "p"})
        for raw in ("aof", " aof ", "a:b", "")
    ],
    ("user without password", {"zookeeper.auth.user": "aof"}),
    ("password without user", {"zookeeper.auth.password": "p"}),
    ("bad user without password", {"zookeeper.auth.user": "a:b"}),
    ("SASL user without password", {"zookeeper.sasl.user": "aof"}),
    ("keytab without principal", {"zookeeper.sasl.kerberos.keytab": "aof.keytab"}),
    (
        "store type",
        {
            "zookeeper.address": "zk:2281",
            "zookeeper.ssl.truststore.location": "ca.p7b",
            "zookeeper.ssl.truststore.type": "p7b",
        },
    ),
    *[(f"regex {raw!r}", {"multiline.start": raw}) for raw in ("^\\d{4}-", " ", "^\\s", "")],
    *[
        (f"record bytes {raw!r}", {**_MULTILINE, "multiline.bytes.max": raw})
        for raw in ("4096", "0", "2147483648")
    ],
    ("flush timeout -1", {**_MULTILINE, "multiline.flush.timeout": "-1"}),
    *[
        (f"several {raw!r}", {"exclude": raw})
        for raw in (
            *("\\.gz$", '["\\\\.gz$", "/debug/"]', ' ["x"] ', "[0-9]+", '["a"] x', "[1]"),
            *('[""]', '["a", ""]', ""),
        )
    ],
    ("data loss 'maybe'", {"fail.on.data.loss": "maybe"}),
    *[
        (f"duration {raw!r}", {"ignore.older": raw})
        for raw in (
            *("24h", " 90s ", "1500ms", "7d", "106751991167d"),
            *("24", "1.5h", "-1h", "0s", "24 h", "24H", "106751991167301d", "\u0661h", ""),
        )
    ],
]

# Typed values of the Python API: refused with the words the JVM has for the string PySpark
# would pass it (True as 'true').
TYPED: list[tuple[str, Any]] = [
    ("bytes_max", 0),
    ("bytes_max", 1.0),
    ("bytes_max", True),
    ("line_length_max", 2**31),
    ("md5_check_enabled", 1),
    ("fail_on_data_loss", False),
    ("starting_offsets", StartingOffsets.LATEST),
    ("ignore_older", "24h"),
    ("ignore_older", 86400000),
]

# What only the JVM can judge: a Java regex's syntax. Python lets these through, and
# read_stream then raises the JVM's message.
JVM_ONLY: list[tuple[str, dict[str, str]]] = [
    ("regex '('", {"multiline.start": "("}),
    ("regex '[a-'", {"multiline.continuation": "[a-"}),
    ("regex '\\p{Bogus}'", {"multiline.start": "\\p{Bogus}"}),
    ("regex '(' in a list", {"exclude": '["a", "("]'}),
]


def _python_refusal(options: dict[str, str]) -> str | None:
    try:
        AofOptions.from_strings(options)
    except ValueError as e:
        return str(e)
    return None


def _jvm_refusal(spark: SparkSession, directory: Path, options: dict[str, str]) -> str | None:
    try:
        spark.readStream.format("aof").options(**options).load(f"{directory}/app\\.log")
    except IllegalArgumentException as e:
        return spark_message(e)
    return None


@pytest.mark.parametrize(("case", "options"), OPTIONS, ids=[c for c, _ in OPTIONS])
def test_an_option_value_is_judged_and_worded_alike(
    spark: SparkSession, tmp_path: Path, case: str, options: dict[str, str]
) -> None:
    assert _python_refusal(options) == _jvm_refusal(spark, tmp_path, options)


@pytest.mark.parametrize(("name", "value"), TYPED, ids=[f"{n}={v!r}" for n, v in TYPED])
def test_a_typed_value_is_judged_as_the_string_pyspark_passes(
    spark: SparkSession, tmp_path: Path, name: str, value: Any
) -> None:
    try:
        AofOptions(**{name: value})
        refusal = None
    except ValueError as e:
        refusal = str(e)
    as_passed = {name.replace("_", "."): _as_string(value)}
    assert refusal == _jvm_refusal(spark, tmp_path, as_passed)


def test_the_cases_refuse_and_accept_values_of_every_kind(
    spark: SparkSession, tmp_path: Path
) -> None:
    # Cases that all passed, or all failed, would compare nothing of the other outcome.
    outcomes = [_jvm_refusal(spark, tmp_path, options) is None for _, options in OPTIONS]
    assert 10 < sum(outcomes) < len(outcomes) - 10


@pytest.mark.parametrize(("case", "options"), JVM_ONLY, ids=[c for c, _ in JVM_ONLY])
def test_a_java_regex_is_compiled_by_the_jvm_only(
    spark: SparkSession, tmp_path: Path, case: str, options: dict[str, str]
) -> None:
    assert _python_refusal(options) is None
    refusal = _jvm_refusal(spark, tmp_path, options)
    assert refusal is not None and "expected a valid Java regex" in refusal


def _connector(spark: SparkSession) -> Any:
    """The connector's package in the session's JVM."""
    return spark.sparkContext._jvm.com.hx.spark.sql.connector.aof  # type: ignore[union-attr]


# Host names whose znode names are not themselves: a space, '+', '~', '*', '%', IPv6 in both
# spellings, non-ASCII; and one that is.
HOSTS = ["10.0.0.7", "node one", "a+b", "host~1", "x*y", "100%", "::1", "[::1]", "ü.example"]
GOLDEN = Path(__file__).parents[2] / "docs" / "protocol"


def test_status_finds_each_hosts_offsets_whatever_its_name_encodes_to(
    spark: SparkSession, zookeeper: ZooKeeperServer
) -> None:
    # Znodes laid out by the JVM's own ZkPaths, values from the protocol's golden files: the
    # report of a host shows app.log (line end 8990), whose backed-up position is 4096.
    store = "/aof-status-hosts"
    paths = _connector(spark).protocol.ZkPaths(store, "run-1")
    backup = json.loads((GOLDEN / "offsets.json").read_text())
    (offsets,) = backup["hosts"].values()
    backup["hosts"] = dict.fromkeys(HOSTS, offsets)
    zk = KazooClient(hosts=zookeeper.address)
    zk.start(timeout=20)
    try:
        zk.create(paths.offsets(), gzip.compress(json.dumps(backup).encode()), makepath=True)
        for host in HOSTS:
            zk.create(paths.latch(host), b"", makepath=True)
            zk.create(paths.report(host), (GOLDEN / "response.bin").read_bytes(), makepath=True)
        found = status.read_status(zk, store, wait=0)
    finally:
        zk.stop()
        zk.close()
    assert found is not None
    (run,) = found["runs"]
    assert sorted(h["host"] for h in run["hosts"]) == sorted(HOSTS)
    behind = {f["host"]: f["bytesBehind"] for f in found["files"] if f["path"].endswith("app.log")}
    assert behind == dict.fromkeys(HOSTS, 8990 - 4096)
