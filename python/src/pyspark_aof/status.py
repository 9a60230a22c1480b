"""What a query's ZooKeeper store holds: live endpoints, backed-up offsets, reported files."""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from typing import Any, TypeVar

from kazoo.client import KazooClient
from kazoo.exceptions import NoAuthError, NoNodeError

from pyspark_aof import _znodes
from pyspark_aof._errors import CommandError
from pyspark_aof._store_values import SEAL, decode_backup, decode_sealed, json_object, manifest
from pyspark_aof._znodes import RunZnodes

_T = TypeVar("_T")


def printable(value: object) -> str:
    r"""Return ``value`` as text that a terminal shows as it is, whoever wrote it.

    Every string status prints from ZooKeeper goes through here: a forged path holding
    ``\x1b[2J`` or a newline would otherwise clear the screen or fake a line of the report.
    Characters Python does not count as printable are shown as ``repr`` shows them (``\x1b``,
    ``\n``, ``\u202e``), and a backslash as ``\\``, so that what is shown is not ambiguous.

    Examples
    --------
    >>> print(printable("/var/log/\x1b[31mapp.log\nfake line"))
    /var/log/\x1b[31mapp.log\nfake line

    """
    text = str(value)
    if text.isprintable() and "\\" not in text:
        return text
    return "".join(c if c.isprintable() and c != "\\" else repr(c)[1:-1] for c in text)


def command_for(progress: dict[str, Any] | None, user: str | None = None) -> str | None:
    """Return the ``pyspark-aof status`` command that shows a running query, from its progress.

    Parameters
    ----------
    progress : dict or None
        A progress of the query (``StreamingQuery.lastProgress``), whose source metrics name
        its ZooKeeper (the embedded server's address too) and ``meta.store``.
    user : str, optional
        The query's digest user, if it uses digest ACLs: the command then names it with
        ``--auth``, and takes its password as ``status`` does (``AOF_ZOOKEEPER_AUTH_PASSWORD``
        or ``--auth-password-file``).

    Returns
    -------
    str or None
        The command, or ``None`` before the query's first progress.

    """
    sources = (progress or {}).get("sources") or [{}]
    metrics = sources[0].get("metrics") or {}
    if "zookeeperAddress" not in metrics:
        return None
    command = (
        f"pyspark-aof status --zookeeper {metrics['zookeeperAddress']} "
        f"--meta-store {metrics['metaStore']}"
    )
    # The password is never on the command line, which any user of the host can read.
    return command + (f" --auth {shlex.quote(user)}" if user else "")


def _decoded(path: str, decode: Callable[[bytes], _T], value: bytes) -> _T:
    """Return ``decode(value)`` of the znode at ``path``; one line naming it when it cannot."""
    try:
        return decode(value)
    except ValueError as e:
        raise CommandError(printable(f"cannot show {path}: its value {e}")) from None


def _children(zk: KazooClient, path: str) -> list[str]:
    try:
        found: list[str] = zk.get_children(path)
        return sorted(found)
    except NoNodeError:
        return []


def _data(zk: KazooClient, path: str) -> bytes | None:
    try:
        data: bytes = zk.get(path)[0]
        return data
    except NoNodeError:
        return None


def _value(zk: KazooClient, path: str) -> bytes | None:
    """Read the value at ``path``, joining its parts when it is larger than a znode.

    The source writes such a value's parts as children ``<generation>.<i>``, then a manifest
    ``aof-parts <generation> <count> <length>`` into the znode itself.
    """
    head = _data(zk, path)
    named = _decoded(path, manifest, head) if head else None
    if named is None:
        return head or None
    generation, count, length = named
    value = bytearray()
    for i in range(count):
        value += _data(zk, f"{path}/{generation}.{i}") or b""
        if len(value) > length:  # no larger than the manifest says, whatever the parts hold
            break
    # Parts gone: the value was replaced during this read; the next status shows the new one.
    return bytes(value) if len(value) == length else None


def _ask_for_reports(zk: KazooClient, run: RunZnodes, hosts: list[str], wait: float) -> None:
    """Ask a run's endpoints for their files in full, and wait for their reports.

    Endpoints write their whole list only while asked (at once, then each change at most once a
    second, for a minute), so that ZooKeeper does not carry every node's list every second.

    Parameters
    ----------
    zk : KazooClient
        A started client.
    run : RunZnodes
        The run's znodes.
    hosts : list of str
        The hosts whose endpoints serve: each is waited for.
    wait : float
        Seconds to wait at most; a host that has not written by then shows its older report.

    """
    try:
        asked = zk.set(run.reports, b"").mzxid
    except (NoNodeError, NoAuthError):
        return  # a run of an older version, or no right to ask: what is there is shown
    deadline = time.monotonic() + wait
    pending = set(hosts)
    while pending and time.monotonic() < deadline:
        stats = {h: zk.exists(_znodes.of_host(run.reports, h)) for h in pending}
        pending = {h for h, stat in stats.items() if stat is None or stat.mzxid <= asked}
        if pending:
            time.sleep(0.05)  # polling the reports, with a deadline


