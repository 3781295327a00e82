"""Presets and rule options as plain data for the new-game form and the API (from the referee's registries)."""
from __future__ import annotations

from typing import Any


def _field(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _type_name(option: Any) -> str:
    declared = _field(option, "type")
    if isinstance(declared, type):
        return declared.__name__
    if isinstance(declared, str):
        return declared
    return type(_field(option, "default")).__name__


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


def option_info(name: str, option: Any) -> dict[str, Any]:
    """One option: name, type, default, choices (if any), the rule text it comes from, and help."""
    return {
        "name": name,
        "type": _type_name(option),
        "default": _jsonable(_field(option, "default")),
        "choices": _jsonable(_field(option, "choices")),
        "source": _jsonable(_field(option, "source", "")),
        "text": _jsonable(_field(option, "text", "")),
        "help": _jsonable(_field(option, "help", "")),
    }


def preset_info(name: str, preset: Any) -> dict[str, Any]:
    """One preset: its name, a description and the option values it sets."""
    values = _field(preset, "options") or _field(preset, "values") or {}
    description = (_field(preset, "description") or _field(preset, "help") or _field(preset, "text")
                   or _field(preset, "title") or "")
    return {"name": name, "description": _jsonable(description), "source": _jsonable(_field(preset, "source", "")),
            "options": _jsonable(dict(values)) if isinstance(values, dict) else {}}


def rules_catalog() -> dict[str, Any]:
    """``{"presets": [...], "options": [...]}`` from the referee's PRESETS and OPTIONS."""
    from referee.options import OPTIONS
    from referee.presets import PRESETS

    return {
        "presets": [preset_info(name, preset) for name, preset in PRESETS.items()],
        "options": [option_info(name, option) for name, option in OPTIONS.items()],
    }

