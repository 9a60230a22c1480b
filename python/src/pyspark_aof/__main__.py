"""Command line: ``pyspark-aof demo | tail PATH | status`` (also ``python -m pyspark_aof``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import NoReturn

from pyspark_aof import _arguments
from pyspark_aof._errors import INTERRUPTED, CommandError, UsageError
from pyspark_aof._option_fields import AofOptions
from pyspark_aof._since_start import note_start
from pyspark_aof._versions import SUPPORTED_TEXT

# Nothing above loads PySpark, which takes half a second: `tail` notes the files' sizes first.


class _Parser(argparse.ArgumentParser):
    """An argument parser that reports a usage error on one line (``--help`` has the usage)."""

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: error: <message>`` on stderr and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message}\n")


class _OnePathUsage(argparse.HelpFormatter):
    """Help that shows ``tail``'s one ``path``: more are taken only to say what went wrong."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        if action.dest == "path":
            return str(self._metavar_formatter(action, default_metavar)(1)[0])
        return super()._format_args(action, default_metavar)


def _tail(args: argparse.Namespace) -> int:
    given: dict[str, str | None] = dict(args.option)
    if args.auth is not None:
        given["zookeeper.auth.user"] = args.auth
    try:
        # A user and its password in one step: each is refused without the other.
        chosen = AofOptions().with_changes(**given, **_passwords(args, given))
        options = chosen.with_changes(
            zookeeper_address=args.zookeeper,
            meta_store=args.meta_store,
            starting_offsets=args.starting_offsets,
        )
    except ValueError as e:  # the other arguments are checked as they are parsed
        message = _as_flags(str(e), {"zookeeper.auth.user": "--auth"}, _TAIL_PASSWORDS)
        if not message.startswith("argument"):
            message = f"argument --option: {message}"
        raise UsageError(message) from None
    path = _arguments.one_path(args.path)
    start = note_start(path, options)  # before anything slow: see _since_start
    from pyspark_aof import tail

    return tail.run(path, options, verbose=args.verbose, start=start)


# The login arguments of ``status``: each the source option ``zookeeper.<name>``. Passwords are
# not among them: see _arguments.PASSWORDS.
_LOGIN = (
    ("ssl.truststore.location", "PEM", "PEM file of the certificates that sign ZooKeeper's"),
    ("ssl.keystore.location", "PEM", "PEM file of this client's key and certificate"),
    ("ssl.hostname.verification", "true|false", "check that ZooKeeper's certificate names it"),
    ("sasl.user", "USER", "SASL DIGEST-MD5 user"),
    ("sasl.kerberos.principal", "PRINCIPAL", "Kerberos principal (needs the 'kerberos' package)"),
    ("sasl.kerberos.keytab", "KEYTAB", "its keytab"),
)
# The passwords each command reads from a file that a flag names, if given, with what each is the
# password of; the others come from the environment only (_arguments.PASSWORDS).
_STATUS_PASSWORDS = {
    "zookeeper.auth.password": "--auth",
    "zookeeper.ssl.keystore.password": "the key in --ssl-keystore-location",
    "zookeeper.sasl.password": "--sasl-user",
}
_TAIL_PASSWORDS = {"zookeeper.auth.password": "--auth"}


def _passwords(args: argparse.Namespace, given: dict[str, str | None]) -> dict[str, str]:
    """Return the passwords of the options ``given``, from where ``_arguments.PASSWORDS`` says.

    A password read from a file is in ``args`` under its option's field name.
    """
    found = {}
    for key, of in _arguments.PASSWORDS.items():
        password = getattr(args, key.replace(".", "_"), None)
        if password is None and given.get(of) is not None:
            password = os.environ.get(_arguments.password_variable(key)) or None
        if password is not None:
            found[key] = password
    return found


def _as_flags(message: str, flags: dict[str, str], files: dict[str, str]) -> str:
    """Return an options error naming the command's flags, and where its passwords come from.

    ``flags`` are the flags of options; ``files``, the passwords the command reads from a file
    its flag names (the others come from the environment only).
    """
    for key, flag in flags.items():
        message = message.replace(f"Option '{key}'", f"argument {flag}")
        message = message.replace(f"'{key}'", flag)
    for key in _arguments.PASSWORDS:
        variable, flag = _arguments.password_variable(key), _arguments.password_flag(key)
        if key in files:
            # Set without the option it belongs to: a file's (the environment's needs it).
            message = message.replace(f"Option '{key}'", f"argument {flag}")
            variable += f" (or {flag})"
        message = message.replace(f"'{key}'", variable)
    return message


def _login(args: argparse.Namespace) -> AofOptions:
    """Return the options of the login that ``status``'s arguments describe."""
    given = {f"zookeeper.{name}": getattr(args, name.replace(".", "_")) for name, _, _ in _LOGIN}
    given["zookeeper.auth.user"] = args.auth
    try:
        return AofOptions().with_changes(
            zookeeper_ssl_enabled=args.ssl or None, **given, **_passwords(args, given)
        )
    except ValueError as e:  # name the arguments, not the options
        flags = {f"zookeeper.{name}": "--" + name.replace(".", "-") for name, _, _ in _LOGIN}
        flags["zookeeper.auth.user"] = "--auth"
        raise UsageError(_as_flags(str(e), flags, _STATUS_PASSWORDS)) from None


