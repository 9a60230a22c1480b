"""``encoding`` and ``line.separator``: logs as Windows services, old systems and tools write."""

from __future__ import annotations

import logging
import logging.handlers
from collections import Counter
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming.query import StreamingQuery

import pyspark_aof as aof

WORDS = ["café", "naïve", "日本語のログ", "错误", "Grüße", "emoji \U0001f600"]


def _read_all(lines: DataFrame, tmp: Path) -> tuple[list[dict[str, object]], dict[str, str]]:
    query: StreamingQuery = (
        lines.writeStream.format("parquet")
        .option("checkpointLocation", str(tmp / "checkpoint"))
        .start(str(tmp / "out"))
    )
    query.processAllAvailable()
    progress = query.lastProgress
    query.stop()
    assert progress is not None
    spark = lines.sparkSession
    rows = [r.asDict() for r in spark.read.parquet(str(tmp / "out")).collect()]
    return rows, progress["sources"][0]["metrics"]


def test_a_python_service_logging_in_utf16_with_its_own_rotation(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    # Python's "utf-16" writes a byte order mark, then little-endian on this machine, as
    # Windows services do; each file the handler rotates to starts with its own mark.
    handler = logging.handlers.RotatingFileHandler(
        logs / "service.log", maxBytes=10_000, backupCount=50, encoding="utf-16"
    )
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("utf16-service")
    logger.propagate = False
    logger.addHandler(handler)
    query: StreamingQuery = (
        aof.read_stream(spark, f"{logs}/service\\.log.*", encoding="UTF-16")
        .writeStream.format("parquet")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start(str(tmp_path / "out"))
    )
    try:
        for part in range(4):
            for n in range(part * 500, part * 500 + 500):
                logger.warning("%d %s", n, WORDS[n % len(WORDS)])
            handler.flush()
            query.processAllAvailable()
        progress = query.lastProgress
    finally:
        query.stop()
        logger.removeHandler(handler)
        handler.close()
    assert len(list(logs.iterdir())) > 5, "the handler rotated"

    rows = [r.asDict() for r in spark.read.parquet(str(tmp_path / "out")).collect()]
    values = sorted((str(r["value"]) for r in rows), key=lambda v: int(v.split()[1]))
    assert values == [f"WARNING {n} {WORDS[n % len(WORDS)]}" for n in range(2000)]
    assert Counter((r["file_id"], r["offset"]) for r in rows).most_common(1)[0][1] == 1
    assert all(int(str(r["offset"])) % 2 == 0 for r in rows), "UTF-16 lines start at even bytes"
    assert progress is not None
    assert progress["sources"][0]["metrics"]["linesInvalidEncoding"] == "0"


def test_latin1_read_as_utf8_is_counted_and_read_right_with_its_encoding(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "legacy.log").write_bytes("café ouvert\nplain ascii\nGrüße\n".encode("latin-1"))

    rows, metrics = _read_all(aof.read_stream(spark, f"{logs}/legacy\\.log"), tmp_path / "a")
    assert sorted(str(r["value"]) for r in rows) == [
        "Gr\ufffd\ufffde",
        "caf\ufffd ouvert",
        "plain ascii",
    ]
    assert metrics["linesInvalidEncoding"] == "2"

    rows, metrics = _read_all(
        aof.read_stream(spark, f"{logs}/legacy\\.log", encoding="ISO-8859-1"), tmp_path / "b"
    )
    assert sorted(str(r["value"]) for r in rows) == ["Grüße", "café ouvert", "plain ascii"]
    assert metrics["linesInvalidEncoding"] == "0"


def test_shift_jis_records_filtered_and_joined_on_their_decoded_text(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    entries = [
        "2026-11-30 情報 起動しました",
        "2026-11-30 エラー 接続できません\n  詳細: タイムアウト\n  再試行します",
        "2026-11-30 情報 完了",
        "2026-11-30 エラー ディスクがいっぱいです",
        "2026-11-30 情報 終了",  # ends the record before it: the last one waits for its flush
    ]
    (logs / "app.log").write_bytes(
        "".join(e + "\r\n" for e in entries).replace("\n  ", "\r\n  ").encode("shift_jis")
    )

    rows, _ = _read_all(
        aof.read_stream(
            spark,
            f"{logs}/app\\.log",
            encoding="Shift_JIS",
            multiline_start="^\\d{4}-",
            include_lines="エラー",
        ),
        tmp_path,
    )
    assert sorted(str(r["value"]) for r in rows) == sorted([entries[1], entries[3]])


def test_records_ended_by_nul_keep_their_newlines(spark: SparkSession, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    records = ["first\nwith two lines", "second", "", "third\r\nends in CRLF\r\n", "unfinished"]
    (logs / "records.out").write_bytes("\0".join(records).encode())

    rows, _ = _read_all(
        aof.read_stream(spark, f"{logs}/records\\.out", line_separator="\0"), tmp_path
    )
    assert sorted((int(str(r["offset"])), str(r["value"])) for r in rows) == [
        (0, records[0]),
        (21, records[1]),
        (28, records[2]),
        (29, records[3]),
    ]
