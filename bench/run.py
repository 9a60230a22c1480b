"""Runs every benchmark on the installed PySpark and writes ``bench/results.md``.

``python bench/run.py [--gb 1] [--memory-gb 10] [--filter-gb 10] [--runs 3] [--only NAME]``;
data goes to ``bench/data``
(ignored by git) and is kept between runs. The figures of this Spark line go to
``bench/results-spark<major>.json`` and ``results-spark<major>.png``; ``results.md`` shows every
line measured so far side by side, then each line's details.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import charsets
import filtering
import journal
import kafka_reference
import pyspark

import formats
import latency
import planning
import pyspark_aof as aof
import throughput
from data import repeat_log, write_log
from session import local_session

HERE = Path(__file__).parent
LINE = f"spark{pyspark.__version__.split('.')[0]}"


def machine() -> dict[str, str]:
    """Describe the machine the figures were measured on."""
    meminfo = Path("/proc/meminfo").read_text().split()
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[
        0
    ]
    return {
        "cores": str(os.cpu_count()),
        "memory": f"{int(meminfo[meminfo.index('MemTotal:') + 1]) / 2**20:.1f} GiB",
        "os": f"{platform.system()} {platform.release()}",
        "java": java,
        "python": platform.python_version(),
        "pyspark": pyspark.__version__,
        "pyspark-aof": aof.__version__,
    }


def chart(results: dict[str, Any], path: Path) -> None:
    """Bar chart of MB/s per reader and query, with ``wc -l`` as the physical reference."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = results["throughput"]
    labels = ["noop", "sum(length(value))"]
    readers = [r for r in ("text", "aof", "kafka") if f"{r} noop" in t]
    width = 0.8 / len(readers)
    fig, ax = plt.subplots(figsize=(8, 4))
    for i, reader in enumerate(readers):
        values = [t[f"{reader} {q}"]["mb_per_s"] for q in labels]
        name = _READERS[reader].replace("`", "")
        ax.bar([x + i * width for x in range(len(labels))], values, width, label=name)
    ax.axhline(t["wc -l"]["mb_per_s"], color="grey", linestyle="--", label="wc -l")
    ax.set_xticks([x + width * (len(readers) - 1) / 2 for x in range(len(labels))], labels)
    ax.set_ylabel("MB/s")
    m = results["machine"]
    ax.set_title(
        f"PySpark {m['pyspark']}: {t['file_mb']:.0f} MB log, local[2]; "
        f"{m['cores']} cores, {m['memory']}"
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


_READERS = {
    "text": "`spark.read.text`",
    "aof": "aof (`AvailableNow`)",
    "kafka": "Spark's Kafka source (`AvailableNow`)",
}


def _character_count(t: dict[str, Any]) -> str:
    """Tell how much of the 1.5 budget on ``sum(length(value))`` the character count takes."""
    text, aof = t["text sum(length(value))"]["seconds"], t["aof sum(length(value))"]["seconds"]
    octets = throughput.OCTETS
    text_octets, aof_octets = t[f"text {octets}"]["seconds"], t[f"aof {octets}"]["seconds"]
    count = round(text - text_octets, 2)
    budget = round(text / 1.5, 2)
    return (
        f"The same sum counting bytes (`{octets}`, the same reading without Spark's "
        f"character count): `spark.read.text` {text_octets} s, aof {aof_octets} s, ratio "
        f"{round(text_octets / aof_octets, 2)}. Counting characters (`UTF8String.numChars`, "
        f"which `length` calls once per line whatever the reader) adds {count} s to "
        f"`spark.read.text` (aof: {round(aof - aof_octets, 2)} s). The target of 1.5 on "
        f"`sum(length(value))` allows {budget} s; the count takes {count} s of it, leaving "
        f"{round(budget - count, 2)} s to start and stop the query and read "
        f"{t['file_mb']:.0f} MB, where the aof query takes {aof_octets} s without the count."
    )


def _all_columns(t: dict[str, Any]) -> str:
    """Say how much more the five columns cost than ``value`` alone, against the 1.15 target."""
    ratio, batch = t[f"ratio {throughput.ALL}"], t[f"ratio {throughput.ALL} batch"]
    said = (
        f"Every column (`{', '.join(throughput.ALL_COLUMNS)}`) against `value` alone, `noop`, "
        "the queries run in turns: "
        f"**{ratio}** the time, the batch alone **{batch}** (target at most 1.15 for both: "
        f"{'met' if max(ratio, batch) <= 1.15 else 'missed'})."
    )
    if f"ratio {throughput.ALL} text" not in t:
        return said
    seconds = {
        r: round(t[f"{r} {throughput.ALL}"]["seconds"] - t[f"{r} {throughput.VALUE}"]["seconds"], 2)
        for r in ("aof", "text")
    }
    return (
        f"{said} Spark's own reference, `spark.read.text` of the same file carrying the same "
        "four columns (the source's values, as constants), takes "
        f"**{t[f'ratio {throughput.ALL} text']}** the time of its `value` alone, "
        f"{seconds['text']} s more (the source: {seconds['aof']} s more). Whatever the reader, "
        "Spark writes every column of every row it hands on into its row format, `UnsafeRow`, "
        "one copy per string a row; those copies are the difference."
    )


def _summary(every: dict[str, dict[str, Any]]) -> list[str]:
    """Return the headline figures of each Spark line, side by side."""
    rows: list[tuple[str, Callable[[dict[str, Any]], object]]] = [
        ("1 GB `noop`: aof / `spark.read.text` (batch alone)", _ratio("noop")),
        ("1 GB `sum(length(value))`: aof / text (batch alone)", _ratio("sum(length(value))")),
        (f"1 GB `{throughput.OCTETS}`: aof / text", _octets),
        ("aof / Spark's Kafka source, `noop` / `sum`", _kafka),
        (
            "1 GB `noop`, every column / `value` alone (batch alone); `spark.read.text` the same",
            lambda r: (
                f"{_get(r, 'throughput', f'ratio {throughput.ALL}')} "
                f"({_get(r, 'throughput', f'ratio {throughput.ALL} batch')}); "
                f"text {_get(r, 'throughput', f'ratio {throughput.ALL} text')}"
            ),
        ),
        (
            "planning p50, 1,000 / 10,000 files / 10,000 in 1,000 directories (ms)",
            lambda r: " / ".join(str(p["p50_ms"]) for p in r["planning"]),
        ),
        (
            "append to `foreachBatch`, p50 / p95 / p99 (ms)",
            lambda r: " / ".join(str(r["latency"][k]) for k in ("p50_ms", "p95_ms", "p99_ms")),
        ),
        ("10 GB file, 1 GB driver: peak RSS (MB)", lambda r: _get(r, "memory", "peak_rss_mb")),
        (
            f"`{filtering.QUERY}`: `include.lines` / `where` after `spark.read.text` (batch alone)",
            lambda r: f"{_get(r, 'filtering', 'ratio')} ({_get(r, 'filtering', 'ratio batch')})",
        ),
        (
            f"1 GB, {formats.QUERY}: `format=cri` / `format=text` time (batch alone)",
            lambda r: f"{_get(r, 'formats', 'cost')} ({_get(r, 'formats', 'cost batch')})",
        ),
        (
            f"1 GB, {charsets.QUERY}: UTF-8 (the default) / `spark.read.text`; UTF-16 / UTF-8",
            lambda r: (
                f"{_get(r, 'encodings', 'utf8 / text')}; {_get(r, 'encodings', 'utf16 / utf8')}"
            ),
        ),
        (
            f"{journal.ENTRIES:,} journal entries, {journal.QUERY}: aof / `journalctl -o json`, "
            "entries a second on one core (batch alone)",
            lambda r: f"{_get(r, 'journal', 'ratio')} ({_get(r, 'journal', 'ratio batch')})",
        ),
        (
            "`spark.read.text` on 1 GB (s, the machine's speed that run)",
            lambda r: r["throughput"]["text noop"]["seconds"],
        ),
    ]
    names = [f"PySpark {r['machine']['pyspark']}" for r in every.values()]
    lines = ["| what | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for what, figure in rows:
        lines.append(f"| {what} | " + " | ".join(str(figure(r)) for r in every.values()) + " |")
    return lines


def _get(results: dict[str, Any], *keys: str) -> object:
    found: Any = results
    for key in keys:
        if not isinstance(found, dict) or key not in found:
            return "-"
        found = found[key]
    return found


def _ratio(query: str) -> Callable[[dict[str, Any]], str]:
    return lambda r: (
        f"{r['throughput'][f'ratio {query}']} ({r['throughput'][f'ratio {query} batch']})"
    )


def _octets(results: dict[str, Any]) -> object:
    t = results["throughput"]
    if f"aof {throughput.OCTETS}" not in t:
        return "-"
    return round(
        t[f"text {throughput.OCTETS}"]["seconds"] / t[f"aof {throughput.OCTETS}"]["seconds"], 2
    )


def _kafka(results: dict[str, Any]) -> str:
    t = results["throughput"]
    if "ratio noop kafka" not in t:
        return f"- ({results.get('kafka', 'not run')})"
    return f"{t['ratio noop kafka']} / {t['ratio sum(length(value)) kafka']}"


def report(every: dict[str, dict[str, Any]]) -> str:
    """``results.md``: each Spark line's figures, the targets, and whether each was met."""
    machine = {k: v for k, v in next(iter(every.values()))["machine"].items() if k != "pyspark"}
    lines = [
        "# Benchmark results",
        "",
        "Written by `make bench` (`bench/run.py`, once per Spark line); do not edit by hand.",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()) + ".",
        "",
        "## Both Spark lines",
        "",
        "Ratios are aof's speed over the reference's, measured in the same session; the batch "
        "alone (in brackets) leaves out the streaming query's start, planning, checkpoint and "
        "stop. Compare ratios rather than seconds: this machine's speed varies between runs.",
        "",
        *_summary(every),
    ]
    for name, results in every.items():
        lines += ["", *details(results, name)]
    return "\n".join(lines)


def details(results: dict[str, Any], name: str) -> list[str]:
    """One Spark line's figures in full, with its profiles and what was tried."""
    t = results["throughput"]
    lines = [
        f"## PySpark {results['machine']['pyspark']}",
        "",
        f"### Throughput ({t['file_mb']:.0f} MB, page cache warm, median of {t['runs']} runs)",
        "",
        "| reader | query | seconds | MB/s |",
        "| --- | --- | --- | --- |",
    ]
    readers = [r for r in ("text", "aof", "kafka") if f"{r} noop" in t]
    for q in ("noop", "sum(length(value))"):
        for r in readers:
            row = t[f"{r} {q}"]
            lines.append(f"| {_READERS[r]} | {q} | {row['seconds']} | {row['mb_per_s']} |")
        if q == "noop" and f"ratio {throughput.ALL}" in t:
            for r, query, what in (
                ("aof", throughput.VALUE, "noop of value, in turns with the next"),
                ("aof", throughput.ALL, f"noop of {', '.join(throughput.ALL_COLUMNS)}"),
                ("text", throughput.VALUE, "noop of value, in turns with the above"),
                ("text", throughput.ALL, "noop of the same, four of them constants"),
            ):
                if f"{r} {query}" in t:
                    row = t[f"{r} {query}"]
                    lines.append(
                        f"| {_READERS[r]} | {what} | {row['seconds']} | {row['mb_per_s']} |"
                    )
    lines.append(f"| `wc -l` | (reference) | {t['wc -l']['seconds']} | {t['wc -l']['mb_per_s']} |")
    lines += ["", "Ratio aof / text (target at least 1.5):", ""]
    for q in ("noop", "sum(length(value))"):
        ratio, batch = t[f"ratio {q}"], t[f"aof {q} batch"]
        lines.append(
            f"- {q}: **{ratio}** ({'met' if ratio >= 1.5 else 'missed'}); the batch alone "
            f"(Spark's `addBatch`, without the query's start, planning, checkpoint and stop) "
            f"took {batch['seconds']} s, {batch['mb_per_s']} MB/s: "
            f"ratio {t[f'ratio {q} batch']}"
        )
    if f"ratio {throughput.ALL}" in t:
        lines += ["", _all_columns(t)]
    if f"text {throughput.OCTETS}" in t:
        lines += ["", _character_count(t)]
    if "kafka noop" in t:
        lines += [
            "",
            f"Against Spark's Kafka source on a topic holding the same {t['lines']:,} lines "
            "(one KRaft broker on this machine, two partitions, the time to load the topic "
            "not counted), ratio aof / kafka: "
            + "; ".join(f"{q} **{t[f'ratio {q} kafka']}**" for q in ("noop", "sum(length(value))"))
            + ".",
        ]
    for q in ("noop", "sum(length(value))"):
        if t[f"ratio {q}"] < 1.5:
            lines += [
                "",
                f"Where the time goes in `{q}` (Java Flight Recorder, share of execution samples "
                "by top frame, one more run of each):",
                "",
                "| aof | share | text | share |",
                "| --- | --- | --- | --- |",
            ]
            for (a, a_share), (x, x_share) in zip(
                t[f"aof {q} profile"], t[f"text {q} profile"], strict=False
            ):
                lines.append(f"| `{a}` | {a_share} | `{x}` | {x_share} |")
    lines += ["", (HERE / "tried.md").read_text().strip().replace("## ", "### ")]
    lines += ["", "### Planning cost per trigger (Spark's `latestOffset`)", ""]
    lines += [
        "| files | directories | triggers | p50 ms | p95 ms | target p50 |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for p, target in zip(results["planning"], (50, 300, 300), strict=False):
        met = "met" if p["p50_ms"] <= target else "missed"
        lines.append(
            f"| {p['files']} | {p.get('directories', 1)} | {p['triggers']} | {p['p50_ms']} | "
            f"{p['p95_ms']} | <= {target} ({met}) |"
        )
    lines += ["", (HERE / "tried_planning.md").read_text().strip().replace("## ", "### ")]
    lat = results["latency"]
    lines += [
        "",
        f"### Latency, append to `foreachBatch` ({lat['rate_per_s']} lines/s, default trigger)",
        "",
        f"p50 **{lat['p50_ms']} ms**, p95 {lat['p95_ms']} ms, p99 {lat['p99_ms']} ms over "
        f"{lat['lines']} lines (target p50 <= 1000 ms: "
        f"{'met' if lat['p50_ms'] <= 1000 else 'missed'}).",
    ]
    mem = results.get("memory")
    if mem:
        samples = mem["rss_mb_samples"]
        lines += [
            "",
            f"### Memory, {mem['file_gb']} GB file, 1 GB driver, local mode, `bytes.max` unset",
            "",
            f"Peak RSS of the JVM **{mem['peak_rss_mb']} MB**; RSS while reading from "
            f"{min(samples, default=0)} to {max(samples, default=0)} MB; "
            f"read in {mem['seconds']} s.",
        ]
    f = results.get("filtering")
    if f:
        lines += [
            "",
            f"### Line filters, {f['file_mb'] / 1000:.0f} GB, `{filtering.QUERY}`",
            "",
            "| query | seconds | batch alone |",
            "| --- | --- | --- |",
            f"| `spark.read.text(...).where(col('value').contains('ERROR')).count()` | "
            f"{f['text']['seconds']} | - |",
            f"| the source with `include.lines=ERROR`, `count()` in `foreachBatch` | "
            f"{f['aof']['seconds']} | {f['aof batch']['seconds']} |",
            "",
            f"Both kept {f['rows']:,} rows. Ratio **{f['ratio']}** on the whole query (target at "
            f"least 2: {'met' if f['ratio'] >= 2 else 'missed'}), **{f['ratio batch']}** on the "
            f"batch alone (target at least 3: {'met' if f['ratio batch'] >= 3 else 'missed'}).",
        ]
    c = results.get("formats")
    if c:
        lines += [
            "",
            f"### A container runtime's lines, {c['file_mb']:,} MB, {formats.QUERY}",
            "",
            "| `format` | rows | seconds | batch alone |",
            "| --- | --- | --- | --- |",
            f"| `text` (each line as written) | more by one line in {formats.SPLIT_EVERY} | "
            f"{c['text']['seconds']} | {c['text']['batch']} |",
            f"| `cri` (prefix parsed, partial lines joined) | {c['rows']:,} | "
            f"{c['cri']['seconds']} | {c['cri']['batch']} |",
            "",
            f"The same bytes read as CRI take **{c['cost']}** the time of reading them as text, "
            f"**{c['cost batch']}** on the batch alone (target at most 1.2: "
            f"{'met' if max(c['cost'], c['cost batch']) <= 1.2 else 'missed'}).",
        ]
    e = results.get("encodings")
    if e:
        lines += [
            "",
            f"### Encodings, {e['lines']:,} lines, {charsets.QUERY}",
            "",
            "| read | MB | seconds | batch alone |",
            "| --- | --- | --- | --- |",
            f"| `spark.read.text`, UTF-8 | {e['utf8_mb']:,} | {e['text']['seconds']} | - |",
            f"| the source, UTF-8 (default: read in place, checked) | {e['utf8_mb']:,} | "
            f"{e['utf8']['seconds']} | {e['utf8']['batch']} |",
            f"| the source, `encoding=UTF-16` (decoded to UTF-8) | {e['utf16_mb']:,} | "
            f"{e['utf16']['seconds']} | {e['utf16']['batch']} |",
            "",
            f"UTF-8 takes **{e['utf8 / text']}** the time of `spark.read.text` (the same "
            f"measure as the throughput table's `noop` ratio). The same lines in UTF-16 take "
            f"**{e['utf16 / utf8']}** the time of UTF-8, **{e['utf16 / utf8 batch']}** on the "
            "batch alone: twice the bytes, each line decoded.",
        ]
    j = results.get("journal")
    if j:
        lines += [
            "",
            f"### The systemd journal, {j['entries']:,} entries ({j['file_mb']:,} MB), "
            f"{journal.QUERY}",
            "",
            "| read | seconds | entries a second |",
            "| --- | --- | --- |",
            f"| `journalctl --file ... -o json` (one process) | {j['journalctl']['seconds']} | "
            f"{j['journalctl']['per_s']:,} |",
            f"| the source, `format` `journald` (one task) | {j['aof']['seconds']} | "
            f"{j['aof']['per_s']:,} |",
            f"| the source, the batch alone | {j['aof batch']['seconds']} | "
            f"{j['aof batch']['per_s']:,} |",
            "",
            f"The source reads **{j['ratio']}** times as many entries a second as `journalctl` "
            f"prints, **{j['ratio batch']}** on the batch alone, each on one core.",
        ]
    lines += ["", f"![throughput](results-{name}.png)", ""]
    return lines


def main() -> None:
    """Run every benchmark and write the results."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gb", type=float, default=1.0, help="size of the throughput file")
    parser.add_argument("--memory-gb", type=float, default=10.0, help="0 skips the memory run")
    parser.add_argument("--filter-gb", type=float, default=10.0, help="0 skips the filter run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--only",
        choices=("filtering", "formats", "encodings", "journal"),
        help="measure this alone, keeping the line's other figures",
    )
    parser.add_argument(
        "--no-kafka", action="store_true", help="skip the Kafka reference row (needs mvn)"
    )
    args = parser.parse_args()
    data = HERE / "data"
    if args.only:
        kept = json.loads((HERE / f"results-{LINE}.json").read_text())
        spark = local_session()
        if args.only == "filtering":
            kept["filtering"] = filtering.run_in(data, spark, args.filter_gb, args.runs)
        elif args.only == "encodings":
            kept["encodings"] = charsets.run_in(data, spark, args.gb, args.runs)
        elif args.only == "journal":
            kept["journal"] = journal.run_in(data, spark, journal.ENTRIES, args.runs)
        else:
            kept["formats"] = formats.run_in(data, spark, args.gb, args.runs)
        spark.stop()
        _write(kept)
        return
    log = data / "throughput" / "app.log"
    write_log(log, int(args.gb * 1e9))
    results: dict[str, Any] = {"machine": machine()}
    with_kafka = not args.no_kafka and kafka_reference.published()
    if not args.no_kafka and not with_kafka:
        results["kafka"] = f"{kafka_reference.spark_package()} is not published to Maven yet"
    spark = local_session(packages=(kafka_reference.spark_package(),) if with_kafka else ())
    with ExitStack() as stack:
        address = None
        if with_kafka:
            address = stack.enter_context(kafka_reference.broker(data / "kafka", log))
        results["throughput"] = throughput.measure(spark, log, args.runs, address)
    print(json.dumps(results["throughput"]), flush=True)
    results["planning"] = [
        planning.measure(spark, data / f"planning-{n}-{d}", n, d)
        for n, d in ((1000, 1), (10000, 1), (10000, 1000))
    ]
    print(json.dumps(results["planning"]), flush=True)
    results["latency"] = latency.measure(spark, data / "latency")
    print(json.dumps(results["latency"]), flush=True)
    if args.filter_gb > 0:
        results["filtering"] = filtering.run_in(data, spark, args.filter_gb, args.runs)
        print(json.dumps(results["filtering"]), flush=True)
    results["formats"] = formats.run_in(data, spark, args.gb, args.runs)
    print(json.dumps(results["formats"]), flush=True)
    results["encodings"] = charsets.run_in(data, spark, args.gb, args.runs)
    print(json.dumps(results["encodings"]), flush=True)
    results["journal"] = journal.run_in(data, spark, journal.ENTRIES, args.runs)
    print(json.dumps(results["journal"]), flush=True)
    spark.stop()
    if args.memory_gb > 0:
        big = data / "memory" / "app.log"
        repeat_log(log, big, int(args.memory_gb * 1e9))
        probe = subprocess.run(
            [sys.executable, str(HERE / "memory.py"), str(big)],
            capture_output=True,
            text=True,
            check=True,
        )
        results["memory"] = json.loads(probe.stdout.strip().splitlines()[-1])
        print(json.dumps(results["memory"]), flush=True)
    _write(results)


def _write(results: dict[str, Any]) -> None:
    """Write this line's figures, its chart, and ``results.md`` with every line's."""
    (HERE / f"results-{LINE}.json").write_text(json.dumps(results, indent=2) + "\n")
    chart(results, HERE / f"results-{LINE}.png")
    every = {
        p.stem.removeprefix("results-"): json.loads(p.read_text())
        for p in sorted(HERE.glob("results-spark*.json"))
    }
    (HERE / "results.md").write_text(report(every) + "\n")


if __name__ == "__main__":
    main()
