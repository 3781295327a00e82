"""Import the repository's source folders (``datasets/``, ``models/``) that are not installed packages.

``datasets`` would clash with HuggingFace's installed package of that name, so the folder is
loaded under a private package name (``tableref_datasets``, ``tableref_models``) whose modules
use relative imports.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_PACKAGE_PREFIX = "tableref_"
_SOURCE_FOLDERS = ("datasets", "models")


class SourceTreeMissing(RuntimeError):
    """The source checkout (with its ``datasets/`` or ``models/`` folder) is not present."""


def repo_root() -> Path:
    """The root of the tableref source checkout (the folder holding ``pyproject.toml``)."""
    return Path(__file__).resolve().parent.parent


def load_source_package(name: str) -> ModuleType:
    """Import the repository folder ``name`` (``"datasets"`` or ``"models"``) as ``tableref_<name>``.

    Raises :class:`SourceTreeMissing` with an explanation when the folder is not in this checkout
    (for example when tableref was installed from a wheel rather than run from source).
    """
    if name not in _SOURCE_FOLDERS:
        raise ValueError(f"unknown source folder {name!r}; expected one of {', '.join(_SOURCE_FOLDERS)}")
    package_name = _PACKAGE_PREFIX + name
    if package_name in sys.modules:
        return sys.modules[package_name]
    folder = repo_root() / name
    init_file = folder / "__init__.py"
    if not init_file.is_file():
        raise SourceTreeMissing(
            f"{folder} is missing: `{name}/` is a source folder, not an installed package; "
            "run this command from a source checkout of tableref (git clone + pip install -e .)"
        )
    spec = importlib.util.spec_from_file_location(
        package_name, init_file, submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:
        raise SourceTreeMissing(f"cannot import {init_file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[package_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[package_name]
        raise
    return module
