"""Build step beyond pyproject.toml: compile the referee's modules with Cython, when that can be done.

The referee is plain Python and runs as it is; compiled, typed by the ``.pxd`` declarations beside its
sources (extension classes for the state, the card rules, the rule layers and the simulator), it
referees about 2.6 times faster (`tableref bench referee` prints which mode ran). Each module is an
optional extension: where there is no C compiler, or a module fails to build, the install goes on and
the referee runs from its sources. ``compiled-sources.json`` records the hash of each source (``.py``
and ``.pxd``) as compiled, so that an edited module never runs stale (see ``referee/compiled.py``).
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
PACKAGE = "referee"
#: nonecheck: a typed variable holding None raises AttributeError instead of crashing the interpreter
DIRECTIVES = {"language_level": 3, "binding": False, "infer_types": True, "nonecheck": True}


def load_guard():
    """``referee/compiled.py`` loaded by path (the build environment does not import the project itself)."""
    spec = importlib.util.spec_from_file_location("_referee_compiled_guard", HERE / PACKAGE / "compiled.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GUARD = load_guard()
#: module -> SHA-256 of its source as handed to Cython (written to the manifest for what was built)
SOURCE_DIGESTS: dict[str, str] = {}


def referee_sources() -> list[Path]:
    """The referee modules to compile."""
    return sorted(path for path in (HERE / PACKAGE).glob("*.py") if path.stem not in GUARD.NOT_COMPILED)


def referee_extensions() -> list[Extension]:
    """One optional extension per referee module; none when Cython is not installed."""
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    sources = referee_sources()
    SOURCE_DIGESTS.update({path.stem: GUARD.source_digest(path) for path in sources})
    extensions = [Extension(f"{PACKAGE}.{path.stem}", [str(path.relative_to(HERE))], optional=True)
                  for path in sources]
    return cythonize(extensions, compiler_directives=DIRECTIVES, build_dir="build/cython", quiet=True)


class BuildWithManifest(build_ext):
    """build_ext that compiles two at a time and records the source hash of every module it built."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = 2

    def run(self) -> None:
        super().run()
        built = {ext.name.rpartition(".")[2]: Path(self.get_ext_fullpath(ext.name)) for ext in self.extensions}
        built = {name: path for name, path in built.items() if path.is_file()}
        if not built:
            return
        out_dir = next(iter(built.values())).parent
        manifest = {name: SOURCE_DIGESTS[name] for name in sorted(built)}
        (out_dir / GUARD.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")


setup(ext_modules=referee_extensions(), cmdclass={"build_ext": BuildWithManifest})
