"""The typed options: one list of names, defaults and docs with the JVM side and the README."""

from __future__ import annotations

import dataclasses
import doctest
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

import pyspark_aof as aof
from pyspark_aof import AofOptions, StartingOffsets, _option_fields, _options

README = Path(__file__).parents[2] / "README.md"


def test_every_option_of_the_source_is_a_field_and_nothing_else() -> None:
    fields = {f.name.replace("_", ".") for f in dataclasses.fields(AofOptions)}
    assert fields == {o.key for o in aof.option_specs()} - {"path"}


def test_the_readme_table_is_generated_from_the_same_list() -> None:
    assert _options.options_table() in README.read_text()


def test_set_options_are_spelled_as_the_source_reads_them() -> None:
    options = AofOptions(
        starting_offsets=StartingOffsets.LATEST,
        bytes_max=512,
        md5_check_enabled=False,
        meta_store="/aof/app",
    )
    assert options.to_options() == {
        "starting.offsets": "latest",
        "bytes.max": "512",
        "md5.check.enabled": "false",
        "meta.store": "/aof/app",
    }
    assert AofOptions().to_options() == {}  # unset options keep the source's defaults
    assert AofOptions(starting_offsets="LATEST").starting_offsets is StartingOffsets.LATEST  # type: ignore[arg-type]


INVALID: list[tuple[dict[str, Any], str]] = [
    ({"starting_offsets": "middle"}, "starting.offsets"),
    ({"bytes_max": 0}, "bytes.max"),
    ({"bytes_max": "ten"}, "bytes.max"),
    ({"bytes_max": 1.0}, "bytes.max"),
    ({"bytes_max": True}, "bytes.max"),
    ({"meta_await_timeout": -5}, "meta.await.timeout"),
    ({"md5_check_enabled": "yes"}, "md5.check.enabled"),
    ({"md5_sample_length": 2**31}, "md5.sample.length"),
    ({"zookeeper_address": "zk1"}, "zookeeper.address"),
    ({"zookeeper_session_timeout": 0}, "zookeeper.session.timeout"),
    ({"meta_store": "relative/path"}, "meta.store"),
    ({"partition_bytes_max": 0}, "partition.bytes.max"),
    ({"line_length_max": 1.5}, "line.length.max"),
    ({"fail_on_data_loss": 1}, "fail.on.data.loss"),
    ({"zookeeper_auth_user": "a:b", "zookeeper_auth_password": "p"}, "zookeeper.auth.user"),
    ({"zookeeper_auth_user": "alone"}, "zookeeper.auth.password"),
    ({"node_name_env": "$NODE_NAME"}, "node.name.env"),
    ({"zookeeper_auth_password": "alone"}, "zookeeper.auth.user"),
    ({"multiline_start": ""}, "multiline.start"),
    ({"multiline_continuation": 5}, "multiline.continuation"),
    ({"multiline_bytes_max": 0}, "multiline.bytes.max"),
    ({"zookeeper_sasl_user": "alone"}, "zookeeper.sasl.password"),
    ({"zookeeper_sasl_kerberos_keytab": "aof.keytab"}, "zookeeper.sasl.kerberos.principal"),
    ({"zookeeper_ssl_keystore_type": "p7b"}, "zookeeper.ssl.keystore.type"),
    ({"zookeeper_ssl_hostname_verification": "no"}, "zookeeper.ssl.hostname.verification"),
    ({"batch_bytes_min": 0}, "batch.bytes.min"),
    ({"batch_bytes_min": "1MB"}, "batch.bytes.min"),
    ({"batch_bytes_min": 1 << 20, "batch_wait_max": "15"}, "batch.wait.max"),
    ({"batch_bytes_min": 1 << 20, "batch_wait_max": timedelta(0)}, "batch.wait.max"),
]


@pytest.mark.parametrize(("values", "key"), INVALID, ids=[k for _, k in INVALID])
def test_a_bad_value_is_refused_naming_the_option(values: dict[str, Any], key: str) -> None:
    with pytest.raises(ValueError, match=f"'{key}'"):
        AofOptions(**values)


def test_a_regex_is_kept_as_given() -> None:
    # A continuation regex of one space: trimming it would make it match every line.
    assert AofOptions(multiline_continuation="^ ").to_options() == {"multiline.continuation": "^ "}


def test_a_duration_may_be_a_timedelta_and_several_values_a_list() -> None:
    options = AofOptions(ignore_older=timedelta(hours=1, microseconds=1500), exclude=("a", "b"))
    assert options.to_options() == {"ignore.older": "3600001ms", "exclude": '["a", "b"]'}
    with pytest.raises(ValueError, match=r"'ignore\.older'"):
        AofOptions(ignore_older=timedelta(0))


