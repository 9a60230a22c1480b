"""Write ``AofOptions``, a field and a documented attribute per option of ``options.json``.

Its module is ``pyspark_aof/_option_fields.py``. ``make jar`` runs this; ``--check`` exits 1
when the file is not what it would write (a test runs that). Python's fields, types and docs so
come from the one list the JVM reads.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import textwrap
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
SPECS = HERE.parent / "jvm/src/main/resources/com/hx/spark/sql/connector/aof/config/options.json"
TARGET = HERE / "src/pyspark_aof/_option_fields.py"


def _rules() -> ModuleType:
    """Load the package's ``_options`` alone: the package itself needs the file written here."""
    spec = importlib.util.spec_from_file_location("_options", HERE / "src/pyspark_aof/_options.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


_OPTIONS = _rules()
ENUMS: dict[str, type] = _OPTIONS.ENUMS
REDACTED: re.Pattern[str] = _OPTIONS.REDACTED

HEAD = '''"""``AofOptions``, generated from ``options.json`` by ``python/generate_options.py``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from pyspark_aof._options import OptionValues, StartingOffsets


@dataclass(frozen=True)
class AofOptions(OptionValues):
    r"""Every option of the source but ``path``, typed; ``None`` keeps the source's default.

    Bad values raise :class:`ValueError` naming the option, before anything reaches the JVM.
    The defaults are those of :func:`option_specs` (the README's table).

    Attributes
    ----------
'''

EXAMPLES = '''
    Examples
    --------
    >>> AofOptions(starting_offsets=StartingOffsets.LATEST, bytes_max=1 << 20).to_options()
    {'starting.offsets': 'latest', 'bytes.max': '1048576'}
    >>> AofOptions(bytes_max=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Invalid value '0' for option 'bytes.max' (...): expected a positive whole number.

    """

'''


def annotation(spec: dict[str, object]) -> tuple[str, str]:
    """Return an option's type as a field annotates it and as its docstring names it."""
    kind, key = spec["type"], str(spec["key"])
    if key in ENUMS:
        name = ENUMS[key].__name__
        return name, name
    if spec.get("many"):
        return "str | Sequence[str]", "str or sequence of str"
    if kind in ("int", "long"):
        return "int", "int"
    if kind == "boolean":
        return "bool", "bool"
    if kind == "duration":
        return "str | timedelta", "str or datetime.timedelta"
    return "str", "str"


def generated() -> str:
    """Return the module's text."""
    specs = [s for s in json.loads(SPECS.read_text())["options"] if s["key"] != "path"]
    attributes, fields = [], []
    for spec in specs:
        name = str(spec["key"]).replace(".", "_")
        typed, named = annotation(spec)
        # Markdown's code spans as reStructuredText's literals.
        doc = re.sub(r"`([^`]+)`", r"``\1``", str(spec["doc"]))
        attributes.append(f"    {name} : {named}, optional\n")
        indent = " " * 8
        attributes.append(textwrap.fill(doc, 100, initial_indent=indent, subsequent_indent=indent))
        attributes.append("\n")
        hidden = ", repr=False" if REDACTED.search(str(spec["key"])) else ""
        default = f"field(default=None{hidden})" if hidden else "None"
        fields.append(f"    {name}: {typed} | None = {default}\n")
    return HEAD + "".join(attributes) + EXAMPLES + "".join(fields)


def main() -> int:
    """Write the module, or with ``--check`` say whether it is what this would write."""
    text = generated()
    if sys.argv[1:] == ["--check"]:
        if TARGET.read_text() != text:
            print(f"{TARGET} is not what options.json gives: run python/generate_options.py")
            return 1
        return 0
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
