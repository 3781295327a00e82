"""The card detector's training recipe and tools (a source folder, imported as ``tableref_models``
through :func:`vision.source_tree.load_source_package`).

* ``recipe.yaml``: the ultralytics training arguments of the shipped model.
* ``train``: run the recipe fully offline and export the ONNX model (``tableref train``).
* ``cards.onnx``: the shipped detector (see ``MODEL_CARD.md``).
"""
