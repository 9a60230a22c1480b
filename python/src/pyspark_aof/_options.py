"""The source's options as a typed, validated, frozen dataclass."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import re
import zipfile
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any, ClassVar, Self

_INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1
_SPECS = "com/hx/spark/sql/connector/aof/config/options.json"
_SESSION_PREFIX = "spark.aof."
# What Java's String.trim takes off both ends: every character up to the space, no other.
_JAVA_TRIMMED = "".join(map(chr, range(0x21)))


class StartingOffsets(StrEnum):
    """Where a file first seen by a new query starts."""

    EARLIEST = "earliest"
    """At byte 0."""
    LATEST = "latest"
    """At the end of its last complete line."""


# The choices Python holds as an enum, by option; the others are strings.
ENUMS: dict[str, type[StrEnum]] = {"starting.offsets": StartingOffsets}
# The options whose values are not shown: those Spark redacts (`spark.redaction.regex`).
REDACTED = re.compile(r"(?i)secret|password|token|access[.]?key")


@dataclass(frozen=True)
class OptionSpec:
    """One documented option: its key, type and range, its default as documented, one line of doc.

    ``type`` is ``int`` or ``long`` (whole numbers of at least ``min``), ``boolean``, ``choice``
    (one of ``choices``), ``string`` (matching ``pattern`` when given; ``expected`` says what in
    words), ``regex``, ``duration`` (a whole number and its unit, held in milliseconds) or
    ``path``. An option that is ``many`` takes one value or several (a list,
    passed as a JSON array). ``pair`` names the option set with this one, both or neither, and
    what the two are for.
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
    pair: tuple[str, str] | None = None


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
def _document() -> dict[str, Any]:
    """Return ``options.json``: the options, the units of a duration, the words of messages."""
    from pyspark_aof._jar import jar_path

    with zipfile.ZipFile(jar_path()) as jar:
        document: dict[str, Any] = json.loads(jar.read(_SPECS))
        return document


@functools.cache
def _specs() -> tuple[OptionSpec, ...]:
    return tuple(
        OptionSpec(**{**o, "choices": tuple(o.get("choices", ())), "pair": _pair(o.get("pair"))})
        for o in _document()["options"]
    )


def _say(name: str, **fills: Any) -> str:
    """Return the message ``name`` of ``options.json``, its ``{placeholders}`` filled."""
    return str(_document()["messages"][name]).format(**fills)


def _units() -> dict[str, int]:
    """Return the milliseconds of each unit of a duration, in the order messages name them."""
    units: dict[str, int] = _document()["units"]
    return units


def options_table() -> str:
    """Return the options table in Markdown, as the README shows it."""
    rows = [f"| `{o.key}` | `{o.default}` | {o.doc} |" for o in option_specs()]
    return "| option | default | meaning |\n| --- | --- | --- |\n" + "\n".join(rows) + "\n"


def _pair(given: list[str] | None) -> tuple[str, str] | None:
    return (given[0], given[1]) if given else None


def _key(name: str) -> str:
    return name.replace("_", ".")


def _field(key: str) -> str:
    return key.replace(".", "_")


class OptionValues:
    """What ``AofOptions`` does with its fields: check them, give them as the source reads them.

    The fields themselves, one per option, are generated from ``options.json``
    (``_option_fields.py``).
    """

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    def __post_init__(self) -> None:
        # The pairs before the user's values, in the JVM's order: its messages are the same.
        for spec in _specs():
            if spec.pair is None:
                continue
            first, (second, what) = _field(spec.key), (_field(spec.pair[0]), spec.pair[1])
            a, b = getattr(self, first), getattr(self, second)
            if (a is None) != (b is None):
                given, missing = (first, second) if a is not None else (second, first)
                raise ValueError(_say("pair", given=_key(given), missing=_key(missing), what=what))
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
    def from_strings(cls, options: dict[str, str]) -> Self:
        """Return the options given as the source spells them, ``{"bytes.max": "1024"}``.

        Raises
        ------
        ValueError
            For an unknown option name or a bad value, naming the option.

        """
        return cls().with_changes(**options)

    def with_changes(self, **changes: Any) -> Self:
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
        changed = {n: v for n, v in names.items() if v is not None}
        return dataclasses.replace(self, **changed)


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
    session_key = _SESSION_PREFIX + spec.key
    return ValueError(
        _say("invalid", value=shown, key=spec.key, sessionKey=session_key, expected=expected)
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

    if spec.type in ("regex", "exact"):
        # Not trimmed: a regex's spaces are part of it, and a separator may be a space or `\r`.
        if not isinstance(value, str) or not value:
            raise fail(_say(spec.type), given)
        return value
    text = given.strip(_JAVA_TRIMMED)
    if spec.type == "boolean":
        if isinstance(value, (bool, str)) and text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise fail(_say("boolean"), text)
    if spec.type == "choice":
        if not isinstance(value, str) or text.lower() not in spec.choices:
            raise fail(_say("or").join(_say("choice", choice=c) for c in spec.choices), text)
        enum = ENUMS.get(spec.key)
        return enum(text.lower()) if enum else text.lower()
    if spec.type == "duration":
        if isinstance(value, timedelta):
            text = f"{value // timedelta(milliseconds=1)}ms"
        units = _units()
        given_as_text = isinstance(value, (str, timedelta))
        found = re.fullmatch(f"([0-9]+)({'|'.join(units)})", text) if given_as_text else None
        if found is None or not 0 < int(found[1]) * units[found[2]] <= _LONG_MAX:
            raise fail(_say("duration", units=", ".join(units)), text)
        return text
    if spec.type in ("int", "long"):
        limit = _INT_MAX if spec.type == "int" else _LONG_MAX
        lowest = spec.min if spec.min is not None else -_LONG_MAX - 1
        words = _say("positive") if lowest == 1 else _say("from", min=lowest)
        words = _say("upTo", whole=words, max=limit) if spec.type == "int" else words
        whole = isinstance(value, int) and not isinstance(value, bool)
        if not whole and not (isinstance(value, str) and re.fullmatch(r"[+-]?\d+", text)):
            raise fail(words, text)
        number = int(text)
        if not lowest <= number <= limit:
            raise fail(words, text)
        return number
    if not isinstance(value, str):
        raise fail(_say("string"), text)
    if spec.pattern is not None and not re.fullmatch(spec.pattern, text, re.ASCII):
        # re.ASCII: Java's \d and \s are ASCII only, as they are then.
        raise fail(spec.expected or _say("pattern", pattern=spec.pattern), text)
    return text


def _as_string(value: Any) -> str:
    """Return ``value`` as PySpark passes it to the JVM (``True``: ``"true"``; a list as JSON)."""
    if isinstance(value, (list, tuple)):
        return json.dumps([str(v) for v in value])
    return str(value).lower() if isinstance(value, bool) else str(value)
