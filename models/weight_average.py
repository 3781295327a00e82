"""Average two exported readers' weights: a weight-space ensemble of a fine-tuned reader and the reader it
started from (WiSE-FT, Wortsman et al. 2022), which keeps much of what the fine-tune learnt and of what the start
read well.

Run as ``python -m models.weight_average START TRAINED --weight W --out OUT`` (from the repository root, with
``onnx``), or through ``python -m models.classifier ... --start-from START --keep-start S`` (``W = 1 - S``). Both
readers must be exports of the same network (:func:`models.classifier.export`; each batch norm folded into its
convolution, so a convolution's weights and bias are averaged as the reader runs them). The weights are matched by
the position of the node that uses them, not by name: the exporter names them afresh each time.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


class WeightAverageError(ValueError):
    """The two readers are not exports of one network."""


def weight_names(model) -> list[str]:
    """The names of the float weights of ``model`` (an ``onnx.ModelProto``), in the order of the nodes that use
    them: each node's inputs that are initializers, nodes in graph order."""
    initializers = {t.name for t in model.graph.initializer}
    names: list[str] = []
    for node in model.graph.node:
        names += [name for name in node.input if name in initializers and name not in names]
    return names


def average_readers(start: Path, trained: Path, out: Path, weight: float) -> int:
    """Write to ``out`` the reader at ``trained`` with each float weight replaced by ``(1 - weight)`` times the
    start's plus ``weight`` times its own; returns how many weight tensors were averaged. Raises
    :class:`WeightAverageError` where the two graphs differ in their weights' number or shapes."""
    import onnx
    from onnx import numpy_helper

    if not 0.0 <= weight <= 1.0:
        raise WeightAverageError(f"the trained reader's weight {weight} is not between 0 and 1")
    start_model, trained_model = onnx.load(str(start)), onnx.load(str(trained))
    start_names, trained_names = weight_names(start_model), weight_names(trained_model)
    if len(start_names) != len(trained_names):
        raise WeightAverageError(f"{start} holds {len(start_names)} weight tensors, {trained} {len(trained_names)}")
    start_weights = {t.name: numpy_helper.to_array(t) for t in start_model.graph.initializer}
    tensors = {t.name: t for t in trained_model.graph.initializer}
    averaged = 0
    for start_name, name in zip(start_names, trained_names):
        old, new = start_weights[start_name], numpy_helper.to_array(tensors[name])
        if old.shape != new.shape or old.dtype != new.dtype:
            raise WeightAverageError(f"weight {name}: {new.shape} {new.dtype} in {trained}, "
                                     f"{old.shape} {old.dtype} in {start}")
        if new.dtype.kind != "f":
            continue
        mixed = ((1.0 - weight) * old.astype(np.float64) + weight * new.astype(np.float64)).astype(new.dtype)
        tensors[name].CopyFrom(numpy_helper.from_array(mixed, name))
        averaged += 1
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(trained_model, str(out))
    return averaged


def main(argv: list[str] | None = None) -> int:
    """Command line: average two readers into a third."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("start", type=Path, help="the reader the fine-tune started from (ONNX)")
    parser.add_argument("trained", type=Path, help="the fine-tuned reader (ONNX)")
    parser.add_argument("--weight", type=float, required=True, help="the fine-tuned reader's share, 0 to 1")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        count = average_readers(args.start, args.trained, args.out, args.weight)
    except (WeightAverageError, OSError) as exc:
        parser.exit(2, f"weight_average: {exc}\n")
    print(f"wrote {args.out}: {count} weight tensors averaged, {args.weight:g} of {args.trained}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