def read_status(zk: KazooClient, meta_store: str, wait: float = 5.0) -> dict[str, Any] | None:
    """Read a query's state from its meta store.

    Parameters
    ----------
    zk : KazooClient
        A started client (with the query's digest credentials if it uses them).
    meta_store : str
        The query's ``meta.store``.
    wait : float
        Seconds to wait at most for the endpoints to report their files (see
        ``_ask_for_reports``).

    Returns
    -------
    dict or None
        ``runs`` (per run: whether its driver lives, per host the serving endpoint, the
        number of stand-bys and why its directory could not be listed, if it could not, and
        with the option ``nodes`` the number of nodes to read and those unread),
        ``offsets`` (the backup: per host, per file id, path and position) and ``files`` (per
        host, what its endpoint reported when asked, as of its last trigger, with bytes behind
        the backup and why the file could not be read, if it could not);
        ``None`` when nothing is stored there.

    """
    if zk.exists(meta_store) is None:
        return None
    backup = _value(zk, _znodes.offsets(meta_store))
    offsets: dict[str, Any] = (
        _decoded(_znodes.offsets(meta_store), decode_backup, backup)["hosts"] if backup else {}
    )
    positions = {
        (host, f["dev"], f["ino"]): f["pos"]
        for host, h in offsets.items()
        for f in h["files"].values()
    }
    runs, files = [], []
    for run in _children(zk, _znodes.runs(meta_store)):
        znodes = RunZnodes.of(meta_store, run)
        serving = [_znodes.decode_host(h) for h in _children(zk, znodes.endpoints)]
        if serving:
            _ask_for_reports(zk, znodes, serving, wait)
        hosts = []
        # Znode names are the hosts URL-encoded; the backup names them as they are.
        for host in [_znodes.decode_host(h) for h in _children(zk, znodes.latches)]:
            endpoint = _data(zk, _znodes.of_host(znodes.endpoints, host))
            latch = len(_children(zk, _znodes.of_host(znodes.latches, host)))
            hosts.append(
                {
                    "host": host,
                    "endpoint": endpoint.decode(errors="replace") if endpoint else None,
                    "standBys": max(0, latch - (1 if endpoint else 0)),
                    "unlisted": None,
                    "ignored": 0,
                }
            )
            # The endpoint's files in full (its answers carry only what changed).
            at = _znodes.of_host(znodes.reports, host)
            report = _value(zk, at)
            if report and len(report) > SEAL:
                reported = _decoded(at, decode_sealed, report)
                hosts[-1]["unlisted"] = reported.get("unlisted")
                # Files left unread for ignore.older (compressed ones are not in "files").
                hosts[-1]["ignored"] = reported.get("ignored", 0)
                for f in reported["files"]:
                    done = positions.get((host, f["dev"], f["ino"]), 0)
                    files.append(
                        {
                            "run": run,
                            "host": host,
                            "path": f["path"],
                            "size": f["size"],
                            "bytesBehind": max(0, f["lineEnd"] - done),
                            "unreadable": f.get("unreadable"),
                        }
                    )
        # A live driver holds its znode in its session: a persistent one is anyone's.
        stat = zk.exists(znodes.driver)
        driver = stat is not None and stat.ephemeralOwner != 0
        nodes = _value(zk, znodes.nodes)
        runs.append(
            {
                "run": run,
                "driverAlive": driver,
                "hosts": hosts,
                # Option nodes: how many the query must read, and those no endpoint serves.
                "nodes": _decoded(znodes.nodes, json_object, nodes) if nodes else None,
            }
        )
    committed = [
        {"host": host, "fileId": file_id, "path": f["path"], "position": f["pos"]}
        for host, h in sorted(offsets.items())
        for file_id, f in sorted(h["files"].items())
    ]
    return {"metaStore": meta_store, "runs": runs, "offsets": committed, "files": files}


def _table(header: list[str], rows: list[list[Any]]) -> str:
    cells = [header, *[[printable(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return "\n".join(
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells
    )


def format_status(status: dict[str, Any]) -> str:
    """Render :func:`read_status`'s result as tables for a terminal.

    Every value read from ZooKeeper is shown through :func:`printable`.
    """
    parts = [f"meta store {printable(status['metaStore'])}"]
    for run in status["runs"]:
        alive = "driver alive" if run["driverAlive"] else "driver gone"
        parts.append(f"\nrun {printable(run['run'])} ({alive})")
        rows = [
            [h["host"], h["endpoint"] or "-", h["standBys"], h["ignored"], h["unlisted"] or ""]
            for h in run["hosts"]
        ]
        nodes = run.get("nodes")
        if nodes is not None:
            rows += [[n, "-", 0, 0, "unread: no executor reads it"] for n in nodes["unread"]]
        header = ["host", "serving endpoint", "stand-bys", "files ignored", "problem"]
        parts.append(_table(header, rows))
        if nodes is not None:
            expected = nodes.get("expected")
            parts.append(
                "  nodes to read: not known yet (the cluster manager has not answered)"
                if expected is None
                else f"  nodes to read: {printable(expected)}, unread: {len(nodes['unread'])}"
            )
    if not status["runs"]:
        parts.append("\nno query is running on this store")
    parts.append("\ncommitted offsets (ZooKeeper backup)")
    rows = [[o["host"], o["fileId"], o["path"], o["position"]] for o in status["offsets"]]
    parts.append(_table(["host", "file id", "path", "position"], rows) if rows else "  none yet")
    if status["files"]:
        parts.append("\nfiles as the endpoints last reported them")
        rows = [
            [f["host"], f["path"], f["size"], f["bytesBehind"], f["unreadable"] or ""]
            for f in status["files"]
        ]
        parts.append(_table(["host", "path", "size", "bytes behind", "cannot read"], rows))
    return "\n".join(parts)
