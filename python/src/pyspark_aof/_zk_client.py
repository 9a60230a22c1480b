"""The command line's ZooKeeper client: quiet while it tries, one clear line when it cannot."""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import socket
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import AuthFailedError, ConnectionLoss
from kazoo.handlers.threading import KazooTimeoutError

from pyspark_aof._arguments import password_flag, password_variable
from pyspark_aof._errors import CommandError
from pyspark_aof._option_fields import AofOptions

# Where the command line takes the SASL password from (never from the command line itself).
_SASL = "zookeeper.sasl.password"
_SASL_PASSWORD = f"{password_variable(_SASL)} or {password_flag(_SASL)}"
# kazoo's own notices that say nothing about why: the notices before them do.
_GAVE_UP = ("Failed connecting to Zookeeper", "Unhandled exception in connection loop")

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
def connected(hosts: str, options: AofOptions, timeout: float) -> Iterator[KazooClient]:
    """Connect to ZooKeeper for the ``with`` block; close the connection after it.

    kazoo logs each failed attempt, a line each time; those lines stay off the terminal, and
    the error names their distinct reasons instead.

    Parameters
    ----------
    hosts : str
        The connect string, ``host1:2181,host2:2181[/chroot]``.
    options : AofOptions
        Its ``zookeeper.auth.*``, ``zookeeper.ssl.*`` and ``zookeeper.sasl.*`` say how to log in.
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
        At once when no host of ``hosts`` resolves, or a file or module a login needs is
        missing; when no server answers within ``timeout``; when ZooKeeper refuses the login.

    """
    unresolved = _unresolved(hosts)
    if unresolved:
        raise CommandError(
            f"cannot reach ZooKeeper at {hosts}: {', '.join(unresolved)} does not resolve to an "
            "address; check --zookeeper"
        )
    complaints = _Complaints()
    _LOGGER.addHandler(complaints)
    # A refused SASL login ends kazoo's connection thread with an exception, which Python
    # would print with its traceback: its name goes to the error instead.
    previous_hook = threading.excepthook
    threading.excepthook = lambda e: complaints.seen.setdefault(e.exc_type.__name__, None)
    try:
        login = kazoo_login(options)
        zk = KazooClient(hosts=hosts, logger=_LOGGER, **login)
        try:
            with warnings.catch_warnings():
                # A missing chroot: reading finds nothing there, which the caller reports.
                warnings.simplefilter("ignore")
                zk.start(timeout=timeout)
            if login.get("sasl_options"):
                # The login is done (or refused) once a first request is answered.
                zk.exists("/")
        except KazooTimeoutError:
            why = "; ".join(complaints.seen) or "no answer"
            if login.get("sasl_options") and ("Sasl" in why or "AuthFailed" in why):
                # The connection thread ended on the refusal before the client was up.
                raise _sasl_refused(hosts, why) from None
            check = "--zookeeper"
            # A TLS port ends a plain connection so; a plain one, a TLS handshake.
            if any(word in why for word in ("SSL", "certificate", "EOF", "broken")):
                check += " and the --ssl-* arguments"
            raise CommandError(
                f"cannot reach ZooKeeper at {hosts} within {timeout:g} s: check {check} ({why})"
            ) from None
        except (AuthFailedError, ConnectionLoss):
            zk.stop()
            zk.close()
            raise _sasl_refused(
                hosts, "; ".join(complaints.seen) or "the connection closed"
            ) from None
        try:
            yield zk
        finally:
            zk.stop()
            zk.close()
    finally:
        threading.excepthook = previous_hook
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


def _sasl_refused(hosts: str, why: str) -> CommandError:
    return CommandError(
        f"ZooKeeper at {hosts} refused the SASL login: check --sasl-user and its password "
        f"({_SASL_PASSWORD}), or --sasl-kerberos-principal and --sasl-kerberos-keytab ({why})"
    )


def kazoo_login(options: AofOptions) -> dict[str, Any]:
    """Return kazoo's arguments for the digest, TLS and SASL login that ``options`` describe.

    Python reads PEM files only: a JKS or PKCS12 store gives an error saying how to convert it.

    Raises
    ------
    CommandError
        For a store that is missing or not PEM, a JAAS section (a JVM's), or Kerberos without
        the Python package it needs.

    """
    o = options
    login: dict[str, Any] = {}
    if o.zookeeper_auth_user and o.zookeeper_auth_password:
        login["auth_data"] = [("digest", f"{o.zookeeper_auth_user}:{o.zookeeper_auth_password}")]
    trust = _pem(o.zookeeper_ssl_truststore_location, o.zookeeper_ssl_truststore_type, "truststore")
    keys = _pem(o.zookeeper_ssl_keystore_location, o.zookeeper_ssl_keystore_type, "keystore")
    if o.zookeeper_ssl_enabled or trust or keys:
        verify = o.zookeeper_ssl_hostname_verification is not False
        login.update(use_ssl=True, verify_certs=True, check_hostname=verify, ca=trust)
        # ZooKeeper's PEM key store holds the key and its certificate in one file.
        login.update(
            certfile=keys, keyfile=keys, keyfile_password=o.zookeeper_ssl_keystore_password
        )
    if o.zookeeper_sasl_user:
        login["sasl_options"] = {
            "mechanism": "DIGEST-MD5",
            "username": o.zookeeper_sasl_user,
            "password": o.zookeeper_sasl_password,
        }
    elif o.zookeeper_sasl_kerberos_principal:
        if importlib.util.find_spec("kerberos") is None:
            raise CommandError(
                "a Kerberos login from Python needs the package 'kerberos' (pip install "
                "kerberos, built against the system's Kerberos library); or read the query's "
                "status with --sasl-user"
            )
        # MIT Kerberos takes initial credentials from this keytab by itself.
        keytab = _readable(str(o.zookeeper_sasl_kerberos_keytab), "--sasl-kerberos-keytab")
        os.environ["KRB5_CLIENT_KTNAME"] = keytab
        login["sasl_options"] = {
            "mechanism": "GSSAPI",
            "principal": o.zookeeper_sasl_kerberos_principal,
        }
    elif o.zookeeper_sasl_section:
        raise CommandError(
            f"a JAAS section is the JVM's: give --sasl-user and its password ({_SASL_PASSWORD}), "
            "or --sasl-kerberos-principal and --sasl-kerberos-keytab"
        )
    return login


def _readable(path: str, flag: str) -> str:
    if not os.access(path, os.R_OK) or not Path(path).is_file():
        raise CommandError(f"argument {flag}: no readable file {path}")
    return path


def _pem(location: str | None, kind: str | None, which: str) -> str | None:
    """Return ``location`` when it is a PEM file; None when not given."""
    if location is None:
        return None
    flag = f"--ssl-{which}-location"
    with open(_readable(location, flag), "rb") as f:
        pem = b"-----BEGIN" in f.read(4096)
    if kind not in (None, "pem") or not pem:
        convert = (
            f"openssl pkcs12 -in {location} -out {Path(location).stem}.pem -nodes"
            if which == "keystore"
            else f"keytool -exportcert -rfc -keystore {location} -alias <alias> -file ca.pem"
        )
        raise CommandError(
            f"argument {flag}: {location} is not a PEM file, and this command reads PEM only: "
            f"convert it ({convert})"
        )
    return location