def test_changes_by_either_spelling_and_unknown_names() -> None:
    base = AofOptions(bytes_max=10)
    changed = base.with_changes(
        **{"bytes.max": 20, "starting_offsets": "latest", "meta_store": None}
    )
    assert changed == AofOptions(bytes_max=20, starting_offsets=StartingOffsets.LATEST)
    with pytest.raises(ValueError) as typo:
        base.with_changes(bytes_maxx=1)
    assert str(typo.value) == "Unknown option 'bytes.maxx': did you mean 'bytes.max'?"
    with pytest.raises(ValueError, match=r"'colour'; known: .*'?bytes\.max") as far:
        base.with_changes(colour=1)
    assert "did you mean" not in str(far.value)


def test_numbers_and_booleans_given_as_strings_are_read_as_the_jvm_reads_them() -> None:
    # PySpark's own .option() takes strings; the JVM side accepts them, so must this side.
    options = AofOptions(partition_bytes_max="4194304", fail_on_data_loss="TRUE")  # type: ignore[arg-type]
    assert options == AofOptions(partition_bytes_max=4194304, fail_on_data_loss=True)
    assert options.to_options() == {"partition.bytes.max": "4194304", "fail.on.data.loss": "true"}


def test_options_given_as_strings_are_typed() -> None:
    given = {"bytes.max": "10", "md5.check.enabled": "False", "starting.offsets": "latest"}
    assert AofOptions.from_strings(given) == AofOptions(
        bytes_max=10, md5_check_enabled=False, starting_offsets=StartingOffsets.LATEST
    )
    with pytest.raises(ValueError, match=r"'bytes\.max'"):
        AofOptions.from_strings({"bytes.max": "ten"})


def test_the_password_is_never_printed() -> None:
    options = AofOptions(zookeeper_auth_user="aof", zookeeper_auth_password="s3cret")
    assert "s3cret" not in repr(options)


def test_docstring_examples_hold() -> None:
    assert doctest.testmod(_options).failed == 0
    assert doctest.testmod(_option_fields).failed == 0


def test_the_fields_are_generated_from_options_json_and_regenerating_changes_nothing() -> None:
    generator = Path(__file__).parents[2] / "python" / "generate_options.py"
    result = subprocess.run([sys.executable, generator, "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.both_lines
def test_every_option_reaches_the_source(spark: SparkSession, tmp_path: Path) -> None:
    options = AofOptions(
        zookeeper_session_timeout=10000,
        starting_offsets=StartingOffsets.LATEST,
        bytes_max=1 << 20,
        batch_bytes_max=1 << 22,
        batch_bytes_min=1 << 16,
        batch_wait_max=timedelta(minutes=5),
        meta_store="/aof/typed",
        meta_await_timeout=5000,
        md5_check_enabled=True,
        md5_sample_length=512,
        partition_bytes_max=1 << 24,
        line_length_max=4096,
        fail_on_data_loss=True,
    )
    lines = aof.read_stream(spark, f"{tmp_path}/app\\.log", options=options)
    assert lines.isStreaming
    # As PySpark's .option() takes them: strings, accepted as the JVM side accepts them.
    given: dict[str, Any] = {"partition.bytes.max": "4194304"}
    as_strings = aof.read_stream(spark, f"{tmp_path}/app\\.log", **given)
    assert as_strings.isStreaming


def test_a_wait_without_its_minimum_is_refused_when_the_query_is_defined(
    spark: SparkSession, tmp_path: Path
) -> None:
    # Each value is valid alone: the source refuses the pair, naming what to set.
    with pytest.raises(ValueError, match=r"'batch\.wait\.max' .* 'batch\.bytes\.min'"):
        aof.read_stream(spark, f"{tmp_path}/app\\.log", batch_wait_max="5m")


@pytest.mark.both_lines
def test_a_session_without_the_jar_says_how_to_add_it() -> None:
    script = (
        "from pyspark.sql import SparkSession\n"
        "import pyspark_aof as aof\n"
        "spark = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')"
        ".getOrCreate()\n"
        "try:\n"
        "    aof.read_stream(spark, '/var/log/app\\\\.log')\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
        # The usual next step: configure() adds the JAR to the session getOrCreate returns.
        "spark = aof.configure(SparkSession.builder).getOrCreate()\n"
        "import os, tempfile; logs = tempfile.mkdtemp()\n"
        "open(os.path.join(logs, 'app.log'), 'w').write('a\\nb\\n')\n"
        "q = aof.read_stream(spark, logs + '/app\\\\.log').writeStream.format('memory')"
        ".queryName('t').option('checkpointLocation', tempfile.mkdtemp())"
        ".trigger(availableNow=True).start()\n"
        "q.awaitTermination()\n"
        "print('read', sorted(r.value for r in spark.table('t').collect()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=180, check=True
    ).stdout
    assert "configure(SparkSession.builder)" in out
    assert f"--jars {aof.jar_path()}" in out
    assert f"--packages {aof.maven_coordinates()}" in out
    assert "read ['a', 'b']" in out
