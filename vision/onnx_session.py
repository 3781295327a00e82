"""Open an ONNX model with ONNX Runtime on the CPU, with one clear error for a missing or broken file."""
from __future__ import annotations

from pathlib import Path


def open_session(model_path: Path, threads: int | None, error: type[Exception], what: str, env: str):
    """An ``onnxruntime.InferenceSession`` for ``model_path`` (``threads``: intra-op threads, None for
    all cores; threads stop spinning when a run ends). Raises ``error`` naming ``what`` the model is and the
    variable ``env`` that points elsewhere when the file is missing, or saying why ONNX Runtime refused it."""
    import onnxruntime as ort

    if not model_path.is_file():
        raise error(f"no {what} at {model_path} (set ${env} or pass a path)")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    # threads spin between the operators of one run, and stop when the run ends: the detector and the
    # classifier take turns on the same few cores, and threads left spinning after one session's run would
    # take the cores from the Python between runs and from the next session (the default table frame of
    # `tableref bench detector`: 52.7 ms never spinning, 78 ms spinning on, 47.5 ms stopping at each run's end)
    options.add_session_config_entry("session.intra_op.allow_spinning", "1")
    options.add_session_config_entry("session.force_spinning_stop", "1")
    if threads:
        options.intra_op_num_threads = threads
    try:
        return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types for bad files
        raise error(f"{model_path}: not a loadable ONNX model ({exc})") from exc
