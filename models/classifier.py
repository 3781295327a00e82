"""Train the second-stage card classifier (``models/card_classifier.onnx``) on the CPU with PyTorch.

Run as ``tableref train --classifier RENDER_DIR [RENDER_DIR...]`` (or ``python -m models.classifier``
from the repository root), in an environment with torch (the machine's CPU build is enough; no
torchvision, no ultralytics). ``RENDER_DIR`` is a ``tableref datasets render`` output: every
labelled corner index and whole card of its ``meta.jsonl`` becomes training crops, cut by
:func:`vision.card_classifier.crop_for_classifier` (the run-time cut) from boxes jittered the way a
detector's boxes are off. Augmentation adds what renders lack most against real webcams: colour
casts, blur, noise, low contrast. Prints the held-out accuracy per epoch; deterministic from the seed.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from vision.card_classifier import CLASSIFIER_CLASSES, CROP_SIZE, classifier_label, crop_for_classifier

JITTER = 0.08  # each box edge moves by up to this share of the box side
MIN_VISIBLE = 0.6  # objects more hidden than this are left out
MIN_SIDE = 14  # boxes narrower than this many pixels are left out: nobody can read them
CLASS_INDEX = {label: i for i, label in enumerate(CLASSIFIER_CLASSES)}


def extract_crops(render_dir: Path, copies: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``copies`` jittered crops of every visible object of a render folder: (crops, class indices)."""
    crops, labels = [], []
    for line in (render_dir / "meta.jsonl").read_text().splitlines():
        meta = json.loads(line)
        image = cv2.imread(str(render_dir / meta["image"]))
        if image is None:
            continue
        for obj in meta["objects"]:
            label = classifier_label(obj["card"])
            if label is None or obj.get("visible", 1.0) < MIN_VISIBLE:
                continue
            x1, y1, x2, y2 = obj["box"]
            w, h = x2 - x1, y2 - y1
            if min(w, h) < MIN_SIDE:
                continue
            for _ in range(copies):
                dx1, dy1, dx2, dy2 = rng.uniform(-JITTER, JITTER, 4)
                box = (x1 + dx1 * w, y1 + dy1 * h, x2 + dx2 * w, y2 + dy2 * h)
                crops.append(crop_for_classifier(image, box))
                labels.append(CLASS_INDEX[label])
    return np.stack(crops), np.array(labels, dtype=np.int64)


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Webcam-like damage to a batch of uint8 BGR crops: casts, contrast, blur, noise, flips to grey."""
    out = batch.astype(np.float32)
    n = len(out)
    gains = rng.uniform(0.6, 1.4, (n, 1, 1, 3))  # colour cast per channel
    contrast = rng.uniform(0.5, 1.3, (n, 1, 1, 1))
    brightness = rng.uniform(-50, 50, (n, 1, 1, 1))
    mean = out.mean(axis=(1, 2, 3), keepdims=True)
    out = (out - mean) * contrast + mean * gains + brightness
    grey = rng.random(n) < 0.1
    out[grey] = out[grey].mean(axis=3, keepdims=True)
    for i in np.flatnonzero(rng.random(n) < 0.3):
        sigma = rng.uniform(0.3, 1.2)
        out[i] = cv2.GaussianBlur(out[i], (0, 0), sigma)
    out += rng.normal(0, rng.uniform(0, 10), (n, 1, 1, 1)) * rng.standard_normal(out.shape).astype(np.float32)
    return np.clip(out, 0, 255)


def to_tensor(batch: np.ndarray) -> torch.Tensor:
    """BGR uint8/float crops (N x H x W x 3, 0-255) as the network's RGB 0-1 input."""
    return torch.from_numpy(np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2)) / np.float32(255.0)).float()


def conv_block(cin: int, cout: int, stride: int) -> nn.Sequential:
    """3x3 convolution, batch norm, ReLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def build_network(classes: int = len(CLASSIFIER_CLASSES)) -> nn.Module:
    """A small all-convolutional network for 32 x 32 crops (about 0.3 M parameters, 18 M multiply-adds)."""
    return nn.Sequential(
        conv_block(3, 24, 1), conv_block(24, 48, 2),  # 16 x 16
        conv_block(48, 48, 1), conv_block(48, 96, 2),  # 8 x 8
        conv_block(96, 96, 1), conv_block(96, 128, 2),  # 4 x 4
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(128, classes),
    )


def train(crops: np.ndarray, labels: np.ndarray, epochs: int, seed: int, batch_size: int = 64,
          held_out: float = 0.05) -> tuple[nn.Module, list[float]]:
    """Train the network; returns it and the held-out accuracy after each epoch."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    order = rng.permutation(len(crops))
    split = int(len(crops) * held_out)
    val_idx, train_idx = order[:split], order[split:]
    network = build_network()
    optimiser = torch.optim.AdamW(network.parameters(), lr=3e-3, weight_decay=5e-4)
    steps = epochs * -(-len(train_idx) // batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=max(1, steps))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    history = []
    for epoch in range(epochs):
        network.train()
        started = time.perf_counter()
        rng.shuffle(train_idx)
        for start in range(0, len(train_idx), batch_size):
            idx = train_idx[start:start + batch_size]
            if len(idx) < 2:  # batch norm needs two samples
                continue
            inputs = to_tensor(augment(crops[idx], rng))
            loss = loss_fn(network(inputs), torch.from_numpy(labels[idx]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
        accuracy = evaluate(network, crops[val_idx], labels[val_idx])
        history.append(accuracy)
        print(f"epoch {epoch + 1}/{epochs}: loss {loss.item():.3f}, held-out accuracy {accuracy:.3f} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    return network, history


@torch.no_grad()
def evaluate(network: nn.Module, crops: np.ndarray, labels: np.ndarray) -> float:
    """Share of ``crops`` the network names right."""
    network.eval()
    right = 0
    for start in range(0, len(crops), 512):
        predicted = network(to_tensor(crops[start:start + 512].astype(np.float32))).argmax(dim=1).numpy()
        right += int((predicted == labels[start:start + 512]).sum())
    return right / max(1, len(crops))


def export(network: nn.Module, out: Path) -> None:
    """Write the network as ONNX with a dynamic batch dimension (input ``crops``, output ``logits``)."""
    network.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(network, torch.zeros(1, 3, CROP_SIZE, CROP_SIZE), str(out), input_names=["crops"],
                      output_names=["logits"], dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)


def train_and_export(renders: list[Path], out: Path, epochs: int = 10, copies: int = 2, seed: int = 0) -> list[float]:
    """Extract the crops of ``renders``, train, export to ``out``; returns the held-out accuracy per epoch."""
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    parts = [extract_crops(folder, copies, rng) for folder in renders]
    crops = np.concatenate([p[0] for p in parts])
    labels = np.concatenate([p[1] for p in parts])
    print(f"{len(crops)} crops of {len(np.unique(labels))} classes in {time.perf_counter() - started:.0f} s", flush=True)
    network, history = train(crops, labels, epochs, seed)
    export(network, out)
    print(f"exported {out} after {time.perf_counter() - started:.0f} s in all")
    return history


def main(argv: list[str] | None = None) -> int:
    """Command line: extract crops, train, export."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("renders", nargs="+", type=Path, help="`tableref datasets render` output folders")
    parser.add_argument("--out", type=Path, default=Path("models/card_classifier.onnx"))
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--copies", type=int, default=2, help="jittered crops per labelled object")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    train_and_export(args.renders, args.out, args.epochs, args.copies, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
