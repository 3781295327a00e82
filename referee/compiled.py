"""Which referee modules run compiled, and a guard that never lets a stale compiled module run.

The referee is plain Python. When it is installed, ``setup.py`` also compiles its modules with Cython
(an optional speed-up: where that fails, the sources run as they are) and writes
``compiled-sources.json`` beside them: the SHA-256 of each module's source as it was compiled (its
``.py`` file and its ``.pxd`` declarations). The compiled modules share typed classes (``state.pxd``,
``effects.pxd``), so they run all together or not at all: they are used only when every module has a
compiled file whose source still has the recorded hash; otherwise (a source was edited after the
install, a module failed to build, or ``TABLEREF_PURE_PYTHON=1`` is set) every module is imported
from its ``.py`` file. This module and ``__init__`` are never compiled.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from importlib.abc import MetaPathFinder
from pathlib import Path
from types import ModuleType
from typing import Sequence

MANIFEST = "compiled-sources.json"
PURE_PYTHON_VARIABLE = "TABLEREF_PURE_PYTHON"
NOT_COMPILED = frozenset({"__init__", "compiled"})


def source_digest(path: Path) -> str:
    """SHA-256 of a module's source as compiled: its ``.py`` file, then its ``.pxd`` declarations where it has
    them (what the manifest records at compile time)."""
    digest = hashlib.sha256(path.read_bytes())
    declarations = path.with_suffix(".pxd")
    if declarations.is_file():
        digest.update(declarations.read_bytes())
    return digest.hexdigest()


def _compiled_names(package_dir: Path) -> set[str]:
    """Module names (``engine``, ``plays``, …) that have a compiled extension file in ``package_dir``."""
    suffixes = set(importlib.machinery.EXTENSION_SUFFIXES)  # this interpreter's: a build for another one is not loaded
    names = set()
    for path in package_dir.iterdir():
        stem, dot, rest = path.name.partition(".")
        if dot and dot + rest in suffixes:
            names.add(stem)
    return names


def fresh_compiled(package_dir: Path) -> tuple[set[str], set[str]]:
    """(compiled modules to run, compiled modules to bypass): all of them run when every module of the package
    has a compiled file built from its present source, and none otherwise."""
    compiled = _compiled_names(package_dir)
    if not compiled:
        return set(), set()
    if os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0"):
        return set(), compiled
    try:
        recorded = json.loads((package_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        recorded = {}
    modules = {path.stem for path in package_dir.glob("*.py") if path.stem not in NOT_COMPILED}
    if not isinstance(recorded, dict) or modules - compiled:
        return set(), compiled
    for name in modules:
        if recorded.get(name) != source_digest(package_dir / f"{name}.py"):
            return set(), compiled
    return compiled & modules, set()


class SourceFirst(MetaPathFinder):
    """Imports the named modules of a package from their ``.py`` source, never from a compiled file."""

    def __init__(self, package: str, package_dir: Path, names: set[str]) -> None:
        self.package, self.package_dir, self.names = package, package_dir, frozenset(names)

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """The source's spec for a bypassed module of the package; None for every other module."""
        package, _, name = fullname.rpartition(".")
        if package != self.package or name not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, self.package_dir / f"{name}.py")


def install_guard(package: str, package_dir: Path) -> frozenset[str]:
    """Bypass the stale compiled modules of ``package``; returns the names of those that will run compiled."""
    fresh, bypassed = fresh_compiled(package_dir)
    if bypassed:
        sys.meta_path.insert(0, SourceFirst(package, package_dir, bypassed))
    return frozenset(fresh)
