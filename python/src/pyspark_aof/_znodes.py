"""The znodes of a query's meta store that ``status`` reads, laid out as the JVM side lays them.

The layout is ``ZkPaths.scala``'s (docs/protocol.md): a test builds each path here and there and
compares them.
"""

from __future__ import annotations

import string
import urllib.parse
from dataclasses import dataclass

# What java.net.URLEncoder leaves as it is; it writes a space as '+', the rest as %XX of UTF-8.
_KEPT = frozenset((string.ascii_letters + string.digits + ".-*_").encode())


def encode_host(host: str) -> str:
    """Return the znode name of ``host``, as ``java.net.URLEncoder`` spells it in UTF-8.

    Python's own ``quote_plus`` keeps ``~`` and encodes ``*``: Java's spelling differs, so a
    host such as ``host~1`` would be looked for under a name the source never wrote.
    """
    return "".join(
        chr(b) if b in _KEPT else "+" if b == ord(" ") else f"%{b:02X}" for b in host.encode()
    )


def decode_host(name: str) -> str:
    """Return the host a znode name stands for: ``node+one`` is ``node one``."""
    return urllib.parse.unquote_plus(name)


def offsets(meta_store: str) -> str:
    """Return the znode of the offset backup."""
    return f"{meta_store}/offsets"


def runs(meta_store: str) -> str:
    """Return the znode whose children are the query's runs."""
    return f"{meta_store}/runs"


@dataclass(frozen=True)
class RunZnodes:
    """The znodes of one run of a query.

    Attributes
    ----------
    run : str
        The run's own znode, holding the others.
    driver : str
        Ephemeral: the run is alive while it exists.
    latches, endpoints, reports : str
        Parents of each host's leader latch, serving endpoint and files in full; ``status``
        writes ``reports`` itself to ask the endpoints for those. See :func:`of_host`.
    nodes : str
        The nodes the query must read (option ``nodes``) and those unread, as JSON.

    """

    run: str
    driver: str
    latches: str
    endpoints: str
    reports: str
    nodes: str

    @classmethod
    def of(cls, meta_store: str, run_id: str) -> RunZnodes:
        """Return the znodes of run ``run_id`` of the query whose store is ``meta_store``."""
        run = f"{runs(meta_store)}/{run_id}"
        return cls(
            run,
            f"{run}/driver",
            f"{run}/latches",
            f"{run}/endpoints",
            f"{run}/reports",
            f"{run}/nodes",
        )


def of_host(parent: str, host: str) -> str:
    """Return the znode of ``host`` (named as Spark names it) under ``parent``."""
    return f"{parent}/{encode_host(host)}"
