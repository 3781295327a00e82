"""The card detector's training recipe and tools (a source folder, imported as ``tableref_models``
through :func:`vision.source_tree.load_source_package`).

* ``recipe.yaml``: the ultralytics training arguments of the shipped model.
* ``train``: run the recipe fully offline and export the ONNX model (``tableref train``).
* ``cards.onnx``, ``card_classifier.onnx``: the detector's and the reader's fp32 exports (what training writes
  and starts from); ``quantize``: their 8-bit copies ``cards_int8.onnx``, ``card_classifier_int8.onnx``, which
  the product runs (``tableref train --quantize``; see ``MODEL_CARD.md``).
"""
