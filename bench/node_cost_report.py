"""``bench/node-cost.md`` from every Spark line's ``bench/node-cost-spark<major>.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from proc_stats import TICKS_PER_SECOND

_SETUP = """\
A standalone master and one worker on its own address (127.0.0.2, its own mount namespace:
`LocalCluster` of `pyspark_aof.testing`), one core; one executor of one core and 1 GB. The
driver is the benchmark's own JVM (1 GB, Spark's UI off), with the source's embedded ZooKeeper
server in it. Each phase and trigger is a query of its own in that one application: the source,
its options left at their defaults, reading the node's files into Spark's `noop` sink; in
real-time mode (no `noop` there) into `aof.foreach_json_lines` of `value` to a file on the
node. The CPU of the executor's and the driver's JVMs is `utime` + `stime` of `/proc/<pid>/stat`
over the phase, in cores (CPU seconds per second); the executor's RSS (`VmRSS`) and open
descriptors (`/proc/<pid>/fd`) are taken at the phase's end. The queries run one after the
other in the table's order, in one executor: its RSS is what its heap has grown to so far.

The JIT compiler's threads (`C1`/`C2 CompilerThread<n>`, from `/proc/<pid>/task`) are given
apart. They compile a query's code in its first minutes, once for a node that runs it for days,
and a phase begins only seconds after its query. The executor and driver columns, and every
ratio, are the CPU of the other threads, the garbage collector's included; code not compiled
yet still runs slower there. The warm-up is three triggers at least: a query's first looks
describe every file under the driver's first questions before their answers are kept, once.

- **Idle**: quiet files of 10 lines of 100 bytes, read from their start; the query's first
  batch (from the query's start to that batch's end, from its progress) reads them, and the
  phase begins after the warm-up that follows. In real-time mode no batch ends: the time given
  is until every line was in the sink.
- **Written**: a writer process appends lines of 100 bytes, each a write of its own, to
  `app.log`, rotated every 10 s as `logrotate` with `rotate 2` does (`app.log.1` to `app.log.2`,
  over the one before, then `app.log` to `app.log.1`), so a line stays 20 s or more; the `path`
  matches all three (`app\\.log(\\.[12])?`). Lines written are counted once the writer stops and
  the query caught up: the batches' `numInputRows` summed (micro-batch), the sink's lines by id
  (real-time mode). Lines the source said were lost (its `bytesLost`) are given beside.
- **Busy beside quiet**: the writer of the written phases at 1,000 lines a second, its
  directory one more beside the 200 of 20,000 quiet files, all read by one `path`; the first
  batch reads the quiet files, and the phase begins after the warm-up. rsyslog is not run there:
  it runs out of descriptors on the quiet files alone.
- **Batches a second** are the progress reports of the phase: Spark reports a trigger that read
  nothing only every 10 s, so these are the batches that read.
