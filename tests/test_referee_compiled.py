"""The compiled referee: a stale compiled module never runs, and compiled and pure-Python verdicts are the same."""
from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import referee
from referee import compiled
from referee.compiled import MANIFEST, PURE_PYTHON_VARIABLE, SourceFirst, fresh_compiled, source_digest

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _package(tmp_path: Path, recorded_source: str, source: str) -> Path:
    """A package folder with a module ``rules``: its source, a (fake) compiled file and a manifest."""
    (tmp_path / "rules.py").write_text(source)
    (tmp_path / f"rules{SUFFIX}").write_bytes(b"not imported by these tests")
    digest = hashlib.sha256(recorded_source.encode()).hexdigest()
    (tmp_path / MANIFEST).write_text(json.dumps({"rules": digest}))
    return tmp_path


def test_a_compiled_module_whose_source_is_unchanged_runs_compiled(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_PYTHON_VARIABLE, raising=False)
    package = _package(tmp_path, "X = 1\n", "X = 1\n")
    assert fresh_compiled(package) == ({"rules"}, set())


def test_a_source_edited_after_the_build_bypasses_its_compiled_module(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_PYTHON_VARIABLE, raising=False)
    package = _package(tmp_path, "X = 1\n", "X = 2\n")
    assert fresh_compiled(package) == (set(), {"rules"})


def test_a_missing_or_broken_manifest_bypasses_every_compiled_module(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_PYTHON_VARIABLE, raising=False)
    package = _package(tmp_path, "X = 1\n", "X = 1\n")
    (package / MANIFEST).write_text("{not json")
    assert fresh_compiled(package) == (set(), {"rules"})
    (package / MANIFEST).unlink()
    assert fresh_compiled(package) == (set(), {"rules"})


def test_one_stale_module_bypasses_every_compiled_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled modules share typed classes: a module from its source beside compiled ones would not fit."""
    monkeypatch.delenv(PURE_PYTHON_VARIABLE, raising=False)
    package = _package(tmp_path, "X = 1\n", "X = 1\n")
    (package / "state.py").write_text("Y = 1\n")
    (package / f"state{SUFFIX}").write_bytes(b"not imported by these tests")
    recorded = json.loads((package / MANIFEST).read_text())
    recorded["state"] = hashlib.sha256(b"Y = 0\n").hexdigest()
    (package / MANIFEST).write_text(json.dumps(recorded))
    assert fresh_compiled(package) == (set(), {"rules", "state"})


def test_a_module_that_was_not_compiled_bypasses_every_compiled_module(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_PYTHON_VARIABLE, raising=False)
    package = _package(tmp_path, "X = 1\n", "X = 1\n")
    (package / "state.py").write_text("Y = 1\n")  # a module whose build failed (or one added since)
    assert fresh_compiled(package) == (set(), {"rules"})


def test_edited_declarations_bypass_the_compiled_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_PYTHON_VARIABLE, raising=False)
    package = _package(tmp_path, "X = 1\n", "X = 1\n")
    (package / "rules.pxd").write_text("cdef int X\n")
    assert fresh_compiled(package) == (set(), {"rules"})


def test_a_build_for_another_interpreter_is_not_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PURE_PYTHON_VARIABLE, raising=False)
    package = _package(tmp_path, "X = 1\n", "X = 1\n")
    (package / f"rules{SUFFIX}").rename(package / "rules.cpython-29-elsewhere.so")
    assert fresh_compiled(package) == (set(), set())


def test_the_pure_python_switch_bypasses_every_compiled_module(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PURE_PYTHON_VARIABLE, "1")
    package = _package(tmp_path, "X = 1\n", "X = 1\n")
    assert fresh_compiled(package) == (set(), {"rules"})


def test_a_bypassed_module_is_imported_from_its_source(tmp_path: Path) -> None:
    finder = SourceFirst("pkg", tmp_path, {"rules"})
    (tmp_path / "rules.py").write_text("X = 1\n")
    spec = finder.find_spec("pkg.rules")
    assert spec is not None and spec.origin == str(tmp_path / "rules.py")
    assert finder.find_spec("pkg.other") is None and finder.find_spec("elsewhere.rules") is None


def test_the_installed_manifest_matches_the_sources_it_compiled() -> None:
    """Every module that runs compiled was built from the source that is there now."""
    package = Path(referee.__file__).parent
    if referee.COMPILED:
        recorded = json.loads((package / MANIFEST).read_text())
        assert all(recorded[name] == source_digest(package / f"{name}.py") for name in referee.COMPILED)
    assert not (referee.COMPILED & compiled.NOT_COMPILED)


_VERDICTS_DIGEST = """
import hashlib, json, sys
import referee
from referee.engine import Referee
import referee.simulate as simulate
digest = hashlib.sha256()
original = Referee.handle
def recording(self, event):
    verdict = original(self, event)
    digest.update(json.dumps(verdict, separators=(",", ":")).encode())
    return verdict
Referee.handle = recording
simulate.simulate("official", 4, 2, seed=5, mistakes=0.1, options={"jump_in": True, "stack_draw2": True})
simulate.simulate("two-player", 2, 2, seed=5, mistakes=0.15)
print(len(referee.COMPILED), digest.hexdigest())
"""


def test_compiled_and_pure_python_referees_give_byte_identical_verdicts() -> None:
    """The same simulated games (with mistakes) through the installed build and through the sources."""
    runs = {}
    for mode in ("0", "1"):
        env = {**os.environ, PURE_PYTHON_VARIABLE: mode}
        out = subprocess.run([sys.executable, "-c", _VERDICTS_DIGEST], env=env, capture_output=True, text=True,
                             timeout=300, check=True).stdout.split()
        runs[mode] = out
    assert runs["1"][0] == "0"  # the switch did bypass every compiled module
    assert int(runs["0"][0]) == len(referee.COMPILED)
    assert runs["0"][1] == runs["1"][1]
