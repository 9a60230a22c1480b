"""The command line's ZooKeeper client: quiet while it tries, one clear line when it cannot."""

from __future__ import annotations

import contextlib
import logging
import socket
import warnings
from collections.abc import Iterator

from kazoo.client import KazooClient
from kazoo.handlers.threading import KazooTimeoutError

from pyspark_aof._errors import CommandError

# kazoo's own give-up notice says nothing about why: the notices before it do.
_GAVE_UP = "Failed connecting to Zookeeper"

# The clients' logger: its records go to the error, if any, never to logging's last resort
# (stderr), which takes those of a logger without handlers.
_LOGGER = logging.getLogger(__name__)
_LOGGER.propagate = False
_LOGGER.addHandler(logging.NullHandler())


class _Complaints(logging.Handler):
    """Keeps the client's warnings (refused, not resolved) for the error, off the terminal."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: dict[str, None] = {}  # distinct, in order

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if not message.startswith(_GAVE_UP):
            self.seen[message] = None


@contextlib.contextmanager
def connected(hosts: str, auth: str | None, timeout: float) -> Iterator[KazooClient]:
    """Connect to ZooKeeper for the ``with`` block; close the connection after it.

    kazoo logs each failed attempt, a line each time; those lines stay off the terminal, and
    the error names their distinct reasons instead.

    Parameters
    ----------
    hosts : str
        The connect string, ``host1:2181,host2:2181[/chroot]``.
    auth : str, optional
        Digest credentials, ``user:password``.
    timeout : float
        Seconds to wait for a connection.

    Yields
    ------
    KazooClient
        A started client.

    Raises
    ------
    ValueError
        When kazoo cannot parse ``hosts``.
    CommandError
        At once when no host of ``hosts`` resolves; when no server answers within ``timeout``.

    """
    unresolved = _unresolved(hosts)
    if unresolved:
        raise CommandError(
            f"cannot reach ZooKeeper at {hosts}: {', '.join(unresolved)} does not resolve to an "
            "address; check --zookeeper"
        )
    complaints = _Complaints()
    _LOGGER.addHandler(complaints)
    try:
        zk = KazooClient(
            hosts=hosts, auth_data=[("digest", auth)] if auth else None, logger=_LOGGER
        )
        try:
            with warnings.catch_warnings():
                # A missing chroot: reading finds nothing there, which the caller reports.
                warnings.simplefilter("ignore")
                zk.start(timeout=timeout)
        except KazooTimeoutError:
            why = "; ".join(complaints.seen) or "no answer"
            raise CommandError(
                f"cannot reach ZooKeeper at {hosts} within {timeout:g} s: check --zookeeper ({why})"
            ) from None
        try:
            yield zk
        finally:
            zk.stop()
            zk.close()
    finally:
        _LOGGER.removeHandler(complaints)


def _unresolved(hosts: str) -> list[str]:
    """Return the host names of ``hosts``, when none of them resolves (kazoo would retry them)."""
    from kazoo.hosts import collect_hosts

    names = sorted({host for host, _ in collect_hosts(hosts)[0]})
    for name in names:
        with contextlib.suppress(OSError):
            socket.getaddrinfo(name, None)
            return []
    return names