- **`rate`**: Spark's `rate` source at the same trigger, `rowsPerSecond` the phase's lines a
  second, one partition, into `noop`: what any micro-batch source pays. At the default trigger,
  `rate-micro-batch` (a tenth of the lines a second each batch): `rate` moves its offset once a
  second, so Spark runs it a batch a second there, where a source with news at each trigger (a
  written file's) has Spark run batches back to back, as `rate-micro-batch` does. Idle phases
  and real-time mode (where `rate` is refused) have none.
- **Spark alone**: the executor's and the driver's JVMs over a phase's length after the last
  query stopped: Spark's own idle cost (heartbeats, metrics, the garbage collector), under
  every idle figure. CPU is counted in clock ticks of 10 ms, so a 30 s phase tells idle
  figures apart only by 0.0003 core.
- **rsyslogd**: rsyslog's `imfile` in inotify mode, in the foreground with a configuration,
  pid file and work directory of its own, reading the same quiet files, or the same writer's
  lines, through a wildcard `File=` into one file (`omfile`, `%msg%`); its lines checked by id.

Ratios are this source's figure over the reference's, in the same run. A reference that used
no clock tick in a phase gives a bound (`> n`).
"""


def _compiled(usage: dict[str, Any]) -> float:
    """Return the cores but for the JIT compiler's threads (not counted in older figures)."""
    ticks: int = usage["ticks"] - usage.get("jit_ticks", 0)
    seconds: float = usage["seconds"]
    return ticks / TICKS_PER_SECOND / seconds


def _cores(usage: dict[str, Any]) -> str:
    return f"{_compiled(usage):.4f}"


def _jit(usage: dict[str, Any]) -> str:
    return f"{usage.get('jit_ticks', 0) / TICKS_PER_SECOND / usage['seconds']:.4f}"


def _ratio(mine: dict[str, Any], reference: dict[str, Any]) -> str:
    if _compiled(reference) == 0:
        tick = 1 / TICKS_PER_SECOND / reference["seconds"]  # one tick: its most
        return "-" if _compiled(mine) == 0 else f"> {_compiled(mine) / tick:.0f}"
    return f"{_compiled(mine) / _compiled(reference):.2f}"


def _lines(lines: dict[str, int]) -> str:
    said = f"{lines['written']:,} / {lines['counted']:,}"
    if "lost" in lines:
        said += f" (lost {lines['lost']:,}, duplicated {lines['duplicated']:,})"
    if "said_lost" in lines:
        said += f" (said lost: {lines['said_lost']:,})"
    return said


def _first(row: dict[str, Any]) -> str:
    first = row.get("first_batch")
    if not first:
        return "-"
    if first["rows"] is None:
        return f"{first['seconds']} (all lines in the sink)"
    total = row["lines"]["written"]
    return f"{first['seconds']}" + ("" if first["rows"] >= total else f" ({first['rows']:,} rows)")


def _batches(row: dict[str, Any], reference: dict[str, Any] | None) -> str:
    """Return batches a second that read, this source's and `rate`'s; "-" where not taken."""
    mine = row.get("batches_per_s")
    theirs = reference.get("batches_per_s") if reference else None
    return f"{'-' if mine is None else mine} / {'-' if theirs is None else theirs}"


def _alone(usage: dict[str, Any] | None) -> list[str]:
    """Return the sentence on Spark's JVMs with no query, when the last run took them."""
    if not usage:
        return []
    return [
        f"Spark alone, after the last query stopped (the floor of every idle figure): executor "
        f"{_cores(usage['executor'])}, driver {_cores(usage['driver'])} (cores; JIT "
        f"{_jit(usage['executor'])} / {_jit(usage['driver'])}).",
        "",
    ]


def _line(name: str, results: dict[str, Any]) -> list[str]:
    rows, shipped = results["rows"], results["rsyslog"]
    seconds = sorted({r["seconds"] for r in rows.values()})
    warmup = sorted({r["warmup"] for r in rows.values()})
    lines = [
        f"## PySpark {results['machine']['pyspark']}",
        "",
        f"Phases of {' or '.join(f'{s:.0f}' for s in seconds)} s, each after "
        f"{' or '.join(f'{w:g}' for w in warmup)} s of warm-up; the machine's load average "
        f"(1, 5, 15 min) as the last run began: {results.get('load', '-')}.",
        "",
        *_alone(results.get("spark_alone")),
        "| phase | trigger | executor (cores) | driver (cores) "
        "| JIT compiling: executor / driver (cores) | executor RSS (MB) | executor fds "
        "| lines written / counted | first batch (s) | batches/s: this / `rate` "
        "| `rate`: executor / driver (cores) | this / `rate`: executor, driver | rsyslogd (cores) "
        "| this executor / rsyslogd |",
        "| --- | --- |" + " ---: |" * 12,
    ]
    failures = []
    for key, row in rows.items():
        reference = row.get("rate")
        ship = shipped.get(key.split(" ")[0])
        if "error" in row:
            failures.append(f"- {row['phase']}, {row['trigger']}: `{row['error']}`")
            lines.append(f"| {row['phase']} | {row['trigger']} | failed (below) |" + " - |" * 11)
            continue
        if reference and "error" in reference:
            failures.append(f"- `rate`, {row['phase']}, {row['trigger']}: `{reference['error']}`")
            reference = None
        lines.append(
            f"| {row['phase']} | {row['trigger']} | {_cores(row['executor'])} | "
            f"{_cores(row['driver'])} | {_jit(row['executor'])} / {_jit(row['driver'])} | "
            f"{row['executor_end']['rss_mb']:.0f} | "
            f"{row['executor_end']['fds']} | {_lines(row['lines'])} | {_first(row)} | "
            f"{_batches(row, reference)} | "
            + (
                f"{_cores(reference['executor'])} / {_cores(reference['driver'])} | "
                f"{_ratio(row['executor'], reference['executor'])}, "
                f"{_ratio(row['driver'], reference['driver'])} | "
                if reference
                else "- | - | "
            )
            + (
                f"{_cores(ship['rsyslogd'])} | {_ratio(row['executor'], ship['rsyslogd'])} |"
                if ship
                else "- | - |"
            )
        )
    if failures:
        lines += ["", "The queries that failed, and why:", "", *failures]
    lines += [
        "",
        "rsyslogd on the same phases:",
        "",
        "| phase | rsyslogd (cores) | RSS (MB) | fds | lines written / in its file | lost "
        "| duplicated | lines it logged |",
        "| --- |" + " ---: |" * 7,
    ]
    labels = {key.split(" ")[0]: row["phase"] for key, row in rows.items()}
    notes = []
    for phase, ship in shipped.items():
        counts = ship["lines"]
        lines.append(
            f"| {labels.get(phase, phase)} | {_cores(ship['rsyslogd'])} | "
            f"{ship['end']['rss_mb']:.0f} | {ship['end']['fds']} | {counts['written']:,} / "
            f"{counts['counted']:,} | {counts['lost']:,} | {counts['duplicated']:,} | "
            f"{ship['errors']['count']:,} |"
        )
        if ship["errors"]["first"]:
            notes.append(f"- {labels.get(phase, phase)}: `{ship['errors']['first'][:300]}`")
    if notes:
        lines += ["", "The first line rsyslogd logged, where it logged any:", "", *notes]
    return lines


def write(here: Path) -> None:
    """Write ``node-cost.md`` in ``here``, a section per Spark line measured so far."""
    every = {
        p.stem.removeprefix("node-cost-"): json.loads(p.read_text())
        for p in sorted(here.glob("node-cost-spark*.json"))
    }
    machine = {k: v for k, v in next(iter(every.values()))["machine"].items() if k != "pyspark"}
    text = [
        "# A node's own cost",
        "",
        "Written by `make bench-node-cost` (`bench/node_cost.py`, once per Spark line); do not "
        "edit by hand.",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()) + ".",
        "",
        _SETUP.strip(),
    ]
    for name, results in every.items():
        text += ["", *_line(name, results)]
    (here / "node-cost.md").write_text("\n".join(text) + "\n")
