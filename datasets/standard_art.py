"""Standard playing-card art: Adrian Kennard's public-domain card designs as packaged (CC0-1.0)
in the npm package ``@letele/playing-cards``, rasterised once to PNGs under ``art/standard/``.

``fetch_art()`` (``tableref datasets fetch-art``) needs ``npm``, ``node`` and the ``resvg-py``
package; rendering scenes afterwards needs only the committed PNGs and ``corners.json``.
"""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import tarfile
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image

from referee.cards import CARD_BACK, JOKER, RANKS, SUITS

from .drawing import Box

ART_DIR = Path(__file__).resolve().parent / "art" / "standard"
PACKAGE = "@letele/playing-cards@0.1.0"
RASTER_WIDTH = 300
#: npm component name -> card id (the red back and the coloured Joker are used).
COMPONENTS: dict[str, str] = {
    **{f"{suit}{'a' if rank == 'A' else rank.lower()}": f"{rank}{suit}" for suit in SUITS for rank in RANKS},
    "J1": JOKER,
    "B2": CARD_BACK,
}
INK_LEVEL = 160  # a pixel darker than this in some channel counts as ink


@lru_cache(maxsize=1)
def _corners() -> dict[str, list[float] | None]:
    return json.loads((ART_DIR / "corners.json").read_text())


def load_art(card_id: str) -> tuple[Image.Image, Box | None]:
    """The RGBA art of a standard card and its top-left index box (as fractions of width and height)."""
    path = ART_DIR / f"{card_id}.png"
    if not path.is_file():
        raise FileNotFoundError(f"card art {path} is missing; run `tableref datasets fetch-art`")
    box = _corners().get(card_id)
    return Image.open(path).convert("RGBA"), (tuple(box) if box else None)


def find_index_box(rgba: np.ndarray) -> Box | None:
    """Locate the top-left corner index (rank over suit) on a rasterised face, as fractions.

    The index is the first block of ink from the left inside the top-left region, bounded by the
    first empty column after it and the first empty band of rows below the suit.
    """
    h, w = rgba.shape[:2]
    edge = max(2, int(w * 0.025))
    region = rgba[edge:int(h * 0.3), edge:int(w * 0.2)]
    ink = (region[..., :3].min(axis=2) < INK_LEVEL) & (region[..., 3] > 200)
    cols = np.flatnonzero(ink.any(axis=0))
    if len(cols) == 0:
        return None
    x1 = cols[0]
    gaps = np.flatnonzero(~ink[:, x1:].any(axis=0))
    x2 = x1 + (gaps[0] if len(gaps) else ink.shape[1] - x1)
    rows_ink = ink[:, x1:x2].any(axis=1)
    rows = np.flatnonzero(rows_ink)
    y1 = rows[0]
    y2, empty = y1, 0
    for y in range(y1, len(rows_ink)):
        if rows_ink[y]:
            y2, empty = y + 1, 0
        else:
            empty += 1
            if empty > h * 0.03:
                break
    return ((x1 + edge) / w, (y1 + edge) / h, (x2 + edge) / w, (y2 + edge) / h)


def fetch_art(out_dir: Path = ART_DIR) -> int:
    """Download the npm package, turn its components into SVG, rasterise to PNG; returns files written."""
    import resvg_py  # only needed here

    if not shutil.which("npm") or not shutil.which("node"):
        raise RuntimeError("fetch-art needs npm and node on PATH")
    out_dir.mkdir(parents=True, exist_ok=True)
    fonts = Path(__file__).resolve().parent / "art" / "fonts"
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        subprocess.run(["npm", "pack", PACKAGE, "--pack-destination", tmp], check=True, capture_output=True)
        tarball = next(tmp_path.glob("*.tgz"))
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp_path, filter="data")
        package = tmp_path / "package"
        svg_dir = tmp_path / "svg"
        svg_dir.mkdir()
        script = Path(__file__).resolve().parent / "art" / "svg_from_react.mjs"
        subprocess.run(["node", str(script), str(package), str(svg_dir)], check=True, capture_output=True)
        shutil.copy(package / "LICENSE", out_dir / "LICENSE-CC0.txt")
        corners: dict[str, list[float] | None] = {}
        for component, card_id in sorted(COMPONENTS.items(), key=lambda kv: kv[1]):
            png = bytes(resvg_py.svg_to_bytes(svg_path=str(svg_dir / f"{component}.svg"), width=RASTER_WIDTH,
                                              font_dirs=[str(fonts)], skip_system_fonts=True))
            image = Image.open(io.BytesIO(png)).convert("RGBA")
            image.save(out_dir / f"{card_id}.png", optimize=True)
            box = None if card_id in (JOKER, CARD_BACK) else find_index_box(np.asarray(image))
            corners[card_id] = [round(v, 4) for v in box] if box else None
    (out_dir / "corners.json").write_text(json.dumps(corners, indent=1) + "\n")
    return len(COMPONENTS)
