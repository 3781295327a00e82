"""Synthetic training data for tableref's card detector (a source folder, imported as
``tableref_datasets`` through :func:`vision.source_tree.load_source_package`).

``cards``: card faces (``render_face``, ``corner_boxes``, ``DESIGNS``); ``scene``: one synthetic
photo with its labels (``render_scene``); ``render``: a whole YOLO dataset on disk.
"""
