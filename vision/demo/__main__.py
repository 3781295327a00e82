"""``python -m vision.demo [NAME [OUT_DIR]]``: render a bundled demo's recording and script (default: every
demo, each into its own bundled folder)."""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from vision.demo import DEMOS, demo_dir
from vision.source_tree import load_source_package


def main(argv: list[str]) -> int:
    """Render ``demo.mp4`` and ``script.jsonl`` of demo ``argv[0]`` (default: all) into ``argv[1]`` (default: its
    bundled folder); exit status 2 for an unknown demo."""
    names = argv[:1] or list(DEMOS)
    try:
        folders = {name: Path(argv[1]) if len(argv) > 1 else demo_dir(name) for name in names}
    except ValueError as exc:
        print(f"python -m vision.demo: {exc}", file=sys.stderr)
        return 2
    load_source_package("datasets")
    demo = importlib.import_module("tableref_datasets.demo")
    for name, out in folders.items():
        summary = demo.render_demo(out, demo.GAMES[name],
                                   progress=lambda i, n: print(f"\r{name}: {i}/{n} frames", end="", file=sys.stderr))
        print(file=sys.stderr)
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
