"""Train the reader's colour network (``models/colour_reader.onnx``) on the CPU with PyTorch.

An UNO card's colour was read from its own pixels alone (:mod:`vision.uno_colour`): a rule that is right where
the white of the card tells the light, and wrong, sure of itself, where a box holds a neighbour's edge or a hand,
or where a deck prints its inks elsewhere. This small network learns the four colours from crops of coloured UNO
cards: the corner indices of **real** classic cards (``uno-cards-rf``, their colour as ``models/uno_cards_rf.py``
labels it, from the four hues the set's corners cluster at) and the corners and faces of both rendered UNO
designs under casts, glare and blur. Its reading is a second, independent look at the colour, fused with the
pixels' vote at run time (:func:`vision.uno_colour.fused_vote`).

The ``uno-cards-rf`` photos that ``python -m models.uno_cards_rf --colour-check 400 --share 0.15`` reads (the first
``CHECK_PHOTOS`` outside the detector's share) are never trained on: they check the colours on real photos.
``uno-real-dev`` is never trained on. Run from the repository root, in an environment with torch:

``python -m models.colour_reader RENDER_DIR... --real ../shared/datasets --out models/colour_reader.onnx``

where each ``RENDER_DIR`` is a ``tableref datasets render --family uno`` output. Crops are cut as at run time
(:func:`vision.card_classifier.crop_for_classifier` at ``vision.colour_reader.CROP_SIZE``), jittered, cast,
blurred and turned half a turn (never mirrored). Deterministic from the seed.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from .classifier import conv_block, to_tensor
from .classifier_data import MIN_SIDE, MIN_VISIBLE, half_turns, jittered_crops, rendered_images
from .uno_cards_rf import (COLOURLESS, DATASET, DETECTOR_SHARE, check_names, corner_card, corner_hues, hue_centres,
                           read_values)
from referee.cards import parse_card
from vision.colour_reader import COLOURS, CROP_SIZE

#: How many photos outside the detector's share of ``uno-cards-rf`` (``DETECTOR_SHARE``) ``--colour-check`` reads:
#: those photos are never trained on.
CHECK_PHOTOS = 400
#: Copies of each real corner, against one of each render object: the real photos are about a third of the crops.
REAL_COPIES = 2
LABEL_SMOOTHING = 0.05


def build_network() -> nn.Module:
    """A small all-convolutional network for square crops (about 0.1 M parameters, 6 M multiply-adds a 32 x 32
    crop): three halvings, the mean over the rest, one logit a colour."""
    return nn.Sequential(
        conv_block(3, 16, 1), conv_block(16, 32, 2),  # 1/2
        conv_block(32, 32, 1), conv_block(32, 64, 2),  # 1/4
        conv_block(64, 96, 2),  # 1/8
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(96, len(COLOURS)),
    )


def render_colour_crops(folder: Path, rng: np.random.Generator, size: int = CROP_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """One jittered crop of every visible coloured UNO corner and face of a render folder, and its colour's index."""
    crops, labels = [], []
    for image, meta in rendered_images(folder):
        for obj in meta["objects"]:
            card = parse_card(obj["card"])
            x1, y1, x2, y2 = obj["box"]
            if card.family != "uno" or card.color is None or obj.get("visible", 1.0) < MIN_VISIBLE \
                    or min(x2 - x1, y2 - y1) < MIN_SIDE:
                continue
            crops += jittered_crops(image, obj["box"], 1, rng, size)
            labels.append(COLOURS.index(card.color))
    return np.stack(crops), np.array(labels, np.int64)


