"""`tableref rules`: every preset and every rule option, with defaults and the rule text behind them."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import textwrap
from typing import Any

HELP = "list every rules preset and option, with defaults and the rule text each comes from"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--json`` for machine-readable output; ``--preset NAME`` to show one preset only."""
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    parser.add_argument("--preset", metavar="NAME", help="show only this preset (and every option)")


def as_plain(value: Any) -> Any:
    """A JSON-ready copy of a dataclass, mapping, sequence or scalar."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: as_plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(key): as_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [as_plain(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return getattr(value, "__name__", str(value))


def catalogue(preset: str | None = None) -> dict[str, Any]:
    """The presets (all, or only ``preset``) and every option, as plain data."""
    from referee.options import OPTIONS
    from referee.presets import PRESETS

    if preset is not None and preset not in PRESETS:
        raise KeyError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    chosen = {name: PRESETS[name] for name in PRESETS if preset is None or name == preset}
    return {
        "presets": {name: as_plain(value) for name, value in chosen.items()},
        "options": {name: as_plain(value) for name, value in OPTIONS.items()},
    }


def format_text(data: dict[str, Any], width: int = 100) -> str:
    """Human-readable listing of :func:`catalogue`'s data."""
    lines: list[str] = ["PRESETS", ""]
    for name, preset in data["presets"].items():
        lines.append(f"  {name}")
        lines.extend(_fields(preset, width, exclude=("name",)))
        lines.append("")
    lines += ["OPTIONS", ""]
    for name, option in data["options"].items():
        lines.append(f"  {name}  ({option.get('type')}, default {json.dumps(option.get('default'))})")
        lines.extend(_fields(option, width, exclude=("name", "type", "default")))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _fields(record: dict[str, Any], width: int, exclude: tuple[str, ...]) -> list[str]:
    out = []
    for key, value in record.items():
        if key in exclude or value in (None, "", [], {}):
            continue
        if isinstance(value, dict):
            text = ", ".join(f"{k}={json.dumps(v)}" for k, v in value.items())
        elif isinstance(value, list):
            text = ", ".join(str(item) for item in value)
        else:
            text = str(value)
        out.append(textwrap.fill(text, width, initial_indent=f"      {key}: ", subsequent_indent=" " * 8))
    return out


def run(args: argparse.Namespace) -> int:
    """Print the catalogue of presets and options."""
    try:
        data = catalogue(args.preset)
    except KeyError as exc:
        print(f"tableref rules: {exc.args[0]}", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(data, indent=2) + "\n" if args.json else format_text(data))
    return 0
