"""Command line: ``pyspark-aof demo | tail PATH | status`` (also ``python -m pyspark_aof``)."""

from __future__ import annotations

import argparse
import json
import sys

from pyspark_aof import demo
from pyspark_aof._options import AofOptions


def _credentials(value: str | None) -> dict[str, str]:
    if value is None:
        return {}
    user, _, password = value.partition(":")
    return {"zookeeper_auth_user": user, "zookeeper_auth_password": password}


def _tail(args: argparse.Namespace) -> int:
    from pyspark_aof import tail

    options = AofOptions.from_strings(dict(o.split("=", 1) for o in args.option)).with_changes(
        zookeeper_address=args.zookeeper,
        meta_store=args.meta_store,
        starting_offsets=args.starting_offsets,
        **_credentials(args.auth),
    )
    return tail.run(args.path, options, verbose=args.verbose)


def _status(args: argparse.Namespace) -> int:
    from kazoo.client import KazooClient

    from pyspark_aof import status

    auth = [("digest", args.auth)] if args.auth else None
    zk = KazooClient(hosts=args.zookeeper, auth_data=auth)
    zk.start(timeout=20)
    try:
        found = status.read_status(zk, args.meta_store)
    finally:
        zk.stop()
        zk.close()
    if found is None:
        print(
            f"nothing at {args.meta_store} on {args.zookeeper}: no query has used this meta.store "
            "(its default is /aof/<the directory of the query's path>)",
            file=sys.stderr,
        )
        return 1
    print(json.dumps(found, indent=2) if args.json else status.format_status(found))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status.

    """
    parser = argparse.ArgumentParser(prog="pyspark-aof", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run_demo = commands.add_parser("demo", help="stream a growing, rotating sample log")
    run_demo.add_argument("--seconds", type=float, default=15.0, help="how long to write")
    run_demo.add_argument("--rate", type=int, default=2000, help="lines written per second")
    verbose = "show Spark's own warnings and progress bars too"
    run_demo.add_argument("--verbose", action="store_true", help=verbose)

    tail = commands.add_parser("tail", help="print lines appended to matching files, like tail -F")
    tail.add_argument("path", help=r"absolute path, last component a regex: /var/log/app\.log.*")
    tail.add_argument("--zookeeper", help="ZooKeeper connect string (default: embedded)")
    tail.add_argument("--meta-store", help="ZooKeeper root (default: one of its own, removed)")
    tail.add_argument("--starting-offsets", choices=["earliest", "latest"], default=None)
    tail.add_argument("--auth", metavar="USER:PASSWORD", help="ZooKeeper digest credentials")
    tail.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="any source option"
    )
    tail.add_argument("--verbose", action="store_true", help=verbose)

    show = commands.add_parser("status", help="endpoints, committed offsets and lag of a query")
    show.add_argument("--zookeeper", required=True, help="ZooKeeper connect string")
    show.add_argument("--meta-store", required=True, help="the query's meta.store")
    show.add_argument("--auth", metavar="USER:PASSWORD", help="ZooKeeper digest credentials")
    show.add_argument("--json", action="store_true", help="print JSON for scripts")

    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo.run(seconds=args.seconds, rate=args.rate, verbose=args.verbose)
    try:
        return _tail(args) if args.command == "tail" else _status(args)
    except ValueError as e:
        parser.error(str(e))
    return 2


if __name__ == "__main__":
    sys.exit(main())
