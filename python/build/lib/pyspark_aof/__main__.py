"""Command line: ``python -m pyspark_aof demo``."""

from __future__ import annotations

import argparse
import sys

from pyspark_aof import demo


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
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo.run(seconds=args.seconds, rate=args.rate)
    return 2


if __name__ == "__main__":
    sys.exit(main())
