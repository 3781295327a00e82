"""Subcommands of `tableref` that belong to the vision layer (detect, eval, watch, bench, datasets, train)."""

#: The help of every vision command's ``--model`` option; the default it names is
#: ``vision.detector.default_model_path`` (not imported here: the command line starts without ONNX Runtime).
MODEL_HELP = "ONNX model (default: $TABLEREF_MODEL or models/cards_int8.onnx)"
