"""The command line's argument types: each checks one argument, or says what was expected."""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Callable

from pyspark_aof._errors import UsageError
from pyspark_aof._option_fields import AofOptions


def seconds(text: str) -> float:
    """Argument type: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, not {text!r}")
    return value


def count(text: str) -> int:
    """Argument type: a positive whole number."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, not {text!r}")
    return value


def tail_path(text: str) -> str:
    """Argument type: an absolute path with a file-name regex after its last ``/``.

    Spark compiles the regex: it is a Java one, which Python's ``re`` cannot judge.
    """
    if not text.startswith("/"):
        raise argparse.ArgumentTypeError(
            rf"expected an absolute path such as /var/log/app\.log.*, not {text!r}"
        )
    if text.endswith("/"):
        raise argparse.ArgumentTypeError(
            f"expected a file-name regex after the last '/' of {text!r}"
        )
    directory, _, name = text.rpartition("/")
    if "*" in name or "?" in name:
        try:
            re.compile(name)
        except re.error:
            raise argparse.ArgumentTypeError(
                f"the last component of {text!r} is a regex on file names, not a shell glob: "
                f"use '{directory}/{glob_as_regex(name)}'"
            ) from None
    return text


def glob_as_regex(glob: str) -> str:
    r"""Return the regex a shell glob means, as the source suggests it (``*.log``: ``.*\.log``).

    ``*`` is any run of characters, ``?`` one, ``[...]`` a class, ``{a,b}`` either; the rest is
    literal.
    """
    out, in_class, in_group = [], False, False
    for c in glob:
        if in_class:
            out.append(c)
            in_class = c != "]"
        elif c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            out.append(c)
            in_class = True
        elif c == "{":
            out.append("(")
            in_group = True
        elif c == "}" and in_group:
            out.append(")")
            in_group = False
        elif c == "," and in_group:
            out.append("|")
        elif c in "\\.^$|+()[]{}":
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def one_path(paths: list[str]) -> str:
    """Return the one path of ``tail``; several are a pattern the shell expanded: refused."""
    if len(paths) == 1:
        return paths[0]
    directory = os.path.commonpath(paths)
    first, shared = paths[0], 0
    while shared < len(first) and all(p.endswith(first[-shared - 1 :]) for p in paths):
        shared += 1
    suffix = first[len(first) - shared :]
    dot = suffix.rfind(".")
    regex = ".*" + (re.escape(suffix[dot:]) if dot >= 0 and "/" not in suffix[dot:] else "")
    raise UsageError(
        f"argument path: {len(paths)} paths given ({paths[0]}, {paths[1]}, ...): the shell "
        f"expanded a pattern. Quote it, its last component a regex: '{directory}/{regex}'"
    )


def source_value(field: str) -> Callable[[str], str]:
    """Return an argument type that checks its value as the source checks option ``field``."""

    def check(text: str) -> str:
        try:
            AofOptions().with_changes(**{field: text})
        except ValueError as e:  # argparse names the flag: the option's name would be noise
            key = field.replace("_", ".")
            message = str(e).replace(f" for option '{key}' (or 'spark.aof.{key}')", "")
            raise argparse.ArgumentTypeError(message) from None
        return text

    return check


def kazoo_hosts(text: str) -> str:
    """Argument type: a connect string that kazoo parses (it resolves the host names later)."""
    from kazoo.hosts import collect_hosts

    try:
        collect_hosts(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(
            f"{e} in {text!r}: expected a connect string like host1:2181,host2:2181"
        ) from None
    return text


def credentials(text: str) -> str:
    """Argument type: ``USER:PASSWORD``; the error does not repeat it, a password."""
    user, colon, _ = text.partition(":")
    if not user or not colon:
        raise argparse.ArgumentTypeError("expected USER:PASSWORD, a user name before the ':'")
    return text


def option_pair(text: str) -> tuple[str, str]:
    """Argument type: ``KEY=VALUE``; the source option's name and value are checked later."""
    key, equals, value = text.partition("=")
    if not key or not equals:
        # Without repeating it: it may be zookeeper.auth.password's value, mistyped.
        raise argparse.ArgumentTypeError("expected KEY=VALUE, such as bytes.max=1048576")
    return key, value
