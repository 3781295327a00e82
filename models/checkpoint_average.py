"""Average two detector checkpoints weight by weight: a fine-tuned detector and the one it started from (WiSE-FT,
Wortsman et al. 2022), batch-norm statistics included.

Every detector fine-tune of `models/EXPERIMENTS.md` rounds 41-49 lost part of the shipped detector's standard-table
precision and named phantom card backs; averaged half and half with its start it kept most of what it learnt and
lost most of those (forty-seventh round). Averaging the PyTorch checkpoints, rather than two ONNX exports
(:mod:`models.weight_average`, where each batch norm is already folded into its convolution), averages the
batch-norm statistics as the network keeps them. Needs the training extra (torch, ultralytics):

    python -m models.checkpoint_average models/cards.pt RUN/last.pt --weight 0.5 --out RUN/averaged.pt
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


class CheckpointAverageError(ValueError):
    """The two checkpoints do not hold the same network."""


def _network(checkpoint: dict):
    """The network a checkpoint holds, as ultralytics loads it: its EMA where kept, else its model."""
    network = checkpoint.get("ema")
    if network is None:
        network = checkpoint.get("model")
    if network is None:
        raise CheckpointAverageError("the checkpoint holds no network ('ema' or 'model')")
    return network.float()


def average_checkpoints(start: Path, trained: Path, out: Path, weight: float) -> int:
    """Write to ``out`` the checkpoint at ``trained`` with each float tensor of its network (weights, biases and
    batch-norm statistics) replaced by ``(1 - weight)`` times the start's plus ``weight`` times its own, saved in half
    precision without optimiser state as ultralytics saves a finished run. Returns how many tensors were averaged.
    Raises :class:`CheckpointAverageError` where the two networks' tensors differ in names or shapes."""
    import torch

    if not 0.0 <= weight <= 1.0:
        raise CheckpointAverageError(f"the trained detector's weight {weight} is not between 0 and 1")
    start_checkpoint = torch.load(str(start), map_location="cpu", weights_only=False)
    trained_checkpoint = torch.load(str(trained), map_location="cpu", weights_only=False)
    start_state = _network(start_checkpoint).state_dict()
    network = _network(trained_checkpoint)
    state = network.state_dict()
    if start_state.keys() != state.keys():
        raise CheckpointAverageError(f"{start} and {trained} hold networks with different tensors")
    averaged = 0
    for name, tensor in state.items():
        old = start_state[name]
        if old.shape != tensor.shape:
            raise CheckpointAverageError(f"tensor {name}: {tuple(tensor.shape)} in {trained}, {tuple(old.shape)} "
                                         f"in {start}")
        if tensor.is_floating_point():
            state[name] = (1.0 - weight) * old.double() + weight * tensor.double()
            averaged += 1
    network.load_state_dict(state)
    saved = dict(trained_checkpoint, model=network.half(), ema=None, optimizer=None, updates=None)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(saved, str(out))
    return averaged


def main(argv: list[str] | None = None) -> int:
    """Command line: ``START TRAINED --weight W --out OUT``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("start", type=Path, help="the checkpoint the fine-tune started from")
    parser.add_argument("trained", type=Path, help="the fine-tuned checkpoint")
    parser.add_argument("--weight", type=float, default=0.5, help="the fine-tuned checkpoint's share (0-1)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the averaged checkpoint")
    args = parser.parse_args(argv)
    try:
        averaged = average_checkpoints(args.start, args.trained, args.out, args.weight)
    except (CheckpointAverageError, FileNotFoundError) as exc:
        print(f"checkpoint_average: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: {averaged} tensors averaged ({args.weight} of {args.trained})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
