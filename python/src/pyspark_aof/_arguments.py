"""The command line's argument types: each checks one argument, or says what was expected."""

from __future__ import annotations

import argparse
import fnmatch
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


def read_as_regex(path: str) -> str | None:
    r"""Say what the last component of ``path`` (absolute) matches as a regex and as a glob.

    Only where it reads as a shell glob (a ``*`` or ``?`` after a plain character:
    ``app*.log``) and its directory, without wildcards, holds files the two tell apart: then
    ``"/logs/app*.log is read as a regex, which matches 1 (app.log) here; as a shell glob it
    would match 2 (app-1.log, app.log): for those, use '/logs/app.*\.log'"``, else ``None``.
    """
    directory, _, name = path.rpartition("/")
    reads_as_glob = any(
        c in "*?" and i > 0 and name[i - 1] not in ".)]}*?+\\" for i, c in enumerate(name)
    )
    if not reads_as_glob or any(c in directory for c in "*?[{"):
        return None
    try:
        regex = re.compile(name)
        names = sorted(e.name for e in os.scandir(directory or "/") if e.is_file())
    except (re.error, OSError):
        return None
    as_regex = [n for n in names if regex.fullmatch(n)]
    as_glob = [n for n in names if fnmatch.fnmatchcase(n, name)]
    if as_regex == as_glob:
        return None

    def some(found: list[str]) -> str:
        return f"{len(found)} ({', '.join(found[:3])})"

    return (
        f"{path} is read as a regex, which matches {some(as_regex)} here; as a shell glob it "
        f"would match {some(as_glob)}: for those, use '{directory}/{glob_as_regex(name)}'"
    )


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
    raise UsageError(
        f"argument path: {len(paths)} paths given ({paths[0]}, {paths[1]}, ...): the shell "
        "expanded a pattern, and tail takes one path. Quote it, its directories a glob and its "
        f"last component a regex: '{_pattern_of(paths)}'"
    )


def _pattern_of(paths: list[str]) -> str:
    r"""Return the path that matches ``paths``: its directories a glob, its file names a regex.

    A directory component the paths differ in is ``*``; the names keep what they share at
    either end: ``/var/log/pods/a/x/0.log`` and ``/var/log/pods/b/y/0.log`` give
    ``/var/log/pods/*/*/0\.log``, ``app.log`` and ``app.log.1`` give ``app\.log.*``.
    """
    split = [p.split("/") for p in paths]
    if len({len(parts) for parts in split}) > 1:  # at several depths: the common directory
        return f"{os.path.commonpath(paths)}/.*"
    components = zip(*(s[:-1] for s in split), strict=True)
    directories = [parts[0] if len(set(parts)) == 1 else "*" for parts in components]
    names = [s[-1] for s in split]
    if len(set(names)) == 1:
        return "/".join([*directories, _regex_escape(names[0])])
    prefix = _shared_start(names)
    suffix = _shared_start([n[len(prefix) :][::-1] for n in names])[::-1]
    return "/".join([*directories, f"{_regex_escape(prefix)}.*{_regex_escape(suffix)}"])


def _shared_start(texts: list[str]) -> str:
    """Return the characters all of ``texts`` begin with."""
    first, last = min(texts), max(texts)
    differs = (i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b)
    return first[: next(differs, min(len(first), len(last)))]


def _regex_escape(text: str) -> str:
    r"""Escape what a Java regex gives a meaning to, and nothing else: ``app\.log``."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


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


# The source's passwords, each with the option it is the password of. The command line takes
# none of them: any user of the host can read it (ps, /proc/<pid>/cmdline). Each comes from a
# file its flag names, else from an environment variable named after it; one from the
# environment only with its option, so that a variable set for another query does no harm.
PASSWORDS = {
    "zookeeper.auth.password": "zookeeper.auth.user",
    "zookeeper.ssl.keystore.password": "zookeeper.ssl.keystore.location",
    "zookeeper.ssl.truststore.password": "zookeeper.ssl.truststore.location",
    "zookeeper.sasl.password": "zookeeper.sasl.user",
}
_ON_COMMAND_LINE = "a password on the command line is visible to every user of this host"


def password_variable(key: str) -> str:
    """Return the environment variable of password option ``key``: ``AOF_ZOOKEEPER_...``."""
    return "AOF_" + key.upper().replace(".", "_")


def password_flag(key: str) -> str:
    """Return the flag of a file holding password option ``key``: ``--auth-password-file``."""
    return "--" + key.removeprefix("zookeeper.").replace(".", "-") + "-file"


def password_sources(key: str, flag: bool = True) -> str:
    """Return where password option ``key`` comes from, in words; the file's flag if ``flag``."""
    variable = f"the environment variable {password_variable(key)}"
    return f"{variable} or a file named by {password_flag(key)}" if flag else variable


def no_password(key: str) -> Callable[[str], str]:
    """Return the type of a flag that once took password option ``key``: it refuses it.

    The error says where the password goes instead, and does not repeat it.
    """

    def refuse(text: str) -> str:
        raise argparse.ArgumentTypeError(f"{_ON_COMMAND_LINE}: give it in {password_sources(key)}")

    return refuse


def user(text: str) -> str:
    """Argument type of ``--auth``: a digest user; ``USER:PASSWORD`` is refused, unrepeated."""
    if ":" in text:
        where = password_sources("zookeeper.auth.password")
        raise argparse.ArgumentTypeError(
            f"expected a user name alone, not USER:PASSWORD; {_ON_COMMAND_LINE}: give it in {where}"
        )
    if not text:
        raise argparse.ArgumentTypeError("expected a user name")
    return text


def password_file(text: str) -> str:
    """Argument type: a file holding a password; returns the password, its line end taken off."""
    try:
        with open(text, encoding="utf-8") as f:
            password = f.read().rstrip("\r\n")
    except (OSError, UnicodeDecodeError):
        raise argparse.ArgumentTypeError(f"no readable file {text}") from None
    if not password:
        raise argparse.ArgumentTypeError(f"{text} holds no password")
    return password


def option_pair(text: str) -> tuple[str, str]:
    """Argument type: ``KEY=VALUE``; the source option's name and value are checked later.

    A password option is refused: it comes from elsewhere (:data:`PASSWORDS`).
    """
    key, equals, value = text.partition("=")
    if not key or not equals:
        # Without repeating it: it may be zookeeper.auth.password's value, mistyped.
        raise argparse.ArgumentTypeError("expected KEY=VALUE, such as bytes.max=1048576")
    if key in PASSWORDS:
        flag = key == "zookeeper.auth.password"  # the one password of tail with a file flag
        raise argparse.ArgumentTypeError(
            f"{key}: {_ON_COMMAND_LINE}: give it in {password_sources(key, flag)}"
        )
    return key, value
