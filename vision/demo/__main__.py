"""``python -m vision.demo [OUT_DIR]``: render the demo recording and its script (default: this folder)."""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from vision.demo import DEMO_DIR
from vision.source_tree import load_source_package


def main(argv: list[str]) -> int:
    """Render ``demo.mp4`` and ``script.jsonl`` into ``argv[0]`` (or the bundled folder)."""
    out = Path(argv[0]) if argv else DEMO_DIR
    load_source_package("datasets")
    demo = importlib.import_module("tableref_datasets.demo")
    summary = demo.render_demo(out, progress=lambda i, n: print(f"\r{i}/{n} frames", end="", file=sys.stderr))
    print(file=sys.stderr)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
