"""The source's options as a typed, validated, frozen dataclass."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import zipfile
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

_INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1
_HOST_PORT = r"[^,:/\s]+:\d{1,5}"
_CONNECT_STRING = re.compile(rf"{_HOST_PORT}(,{_HOST_PORT})*(/\S*)?")
_SPECS = "com/hx/spark/sql/connector/aof/config/options.json"
_BOOLS = frozenset({"md5_check_enabled", "fail_on_data_loss"})
_STRINGS = frozenset(
    {
        "zookeeper_address",
        "meta_store",
        "zookeeper_auth_user",
        "zookeeper_auth_password",
        "node_name_env",
    }
)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LONGS = frozenset(
    {"bytes_max", "partition_bytes_max", "meta_await_timeout", "start_await_timeout"}
)


class StartingOffsets(StrEnum):
    """Where a file first seen by a new query starts."""

    EARLIEST = "earliest"
    """At byte 0."""
    LATEST = "latest"
    """At the end of its last complete line."""


@dataclass(frozen=True)
class OptionSpec:
    """One documented option: its key, its default as documented, and one line of doc."""

    key: str
    default: str
    doc: str


def option_specs() -> list[OptionSpec]:
    """Return every option of the source, from the ``options.json`` inside the bundled JAR.

    The JVM side reads the same file: names, defaults and docs exist once.

    Returns
    -------
    list of OptionSpec
        In the order of the documented table, ``path`` first.

    """
    from pyspark_aof._jar import jar_path

    with zipfile.ZipFile(jar_path()) as jar:
        return [OptionSpec(**o) for o in json.loads(jar.read(_SPECS))]


def options_table() -> str:
    """Return the options table in Markdown, as the README shows it."""
    rows = [f"| `{o.key}` | `{o.default}` | {o.doc} |" for o in option_specs()]
    return "| option | default | meaning |\n| --- | --- | --- |\n" + "\n".join(rows) + "\n"


def _key(name: str) -> str:
    return name.replace("_", ".")


@dataclass(frozen=True)
class AofOptions:
    """Every option of the source but ``path``, typed; ``None`` keeps the source's default.

    Bad values raise :class:`ValueError` naming the option, before anything reaches the JVM.
    The defaults and meanings are those of :func:`option_specs` (the README's table).

    Attributes
    ----------
    zookeeper_address : str, optional
        ZooKeeper connect string (``zookeeper.address``); unset, the driver embeds a server.
    zookeeper_session_timeout : int, optional
        Milliseconds before ZooKeeper ends a silent client's session.
    zookeeper_auth_user, zookeeper_auth_password : str, optional
        Digest credentials; with them the source's znodes get ACLs. Set both or neither.
    starting_offsets : StartingOffsets, optional
        Where a file first seen by a new query starts (a member or its value).
    bytes_max : int, optional
        Most bytes read from one file in one micro-batch.
    node_name_env : str, optional
        Environment variable holding each executor's node name (on Kubernetes, set from
        ``spec.nodeName``); the executors of one node then share one endpoint.
    meta_store : str, optional
        ZooKeeper root of the source's znodes, an absolute path.
    meta_await_timeout : int, optional
        Milliseconds the driver waits for a node's file metadata.
    start_await_timeout : int, optional
        Milliseconds a run's first trigger waits for every host with an executor; then
        ``AvailableNow`` fails naming the silent ones, other triggers plan without them.
    md5_check_enabled : bool, optional
        Whether to verify each tracked file's content fingerprint.
    md5_sample_length : int, optional
        Bytes at the start of a file hashed for its fingerprint.
    partition_bytes_max : int, optional
        Bytes below which a host's reading is not split over more tasks; above, it is shared
        evenly over the host's task slots, never more tasks than slots (each file also counting
        Spark's ``spark.sql.files.openCostInBytes``).
    line_length_max : int, optional
        Longest line in bytes; longer ones are cut.
    fail_on_data_loss : bool, optional
        Fail the query when bytes go unread, instead of logging and counting them.

    Examples
    --------
    >>> AofOptions(starting_offsets=StartingOffsets.LATEST, bytes_max=1 << 20).to_options()
    {'starting.offsets': 'latest', 'bytes.max': '1048576'}
    >>> AofOptions(bytes_max=0)
    Traceback (most recent call last):
    ...
    ValueError: Invalid value 0 for option 'bytes.max': expected a positive whole number.

    """

    zookeeper_address: str | None = None
    zookeeper_session_timeout: int | None = None
    zookeeper_auth_user: str | None = None
    zookeeper_auth_password: str | None = field(default=None, repr=False)
    starting_offsets: StartingOffsets | None = None
    bytes_max: int | None = None
    node_name_env: str | None = None
    meta_store: str | None = None
    meta_await_timeout: int | None = None
    start_await_timeout: int | None = None
    md5_check_enabled: bool | None = None
    md5_sample_length: int | None = None
    partition_bytes_max: int | None = None
    line_length_max: int | None = None
    fail_on_data_loss: bool | None = None

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None:
                object.__setattr__(self, f.name, _checked(f.name, value))
        if (self.zookeeper_auth_user is None) != (self.zookeeper_auth_password is None):
            given, missing = (
                ("user", "password") if self.zookeeper_auth_user else ("password", "user")
            )
            raise ValueError(
                f"Option 'zookeeper.auth.{given}' is set but 'zookeeper.auth.{missing}' is not: "
                "set both for ZooKeeper digest authentication, or neither."
            )

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
                options[_key(f.name)] = (
                    str(value).lower() if isinstance(value, bool) else str(value)
                )
        return options

    @classmethod
    def from_strings(cls, options: dict[str, str]) -> AofOptions:
        """Return the options given as the source spells them, ``{"bytes.max": "1024"}``.

        Raises
        ------
        ValueError
            For an unknown option name or a bad value, naming the option.

        """
        typed: dict[str, Any] = {}
        for key, text in options.items():
            name = key.replace(".", "_")
            value: Any = text
            if name in _BOOLS and text.lower() in ("true", "false"):
                value = text.lower() == "true"
            elif name not in _BOOLS | _STRINGS | {"starting_offsets"}:
                with contextlib.suppress(ValueError):
                    value = int(text)
            typed[key] = value
        return cls().with_changes(**typed)

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
            raise ValueError(
                f"Unknown option(s) {', '.join(map(repr, unknown))}; known: "
                + ", ".join(sorted(_key(n) for n in known))
            )
        return dataclasses.replace(self, **{n: v for n, v in names.items() if v is not None})


def _checked(name: str, value: Any) -> Any:
    """Return ``value`` as the option ``name`` holds it, or raise ValueError naming the option."""
    key = _key(name)

    def fail(expected: str) -> ValueError:
        return ValueError(f"Invalid value {value!r} for option '{key}': expected {expected}.")

    if name in _BOOLS:
        if not isinstance(value, bool):
            raise fail("True or False")
        return value
    if name == "starting_offsets":
        try:
            return StartingOffsets(str(value).lower())
        except ValueError:
            raise fail("StartingOffsets.EARLIEST or StartingOffsets.LATEST") from None
    if name in _STRINGS:
        if not isinstance(value, str):
            raise fail("a string")
        if name == "zookeeper_address" and not _CONNECT_STRING.fullmatch(value):
            raise fail("a connect string like host1:2181,host2:2181")
        if name == "meta_store" and not (
            value.startswith("/")
            and not value.endswith("/")
            and "//" not in value
            and len(value) > 1
        ):
            raise fail("an absolute ZooKeeper path such as /aof/my-app")
        if name == "zookeeper_auth_user" and (not value or ":" in value):
            raise fail("a user name without ':'")
        if name == "node_name_env" and not _ENV_NAME.fullmatch(value):
            raise fail("the name of an environment variable, such as NODE_NAME")
        return value
    limit = _LONG_MAX if name in _LONGS else _INT_MAX
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= limit:
        raise fail("a positive whole number" + (f" up to {limit}" if limit == _INT_MAX else ""))
    return value
