"""Open an ONNX model with ONNX Runtime on the CPU, with one clear error for a missing or broken file."""
from __future__ import annotations

from pathlib import Path


def open_session(model_path: Path, threads: int | None, error: type[Exception], what: str, env: str):
    """An ``onnxruntime.InferenceSession`` for ``model_path`` (``threads``: intra-op threads, None for
    all cores; idle threads sleep rather than spin). Raises ``error`` naming ``what`` the model is and the
    variable ``env`` that points elsewhere when the file is missing, or saying why ONNX Runtime refused it."""
    import onnxruntime as ort

    if not model_path.is_file():
        raise error(f"no {what} at {model_path} (set ${env} or pass a path)")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    # the detector and the classifier take turns on the same few cores: threads left spinning after one
    # session's run would take the cores from the next (a frame cost 37 ms with spinning, 28 ms without)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads:
        options.intra_op_num_threads = threads
    try:
        return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types for bad files
        raise error(f"{model_path}: not a loadable ONNX model ({exc})") from exc