def _status(args: argparse.Namespace) -> int:
    from kazoo.exceptions import KazooException, NoAuthError

    from pyspark_aof import status
    from pyspark_aof._zk_client import connected

    with connected(args.zookeeper, _login(args), args.timeout) as zk:
        try:
            found = status.read_status(zk, args.meta_store, wait=min(5.0, args.timeout))
        except NoAuthError:
            raise CommandError(
                f"ZooKeeper refused to show {args.meta_store}: it has ACLs, check --auth or "
                "the --sasl-* arguments"
            ) from None
        except KazooException as e:  # the connection lost while reading, for one
            raise CommandError(
                f"cannot read {args.meta_store} from ZooKeeper at {args.zookeeper}: "
                f"{type(e).__name__} {e}".rstrip()
            ) from None
    if found is None:
        print(
            f"nothing at {args.meta_store} on {args.zookeeper}: no query has used this meta.store "
            "(its default is /aof/<the directory of the query's path>)",
            file=sys.stderr,
        )
        return 1
    print(json.dumps(found, indent=2) if args.json else status.format_status(found))
    return 0


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """Return the command line's parser and its commands' parsers by name."""
    parser = _Parser(
        prog="pyspark-aof",
        description=__doc__,
        epilog=f"Works with {SUPPORTED_TEXT}; the connector JARs run on Spark 3.3 and newer.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run_demo = commands.add_parser("demo", help="stream a growing, rotating sample log")
    run_demo.add_argument(
        "--seconds", type=_arguments.seconds, default=15.0, help="how long to write"
    )
    run_demo.add_argument(
        "--rate", type=_arguments.count, default=2000, help="lines written per second"
    )
    verbose = "show Spark's own warnings and progress bars too"
    run_demo.add_argument("--verbose", action="store_true", help=verbose)

    tail = commands.add_parser(
        "tail",
        help="print lines appended to matching files, like tail -F",
        formatter_class=_OnePathUsage,
    )
    tail.add_argument(
        "path",
        nargs="+",
        type=_arguments.tail_path,
        help=r"absolute path, last component a regex, globs before it: /var/log/*/app\.log.*",
    )
    tail.add_argument(
        "--zookeeper",
        type=_arguments.source_value("zookeeper_address"),
        help="ZooKeeper connect string (default: embedded)",
    )
    tail.add_argument(
        "--meta-store",
        type=_arguments.source_value("meta_store"),
        help="ZooKeeper root (default: one of its own, removed)",
    )
    tail.add_argument(
        "--starting-offsets",
        choices=["earliest", "latest"],
        default=None,
        help="where each file starts: latest (default: new lines only) or earliest (what is "
        "there too)",
    )
    _add_auth(tail, _TAIL_PASSWORDS)
    tail.add_argument(
        "--option",
        type=_arguments.option_pair,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any source option",
    )
    tail.add_argument("--verbose", action="store_true", help=verbose)

    show = commands.add_parser("status", help="endpoints, committed offsets and lag of a query")
    show.add_argument(
        "--zookeeper", type=_arguments.kazoo_hosts, required=True, help="ZooKeeper connect string"
    )
    show.add_argument(
        "--meta-store",
        type=_arguments.source_value("meta_store"),
        required=True,
        help="the query's meta.store",
    )
    show.add_argument("--ssl", action="store_true", help="connect over TLS (a store implies it)")
    for name, metavar, words in _LOGIN:
        show.add_argument("--" + name.replace(".", "-"), metavar=metavar, help=words)
    _add_auth(show, _STATUS_PASSWORDS)
    show.add_argument(
        "--timeout",
        type=_arguments.seconds,
        default=20.0,
        metavar="SECONDS",
        help="how long to wait for ZooKeeper to answer (default: %(default)g s)",
    )
    show.add_argument("--json", action="store_true", help="print JSON for scripts")
    return parser, dict(commands.choices)


def _add_auth(command: argparse.ArgumentParser, passwords: dict[str, str]) -> None:
    """Add ``--auth USER`` and a flag for a file holding each password of ``passwords``.

    A flag named like each password (``--sasl-password``, once a flag) is known too, to refuse
    a password given there: argparse would otherwise take it as short for the file's flag.
    """
    command.add_argument(
        "--auth", type=_arguments.user, metavar="USER", help="ZooKeeper digest user"
    )
    for key, of in passwords.items():
        variable = _arguments.password_variable(key)
        command.add_argument(
            _arguments.password_flag(key),
            type=_arguments.password_file,
            dest=key.replace(".", "_"),
            metavar="FILE",
            help=f"file holding the password of {of} (default: ${variable})",
        )
        named = _arguments.password_flag(key).removesuffix("-file")
        command.add_argument(named, type=_arguments.no_password(key), help=argparse.SUPPRESS)


def main(argv: list[str] | None = None) -> int:
    """Run the command line.

    Every error is one line on stderr: a bad argument exits with status 2, as argparse's own
    errors do, a failure at run time (ZooKeeper out of reach, a failed query) with 1, and a
    Ctrl-C that stops a command before it was done with 130.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status.

    """
    parser, commands = _parsers()
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            from pyspark_aof import demo

            return demo.run(seconds=args.seconds, rate=args.rate, verbose=args.verbose)
        return _tail(args) if args.command == "tail" else _status(args)
    except UsageError as e:
        commands[args.command].error(str(e))
    except CommandError as e:
        print(f"pyspark-aof: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
