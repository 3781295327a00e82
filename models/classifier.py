"""Train the second-stage card classifier (``models/card_classifier.onnx``) on the CPU with PyTorch.

Run as ``tableref train --classifier RENDER_DIR [RENDER_DIR...]`` (or ``python -m models.classifier``
from the repository root), in an environment with torch (the machine's CPU build is enough; no
torchvision, no ultralytics). ``RENDER_DIR`` is a ``tableref datasets render`` output: every
labelled corner index and whole card of its ``meta.jsonl`` becomes training crops, cut by
:func:`vision.card_classifier.crop_for_classifier` (the run-time cut) from boxes jittered the way a
detector's boxes are off. Augmentation adds what renders lack most against real webcams: colour
casts, blur, noise, low contrast; and half of each batch is turned half a turn (never mirrored), as the
reader reads every crop both ways up at run time; ``--small-share S`` sees that share of each batch as a card
lying small (:func:`models.classifier_data.seen_small`: the real photos are close-ups, a camera over a table sees
their indices 10-25 px tall). Prints the held-out accuracy per epoch; deterministic from the seed.

``--real DIR`` (the ``../shared/datasets`` folder, read where it lies, never copied) adds real photos
(``REAL_SHARES``): the corner indices of ``uno-cards-rf`` (real classic UNO cards, values) and of the
``train`` part of ``cards-rf`` (real standard cards, rank and suit; :mod:`vision.splits`), and from the
``train`` half of ``cards-real-dev`` every box the committed detector keeps inside a labelled card and the
labelled card box itself. Those last labels name the rank only, so their loss is that of the rank's four
faces together (the log of their summed probabilities). ``--front-cards CSV`` adds the card in front of each
``uno-cards-rf`` fan, whole (:mod:`models.whole_classic_cards`): the set labels corners only, and a reader that
never saw the real classic deck's whole face named 30 % of them right. ``--keep-start S`` (with ``--start-from``)
exports the trained weights averaged with the start's, ``S`` of the start's (:mod:`models.weight_average`).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .classifier_data import (GREY_SHARE, REAL_SHARES, RENDER_MIN_SIDE, augment, extract_crops, half_turns,
                              one_hot, real_corner_crops, real_rank_crops)
from .weight_average import average_readers
from vision.card_classifier import CLASSIFIER_CLASSES, CROP_SIZE
from vision.splits import PARTS

LABEL_SMOOTHING = 0.05
#: How often each whole classic card of ``--front-cards`` is used an epoch: 1,776 cards twice beside uno-cards-rf's
#: 9,000 corners (thirty-fourth round).
FRONT_CARD_REPEAT = 2
PROGRESS_EVERY = 200  # training steps between progress lines


def to_tensor(batch: np.ndarray) -> torch.Tensor:
    """BGR uint8/float crops (N x H x W x 3, 0-255) as the network's RGB 0-1 input."""
    return torch.from_numpy(np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2)) / np.float32(255.0)).float()


def conv_block(cin: int, cout: int, stride: int) -> nn.Sequential:
    """3x3 convolution, batch norm, ReLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def build_network(classes: int = len(CLASSIFIER_CLASSES)) -> nn.Module:
    """A small all-convolutional network for square crops of any size (about 0.3 M parameters; 18 M
    multiply-adds a 32 x 32 crop, 41 M a 48 x 48 one): three halvings, then the mean over the rest."""
    return nn.Sequential(
        conv_block(3, 24, 1), conv_block(24, 48, 2),  # 1/2
        conv_block(48, 48, 1), conv_block(48, 96, 2),  # 1/4
        conv_block(96, 96, 1), conv_block(96, 128, 2),  # 1/8
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(128, classes),
    )


def set_loss(logits: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Cross-entropy against a set of allowed classes (the log of their summed probability), with label
    smoothing; for one allowed class it is the usual label-smoothed cross-entropy."""
    log_probs = torch.log_softmax(logits, dim=1)
    in_set = torch.logsumexp(log_probs.masked_fill(~allowed, float("-inf")), dim=1)
    return (-(1 - LABEL_SMOOTHING) * in_set - LABEL_SMOOTHING * log_probs.mean(dim=1)).mean()


