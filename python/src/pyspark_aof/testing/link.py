"""A TCP relay that can be cut, as a network partition cuts a client off its server."""

from __future__ import annotations

import contextlib
import socket
import threading

from pyspark_aof.testing import _process


class Link(_process.Managed):
    """Relays connections from ``address`` to ``target``; :meth:`cut` drops them all.

    While cut, relayed connections are closed and new ones refused, so neither side hears from
    the other: a ZooKeeper server then expires the sessions of clients that reach it only
    through the link. Written by hand because one machine has no network between its processes
    to fail; the bytes it relays are untouched.

    Parameters
    ----------
    target_host, target_port : str, int
        Where connections are relayed to.

    Examples
    --------
    >>> with Link("127.0.0.1", zk.port) as link:  # doctest: +SKIP
    ...     link.cut()
    ...     link.restore()

    """

    def __init__(self, target_host: str, target_port: int) -> None:
        self._target = (target_host, target_port)
        self.port = _process.free_port()
        self.address = f"127.0.0.1:{self.port}"
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None

    def start(self) -> Link:
        """Accept and relay connections."""
        return self.restore()

    def stop(self) -> None:
        """Stop relaying (see :meth:`cut`)."""
        self.cut()

    def restore(self) -> Link:
        """Accept and relay connections again."""
        with self._lock:
            if self._listener is not None:
                return self
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.port))
            listener.listen(64)
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def cut(self) -> None:
        """Close every relayed connection and refuse new ones until :meth:`restore`."""
        with self._lock:
            closing = list(self._sockets) + ([self._listener] if self._listener else [])
            self._sockets.clear()
            self._listener = None
        for s in closing:
            _close(s)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            try:
                server = socket.create_connection(self._target, timeout=5)
                server.settimeout(None)
            except OSError:
                _close(client)
                continue
            with self._lock:
                if self._listener is not listener:
                    _close(client)
                    _close(server)
                    return
                self._sockets.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._sockets.discard(source)
                self._sockets.discard(sink)
            _close(source)
            _close(sink)


def _close(s: socket.socket) -> None:
    with contextlib.suppress(OSError):
        s.shutdown(socket.SHUT_RDWR)
    s.close()