def real_colour_crops(datasets: Path, rng: np.random.Generator, size: int = CROP_SIZE,
                      copies: int = REAL_COPIES) -> tuple[np.ndarray, np.ndarray]:
    """``copies`` jittered crops of each coloured corner of the ``uno-cards-rf`` photos outside those that
    ``--colour-check CHECK_PHOTOS --share DETECTOR_SHARE`` reads (:func:`check_names`)
    and its colour's index (the corner's hue nearest the four these photos' corners cluster at)."""
    source = datasets / DATASET
    photos = read_values(source / "labels.csv")
    held_out = set(check_names(photos, CHECK_PHOTOS, DETECTOR_SHARE))
    chosen = {name: corners for name, corners in photos.items() if name not in held_out}
    centres = hue_centres(corner_hues(source, chosen))
    crops, labels = [], []
    for name, corners in sorted(chosen.items()):
        image = cv2.imread(str(source / "images" / name))
        if image is None:
            raise OSError(f"cannot read {source / 'images' / name}")
        for value, box in corners:
            card = corner_card(image, value, box, centres) if value not in COLOURLESS else None
            if card is None or min(box[2] - box[0], box[3] - box[1]) < MIN_SIDE:
                continue
            crops += jittered_crops(image, box, copies, rng, size)
            labels += [COLOURS.index(card.split("-")[0])] * copies
    return np.stack(crops), np.array(labels, np.int64)


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Webcam-like damage that keeps a colour a colour: a moderate cast per channel (the white on the card
    shows it), contrast, brightness, blur, noise; never grey (a grey crop has no colour to learn)."""
    out = batch.astype(np.float32)
    n = len(out)
    gains = rng.uniform(0.75, 1.3, (n, 1, 1, 3))
    contrast = rng.uniform(0.6, 1.3, (n, 1, 1, 1))
    brightness = rng.uniform(-40, 40, (n, 1, 1, 1))
    mean = out.mean(axis=(1, 2, 3), keepdims=True)
    out = (out - mean) * contrast + mean * gains + brightness
    for i in np.flatnonzero(rng.random(n) < 0.3):
        out[i] = cv2.GaussianBlur(out[i], (0, 0), rng.uniform(0.3, 1.2))
    out += rng.normal(0, rng.uniform(0, 8), (n, 1, 1, 1)) * rng.standard_normal(out.shape).astype(np.float32)
    return np.clip(out, 0, 255)


def train(crops: np.ndarray, labels: np.ndarray, epochs: int, seed: int, batch_size: int = 64,
          max_lr: float = 3e-3, held_out: float = 0.05) -> tuple[nn.Module, list[float]]:
    """Train :func:`build_network` on crops and colour indices (one-cycle AdamW, label smoothing); returns it and
    the held-out accuracy after each epoch."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    order = rng.permutation(len(crops))
    split = int(len(crops) * held_out)
    val_idx, train_idx = order[:split], order[split:]
    network = build_network()
    optimiser = torch.optim.AdamW(network.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * (len(train_idx) // batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=max_lr, total_steps=max(1, steps))
    loss_of = nn.CrossEntropyLoss(label_smoothing=LABEL_SMOOTHING)
    history = []
    for epoch in range(epochs):
        network.train()
        started = time.perf_counter()
        rng.shuffle(train_idx)
        for step in range(len(train_idx) // batch_size):
            idx = train_idx[step * batch_size:(step + 1) * batch_size]
            loss = loss_of(network(to_tensor(augment(half_turns(crops[idx], rng), rng))), torch.from_numpy(labels[idx]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
        history.append(accuracy(network, crops[val_idx], labels[val_idx]))
        print(f"epoch {epoch + 1}/{epochs}: held-out accuracy {history[-1]:.4f} ({time.perf_counter() - started:.0f} s)",
              flush=True)
    return network, history


@torch.no_grad()
def accuracy(network: nn.Module, crops: np.ndarray, labels: np.ndarray) -> float:
    """Share of ``crops`` whose colour the network names right."""
    network.eval()
    predicted = np.concatenate([network(to_tensor(crops[i:i + 512].astype(np.float32))).argmax(dim=1).numpy()
                                for i in range(0, len(crops), 512)]) if len(crops) else np.zeros(0)
    return float((predicted == labels).mean()) if len(labels) else 0.0


def export(network: nn.Module, out: Path, size: int = CROP_SIZE) -> None:
    """Write the network as ONNX (input ``crops``: N x 3 x ``size`` x ``size``, RGB 0-1; output ``colour_logits``
    in the order of ``vision.colour_reader.COLOURS``, which the file's metadata names)."""
    import onnx

    network.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(network, torch.zeros(1, 3, size, size), str(out), input_names=["crops"],
                      output_names=["colour_logits"], dynamic_axes={"crops": {0: "n"}, "colour_logits": {0: "n"}},
                      opset_version=17, dynamo=False)
    model = onnx.load(str(out))
    entry = model.metadata_props.add()
    entry.key, entry.value = "colours", ",".join(COLOURS)
    onnx.save(model, str(out))


def train_and_export(renders: list[Path], real: Path, out: Path, epochs: int = 6, seed: int = 0) -> list[float]:
    """Cut the crops of ``renders`` and of ``uno-cards-rf`` under ``real``, train, export to ``out``; returns the
    held-out accuracy per epoch."""
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    parts = [render_colour_crops(folder, rng) for folder in renders] + [real_colour_crops(real, rng)]
    crops, labels = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    print(f"{len(crops)} crops ({len(parts[-1][0])} of uno-cards-rf), per colour {np.bincount(labels).tolist()}, "
          f"in {time.perf_counter() - started:.0f} s", flush=True)
    network, history = train(crops, labels, epochs, seed)
    export(network, out)
    print(f"exported {out} after {time.perf_counter() - started:.0f} s in all")
    return history


def main(argv: list[str] | None = None) -> int:
    """Command line: crops of the renders and of uno-cards-rf, train, export."""
    parser = argparse.ArgumentParser(prog="python -m models.colour_reader", description=__doc__.splitlines()[0])
    parser.add_argument("renders", nargs="+", type=Path, help="`tableref datasets render --family uno` folders")
    parser.add_argument("--real", type=Path, required=True, help="the ../shared/datasets folder (uno-cards-rf)")
    parser.add_argument("--out", type=Path, default=Path("models/colour_reader.onnx"))
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    train_and_export(args.renders, args.real, args.out, args.epochs, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