@torch.no_grad()
def network_from_onnx(path: Path, sample: np.ndarray) -> nn.Module:
    """The network of :func:`build_network` with the weights of an exported reader (``path``), to train
    on from there. The export folded each batch norm into its convolution; the batch norms are set back
    so that, on ``sample`` crops (a batch of the training data), each passes its convolution's output on
    unchanged in training mode too (their scale and shift are that output's own spread and mean)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in model.graph.initializer}
    network = build_network()
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    blocks = [m for m in network if isinstance(m, nn.Sequential)]
    if len(convs) != len(blocks):
        raise ValueError(f"{path}: {len(convs)} convolutions, the recipe's network has {len(blocks)}")
    x = to_tensor(sample.astype(np.float32))
    for block, node in zip(blocks, convs):
        conv, norm = block[0], block[1]
        conv.weight.copy_(weights[node.input[1]])
        out = conv(x)
        mean, std = out.mean(dim=(0, 2, 3)), out.std(dim=(0, 2, 3)) + 1e-3
        bias = weights[node.input[2]]
        norm.weight.copy_(std)
        norm.bias.copy_(mean + bias)
        norm.running_mean.copy_(mean)
        norm.running_var.copy_(std ** 2 - norm.eps)
        x = torch.relu(out + bias[None, :, None, None])
    gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
    linear = network[-1]
    linear.weight.copy_(weights[gemm.input[1]])
    linear.bias.copy_(weights[gemm.input[2]])
    return network


def train(crops: np.ndarray, targets: np.ndarray, epochs: int, seed: int, batch_size: int = 64,
          held_out: float = 0.05, start_from: Path | None = None,
          max_lr: float = 3e-3, small_share: float = 0.0,
          grey_share: float = GREY_SHARE) -> tuple[nn.Module, list[float]]:
    """Train the network on crops and their allowed classes (N x classes, bool), from scratch or from
    the reader exported at ``start_from``, ``small_share`` of each batch seen as cards lying small
    (:func:`classifier_data.seen_small`) and ``grey_share`` turned grey; returns it and the held-out accuracy after
    each epoch."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    order = rng.permutation(len(crops))
    split = int(len(crops) * held_out)
    val_idx, train_idx = order[:split], order[split:]
    if start_from is None:
        network = build_network()
    else:
        network = network_from_onnx(start_from, crops[rng.choice(train_idx, min(512, len(train_idx)), replace=False)])
        print(f"starting from {start_from}: held-out accuracy {evaluate(network, crops[val_idx], targets[val_idx]):.3f}",
              flush=True)
    optimiser = torch.optim.AdamW(network.parameters(), lr=max_lr, weight_decay=5e-4)
    steps = epochs * -(-len(train_idx) // batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=max_lr, total_steps=max(1, steps))
    history = []
    for epoch in range(epochs):
        network.train()
        started = time.perf_counter()
        rng.shuffle(train_idx)
        for start in range(0, len(train_idx), batch_size):
            idx = train_idx[start:start + batch_size]
            if len(idx) < 2:  # batch norm needs two samples
                continue
            inputs = to_tensor(augment(half_turns(crops[idx], rng), rng, small_share, grey_share))
            loss = set_loss(network(inputs), torch.from_numpy(targets[idx]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step = start // batch_size + 1
            if step % PROGRESS_EVERY == 0:
                print(f"  epoch {epoch + 1}: step {step}/{-(-len(train_idx) // batch_size)} "
                      f"({time.perf_counter() - started:.0f} s)", flush=True)
        accuracy = evaluate(network, crops[val_idx], targets[val_idx])
        history.append(accuracy)
        print(f"epoch {epoch + 1}/{epochs}: loss {loss.item():.3f}, held-out accuracy {accuracy:.3f} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    return network, history


@torch.no_grad()
def evaluate(network: nn.Module, crops: np.ndarray, targets: np.ndarray) -> float:
    """Share of ``crops`` the network names with one of their allowed classes."""
    network.eval()
    right = 0
    for start in range(0, len(crops), 512):
        predicted = network(to_tensor(crops[start:start + 512].astype(np.float32))).argmax(dim=1).numpy()
        right += int(targets[start:start + 512][np.arange(len(predicted)), predicted].sum())
    return right / max(1, len(crops))


class ReaderWithFeatures(nn.Module):
    """The reader as exported: its logits and, beside them, the features its last layer weighs (the
    mean-pooled 128 values of each crop), which a deck profile (:mod:`vision.decks`) refits on."""

    def __init__(self, network: nn.Module) -> None:
        super().__init__()
        self.body, self.head = network[:-2], network[-1]  # network[-2] is the dropout, idle in eval

    def forward(self, crops: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and features of a batch of crops."""
        features = self.body(crops)
        return self.head(features), features


def export(network: nn.Module, out: Path, size: int = CROP_SIZE) -> None:
    """Write the network as ONNX for ``size`` x ``size`` crops with a dynamic batch dimension (input
    ``crops``, outputs ``logits`` and ``features``); the run time reads the crop size from the input's shape."""
    network.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(ReaderWithFeatures(network), torch.zeros(1, 3, size, size), str(out), input_names=["crops"],
                      output_names=["logits", "features"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "features": {0: "n"}},
                      opset_version=17, dynamo=False)


def real_crops(datasets: Path, name: str, copies: int, rng: np.random.Generator,
               size: int) -> tuple[np.ndarray, np.ndarray]:
    """The training crops of one real set of ``REAL_SHARES`` under ``datasets`` and their allowed classes: of
    its ``train`` part where :mod:`vision.splits` splits it, else of all of it (a set made for training)."""
    folder = datasets / name
    if name == "cards-real-dev":
        return real_rank_crops(folder, copies, rng, size=size)
    crops, labels = real_corner_crops(folder, copies, rng, name if name in PARTS else None, size)
    return crops, one_hot(labels)


def train_and_export(renders: list[Path], out: Path, epochs: int = 10, copies: int = 2, seed: int = 0,
                     real: Path | None = None, size: int = CROP_SIZE, start_from: Path | None = None,
                     max_lr: float = 3e-3, front_cards: Path | None = None,
                     keep_start: float = 0.0, min_side: float = RENDER_MIN_SIDE,
                     small_share: float = 0.0, grey_share: float = GREY_SHARE) -> list[float]:
    """Extract the ``size`` x ``size`` crops of ``renders`` (and of the real sets of ``REAL_SHARES`` under
    ``real`` when given, with the whole classic cards boxed in ``front_cards``, each used
    ``FRONT_CARD_REPEAT`` times), train (from the reader at ``start_from`` when given; ``small_share`` of each batch
    seen as cards lying small, ``grey_share`` turned grey), export to ``out``, its weights averaged with the start's,
    ``keep_start`` of the start's, where that is above 0; returns the held-out accuracy per epoch (before the averaging)."""
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    parts = [extract_crops(folder, copies, rng, size, min_side) for folder in renders]
    crops = np.concatenate([p[0] for p in parts])
    labels = np.concatenate([p[1] for p in parts])
    print(f"{len(crops)} render crops of {len(np.unique(labels))} classes in {time.perf_counter() - started:.0f} s",
          flush=True)
    all_crops, all_targets = [crops], [one_hot(labels)]
    for name, share in REAL_SHARES.items() if real is not None else ():
        crops_of_set, targets_of_set = real_crops(real, name, copies, rng, size)
        repeat = max(1, round(share * len(crops) / len(crops_of_set)))
        print(f"{len(crops_of_set)} real crops of {name}, each used {repeat} times", flush=True)
        all_crops += [crops_of_set] * repeat
        all_targets += [targets_of_set] * repeat
    if real is not None and front_cards is not None:
        crops_of_set, labels_of_set = real_corner_crops(real / "uno-cards-rf", copies, rng, size=size,
                                                        labels_csv=front_cards)
        print(f"{len(crops_of_set)} whole classic cards of uno-cards-rf, each used {FRONT_CARD_REPEAT} times",
              flush=True)
        all_crops += [crops_of_set] * FRONT_CARD_REPEAT
        all_targets += [one_hot(labels_of_set)] * FRONT_CARD_REPEAT
    network, history = train(np.concatenate(all_crops), np.concatenate(all_targets), epochs, seed,
                             start_from=start_from, max_lr=max_lr, small_share=small_share, grey_share=grey_share)
    export(network, out, size)
    if keep_start > 0.0 and start_from is not None:
        average_readers(start_from, out, out, 1.0 - keep_start)
        print(f"averaged with {start_from}, {keep_start:g} of its weights kept", flush=True)
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
    parser.add_argument("--crop-size", type=int, default=CROP_SIZE, help="side of the square crops in pixels")
    parser.add_argument("--real", type=Path, default=None,
                        help="the ../shared/datasets folder: also learn from its real photos (REAL_SHARES)")
    parser.add_argument("--start-from", type=Path, default=None,
                        help="an exported reader (ONNX) of the same network to train on from (the project's own)")
    parser.add_argument("--max-lr", type=float, default=3e-3, help="the one-cycle schedule's highest learning rate")
    parser.add_argument("--front-cards", type=Path, default=None, metavar="CSV",
                        help="with --real: also learn the whole classic cards boxed in this file "
                             "(python -m models.whole_classic_cards --boxes-out CSV)")
    parser.add_argument("--keep-start", type=float, default=0.0, metavar="S",
                        help="with --start-from: export the trained weights averaged with the start's, S of the "
                             "start's (0 to 1; WiSE-FT, models.weight_average)")
    parser.add_argument("--min-side", type=float, default=RENDER_MIN_SIDE, metavar="PX",
                        help="learn the renders' boxes down to this many pixels on their short side "
                             f"(default {RENDER_MIN_SIDE})")
    parser.add_argument("--small-share", type=float, default=0.0, metavar="S",
                        help="this share of each batch is seen as cards lying small: shrunk to a 10-25 px side and "
                             "cut back up (default 0; tried in the forty-fourth round, not kept)")
    parser.add_argument("--grey-share", type=float, default=GREY_SHARE, metavar="S",
                        help=f"this share of each batch is turned grey, as a camera without colour takes it "
                             f"(default {GREY_SHARE})")
    args = parser.parse_args(argv)
    if not 0.0 <= args.small_share <= 1.0:
        parser.error("--small-share must be between 0 and 1")
    if not 0.0 <= args.grey_share <= 1.0:
        parser.error("--grey-share must be between 0 and 1")
    if args.keep_start and args.start_from is None:
        parser.error("--keep-start needs --start-from (the reader to average with)")
    if not 0.0 <= args.keep_start < 1.0:
        parser.error("--keep-start must be at least 0 and below 1")
    if args.front_cards is not None and args.real is None:
        parser.error("--front-cards needs --real (the folder holding uno-cards-rf/)")
    train_and_export(args.renders, args.out, args.epochs, args.copies, args.seed, args.real, args.crop_size,
                     args.start_from, args.max_lr, args.front_cards, args.keep_start, args.min_side,
                     args.small_share, args.grey_share)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
