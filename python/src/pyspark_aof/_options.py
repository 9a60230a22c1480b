"""The source's options as a typed, validated, frozen dataclass."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Any

_INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1
_SPECS = "com/hx/spark/sql/connector/aof/config/options.json"
_SESSION_PREFIX = "spark.aof."
_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
# What Java's String.trim takes off both ends: every character up to the space, no other.
_JAVA_TRIMMED = "".join(map(chr, range(0x21)))


class StartingOffsets(StrEnum):
    """Where a file first seen by a new query starts."""

    EARLIEST = "earliest"
    """At byte 0."""
    LATEST = "latest"
    """At the end of its last complete line."""


@dataclass(frozen=True)
class OptionSpec:
    """One documented option: its key, type and range, its default as documented, one line of doc.

    ``type`` is ``int`` or ``long`` (whole numbers of at least ``min``), ``boolean``, ``choice``
    (one of ``choices``), ``string`` (matching ``pattern`` when given; ``expected`` says what in
    words), ``regex``, ``duration`` (a whole number and its unit, held in milliseconds) or
    ``path``. An option that is ``many`` takes one value or several (a list,
    passed as a JSON array).
    """

    key: str
    type: str
    default: str
    doc: str
    min: int | None = None
    choices: tuple[str, ...] = ()
    pattern: str | None = None
    expected: str | None = None
    many: bool = False


def option_specs() -> list[OptionSpec]:
    """Return every option of the source, from the ``options.json`` inside the bundled JAR.

    The JVM side reads the same file: names, types, ranges, defaults and docs exist once.

    Returns
    -------
    list of OptionSpec
        In the order of the documented table, ``path`` first.

    """
    return list(_specs())


@functools.cache
def _specs() -> tuple[OptionSpec, ...]:
    from pyspark_aof._jar import jar_path

    with zipfile.ZipFile(jar_path()) as jar:
        return tuple(
            OptionSpec(**{**o, "choices": tuple(o.get("choices", ()))})
            for o in json.loads(jar.read(_SPECS))
        )


def options_table() -> str:
    """Return the options table in Markdown, as the README shows it."""
    rows = [f"| `{o.key}` | `{o.default}` | {o.doc} |" for o in option_specs()]
    return "| option | default | meaning |\n| --- | --- | --- |\n" + "\n".join(rows) + "\n"


# Options set together or not at all, and what for.
_PAIRS = (
    ("zookeeper_auth_user", "zookeeper_auth_password", "ZooKeeper digest authentication"),
    ("zookeeper_sasl_user", "zookeeper_sasl_password", "SASL DIGEST-MD5"),
    ("zookeeper_sasl_kerberos_principal", "zookeeper_sasl_kerberos_keytab", "Kerberos"),
)


def _key(name: str) -> str:
    return name.replace("_", ".")


@dataclass(frozen=True)
class AofOptions:
    r"""Every option of the source but ``path``, typed; ``None`` keeps the source's default.

    Bad values raise :class:`ValueError` naming the option, before anything reaches the JVM.
    The defaults and meanings are those of :func:`option_specs` (the README's table).

    Attributes
    ----------
    exclude : str or sequence of str, optional
        Java regexes searched for in each file's full path (``r"\.gz$"``): a file one is found
        in is not read, though a tracked file renamed to such a path is read to its end.
    zookeeper_address : str, optional
        ZooKeeper connect string (``zookeeper.address``); unset, the driver embeds a server.
    zookeeper_session_timeout : int, optional
        Milliseconds before ZooKeeper ends a silent client's session.
    zookeeper_auth_user, zookeeper_auth_password : str, optional
        Digest credentials; with them the source's znodes get ACLs. Set both or neither.
    zookeeper_ssl_enabled : bool, optional
        Connect over TLS, trusting the JVM's authorities unless a trust store is set; a store
        turns TLS on by itself.
    zookeeper_ssl_keystore_location, zookeeper_ssl_truststore_location : str, optional
        This client's key store, and the store of the certificates that sign ZooKeeper's: a
        path on every host, or the name of a file shipped with ``--files``.
    zookeeper_ssl_keystore_password, zookeeper_ssl_truststore_password : str, optional
        Their passwords.
    zookeeper_ssl_keystore_type, zookeeper_ssl_truststore_type : str, optional
        ``"jks"``, ``"pkcs12"`` or ``"pem"``; by default told by the file's extension.
    zookeeper_ssl_hostname_verification : bool, optional
        Whether ZooKeeper's certificate must name the host connected to.
    zookeeper_sasl_section : str, optional
        A section of the JVM's JAAS configuration to log in with (DIGEST-MD5 or Kerberos).
    zookeeper_sasl_user, zookeeper_sasl_password : str, optional
        A DIGEST-MD5 login without a JAAS file. Set both or neither.
    zookeeper_sasl_kerberos_principal, zookeeper_sasl_kerberos_keytab : str, optional
        A Kerberos login from a keytab. Set both or neither.
    starting_offsets : StartingOffsets, optional
        Where a file first seen by a new query starts (a member or its value).
    ignore_older : str or datetime.timedelta, optional
        A file first seen not modified for this long (``"24h"``, ``"7d"``) is followed from its
        end, not read; a compressed one is never decompressed.
    bytes_max : int, optional
        Most bytes read from one file in one micro-batch.
    batch_bytes_max : int, optional
        Most bytes read in one micro-batch over all hosts and files, shared fairly: a file
        wanting less than an even share gets it whole, the others share the rest evenly.
    node_name_env : str, optional
        Environment variable holding each executor's node name (on Kubernetes, set from
        ``spec.nodeName``); the executors of one node then share one endpoint.
    nodes : str or sequence of str, optional
        The nodes whose files must be read: a list of names as the ``host`` column shows them,
        or ``"standalone"``, ``"yarn"`` or ``"kubernetes"`` to ask the cluster manager. One
        that no executor reads is named in the metrics, in ``status`` and in a warning.
    nodes_selector : str, optional
        With ``nodes="yarn"``, a node label; with ``nodes="kubernetes"``, a label selector.
    nodes_url : str, optional
        The standalone master's web UI or the Kubernetes API server, where the session's
        master does not tell.
    nodes_refresh_interval : str or datetime.timedelta, optional
        How often the cluster manager is asked again (``"1m"``).
    nodes_await_timeout : int, optional
        Milliseconds ``AvailableNow`` and ``Once`` wait for every node of ``nodes``.
    meta_store : str, optional
        ZooKeeper root of the source's znodes, an absolute path; one running query at a time.
    resume_from_backup : bool, optional
        Whether a query on a new checkpoint resumes from the offset backup in ``meta_store``
        (a driver that lost its checkpoint); off, it starts where ``starting_offsets`` says.
    meta_await_timeout : int, optional
        Milliseconds the driver waits for a node's file metadata.
    start_await_timeout : int, optional
        Milliseconds a run's first trigger waits for every host with an executor; then
        ``AvailableNow`` fails naming the silent ones, other triggers plan without them.
    md5_check_enabled : bool, optional
        Whether to compare each tracked file's fingerprints with what was read; off, its inode
        is trusted.
    md5_sample_length : int, optional
        Bytes at the start of a file hashed for its fingerprint.
    partition_bytes_max : int, optional
        Bytes below which a host's reading is not split over more tasks; above, it is shared
        evenly over the host's task slots, never more tasks than slots (each file also counting
        Spark's ``spark.sql.files.openCostInBytes``).
    line_length_max : int, optional
        Longest line in bytes; longer ones are cut.
    multiline_start : str, optional
        Java regex found in the first line of each multi-line record (a timestamp, say); the
        source then reads records, each line that does not match continuing the one before.
    multiline_continuation : str, optional
        Java regex found in each continuation line of a record (``^\s`` for the indented lines
        of a Java stack trace); other lines start a record. Instead of ``multiline_start``.
    multiline_bytes_max : int, optional
        Largest record in bytes: a line that would take a record past it starts the next one.
    multiline_flush_timeout : int, optional
        Milliseconds without a write after which a file's last record is complete.
    include_lines : str or sequence of str, optional
        Java regexes searched for in each line (each record, with the multi-line options): only
        lines one is found in are read. Judged on the node before any row is made; a literal such
        as ``"ERROR"`` is looked for in the bytes alone.
    exclude_lines : str or sequence of str, optional
        Java regexes searched for in each line kept by ``include_lines``: lines one is found in
        are dropped. Dropped lines count in the ``linesFiltered`` metric.
    fail_on_data_loss : bool, optional
        Fail the query when bytes go unread, instead of logging and counting them.

    Examples
    --------
    >>> AofOptions(starting_offsets=StartingOffsets.LATEST, bytes_max=1 << 20).to_options()
    {'starting.offsets': 'latest', 'bytes.max': '1048576'}
    >>> AofOptions(bytes_max=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Invalid value '0' for option 'bytes.max' (...): expected a positive whole number.

    """

    exclude: str | Sequence[str] | None = None
    zookeeper_address: str | None = None
    zookeeper_session_timeout: int | None = None
    zookeeper_auth_user: str | None = None
    zookeeper_auth_password: str | None = field(default=None, repr=False)
    zookeeper_ssl_enabled: bool | None = None
    zookeeper_ssl_keystore_location: str | None = None
    zookeeper_ssl_keystore_password: str | None = field(default=None, repr=False)
    zookeeper_ssl_keystore_type: str | None = None
    zookeeper_ssl_truststore_location: str | None = None
    zookeeper_ssl_truststore_password: str | None = field(default=None, repr=False)
    zookeeper_ssl_truststore_type: str | None = None
    zookeeper_ssl_hostname_verification: bool | None = None
    zookeeper_sasl_section: str | None = None
    zookeeper_sasl_user: str | None = None
    zookeeper_sasl_password: str | None = field(default=None, repr=False)
    zookeeper_sasl_kerberos_principal: str | None = None
    zookeeper_sasl_kerberos_keytab: str | None = None
    starting_offsets: StartingOffsets | None = None
    ignore_older: str | timedelta | None = None
    bytes_max: int | None = None
    batch_bytes_max: int | None = None
    node_name_env: str | None = None
    nodes: str | Sequence[str] | None = None
    nodes_selector: str | None = None
    nodes_url: str | None = None
    nodes_refresh_interval: str | timedelta | None = None
    nodes_await_timeout: int | None = None
    meta_store: str | None = None
    resume_from_backup: bool | None = None
    meta_await_timeout: int | None = None
    start_await_timeout: int | None = None
    md5_check_enabled: bool | None = None
    md5_sample_length: int | None = None
    partition_bytes_max: int | None = None
    line_length_max: int | None = None
    multiline_start: str | None = None
    multiline_continuation: str | None = None
    multiline_bytes_max: int | None = None
    multiline_flush_timeout: int | None = None
    include_lines: str | Sequence[str] | None = None
    exclude_lines: str | Sequence[str] | None = None
    fail_on_data_loss: bool | None = None

    def __post_init__(self) -> None:
        # The pairs before the user's values, in the JVM's order: its messages are the same.
        for first, second, what in _PAIRS:
            a, b = getattr(self, first), getattr(self, second)
            if (a is None) != (b is None):
                given, missing = (first, second) if a is not None else (second, first)
                raise ValueError(
                    f"Option '{_key(given)}' is set but '{_key(missing)}' is not: "
                    f"set both for {what}, or neither."
                )
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None:
                object.__setattr__(self, f.name, _checked(f.name, value))

    def to_options(self) -> dict[str, str]:
        """Return the options that are set, as the source spells them.

        Returns
        -------
        dict of str to str
            ``{"starting.offsets": "latest", ...}``, for ``DataStreamReader.options``.

        """
        options = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None:
                options[_key(f.name)] = _as_string(value)
        return options

    @classmethod
    def from_strings(cls, options: dict[str, str]) -> AofOptions:
        """Return the options given as the source spells them, ``{"bytes.max": "1024"}``.

        Raises
        ------
        ValueError
            For an unknown option name or a bad value, naming the option.

        """
        return cls().with_changes(**options)

    def with_changes(self, **changes: Any) -> AofOptions:
        """Return a copy with ``changes`` applied; names may use dots (``"bytes.max"``).

        Raises
        ------
        ValueError
            For an unknown option name or a bad value.

        """
        known = {f.name for f in dataclasses.fields(self)}
        names = {name.replace(".", "_"): value for name, value in changes.items()}
        unknown = sorted(_key(n) for n in names if n not in known)
        if unknown:
            names_known = sorted(map(_key, known))
            raise ValueError("; ".join(_unknown(name, names_known) for name in unknown))
        return dataclasses.replace(self, **{n: v for n, v in names.items() if v is not None})


def _unknown(name: str, known: list[str]) -> str:
    """Say that option ``name`` is unknown, with the closest known name, or all of them."""
    closest = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
    if closest:
        return f"Unknown option {name!r}: did you mean {closest[0]!r}?"
    return f"Unknown option {name!r}; known: {', '.join(known)}"


def _checked(name: str, value: Any) -> Any:
    """Return ``value`` as the option ``name`` holds it, or raise ValueError naming the option.

    Checked against the option's type and range in ``options.json`` as the JVM side checks it,
    with its words: a value given as a string is read as the JVM reads it (``"4194304"``,
    ``"false"``), as PySpark passes options. Only a regex's syntax is left to the JVM, whose
    regexes Python's ``re`` cannot judge.
    """
    spec = next(o for o in _specs() if o.key == _key(name))
    if spec.many:
        return _checked_many(spec, value)
    return _checked_one(spec, name, value)


def _fail(spec: OptionSpec, expected: str, shown: str) -> ValueError:
    return ValueError(
        f"Invalid value '{shown}' for option '{spec.key}' (or '{_SESSION_PREFIX}{spec.key}'): "
        f"expected {expected}."
    )


def _checked_many(spec: OptionSpec, value: Any) -> Any:
    """Return one value, or a tuple of several: a list, or a JSON array of strings."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise _fail(spec, "one value or a list of them, not an empty list", "[]")
        return tuple(_checked_one(spec, spec.key, i) for i in value)
    if isinstance(value, str):
        try:
            items = json.loads(value)
        except ValueError:
            items = None
        if isinstance(items, list) and items and all(isinstance(i, str) for i in items):
            return tuple(_checked_one(spec, spec.key, i) for i in items)
    return _checked_one(spec, spec.key, value)


def _checked_one(spec: OptionSpec, name: str, value: Any) -> Any:
    given = _as_string(value)

    def fail(expected: str, shown: str) -> ValueError:
        return _fail(spec, expected, shown)

    if spec.type == "regex":
        # Not trimmed: a regex's spaces are part of it.
        if not isinstance(value, str) or not value:
            raise fail("a Java regex that is not empty", given)
        return value
    text = given.strip(_JAVA_TRIMMED)
    if spec.type == "boolean":
        if isinstance(value, (bool, str)) and text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise fail("'true' or 'false'", text)
    if spec.type == "choice":
        if not isinstance(value, str) or text.lower() not in spec.choices:
            raise fail(" or ".join(f"'{c}'" for c in spec.choices), text)
        return StartingOffsets(text.lower()) if name == "starting_offsets" else text.lower()
    if spec.type == "duration":
        if isinstance(value, timedelta):
            text = f"{value // timedelta(milliseconds=1)}ms"
        given_as_text = isinstance(value, (str, timedelta))
        found = re.fullmatch(r"([0-9]+)(ms|s|m|h|d)", text) if given_as_text else None
        if found is None or not 0 < int(found[1]) * _UNITS[found[2]] <= _LONG_MAX:
            raise fail("a duration such as 30s, 15m, 24h or 7d (units ms, s, m, h, d)", text)
        return text
    if spec.type in ("int", "long"):
        limit = _INT_MAX if spec.type == "int" else _LONG_MAX
        lowest = spec.min if spec.min is not None else -_LONG_MAX - 1
        words = "a positive whole number" if lowest == 1 else f"a whole number from {lowest}"
        words += f" up to {limit}" if spec.type == "int" else ""
        whole = isinstance(value, int) and not isinstance(value, bool)
        if not whole and not (isinstance(value, str) and re.fullmatch(r"[+-]?\d+", text)):
            raise fail(words, text)
        number = int(text)
        if not lowest <= number <= limit:
            raise fail(words, text)
        return number
    if not isinstance(value, str):
        raise fail("a string", text)
    if spec.pattern is not None and not re.fullmatch(spec.pattern, text, re.ASCII):
        # re.ASCII: Java's \d and \s are ASCII only, as they are then.
        raise fail(spec.expected or f"a value matching {spec.pattern}", text)
    return text


def _as_string(value: Any) -> str:
    """Return ``value`` as PySpark passes it to the JVM (``True``: ``"true"``; a list as JSON)."""
    if isinstance(value, (list, tuple)):
        return json.dumps([str(v) for v in value])
    return str(value).lower() if isinstance(value, bool) else str(value)
