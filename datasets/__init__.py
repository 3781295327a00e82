"""Synthetic training data for tableref's card detector (a source folder, imported as
``tableref_datasets`` through :func:`vision.source_tree.load_source_package`).

* ``cards``: the card-face API (``render_face``, ``corner_boxes``, ``DESIGNS``), built on
  ``uno_faces`` (procedural UNO faces, two designs), ``standard_faces`` and ``standard_art``
  (public-domain standard card art under ``art/``), ``drawing`` (PIL helpers).
* ``scene``: one synthetic photo with its labels (``render_scene``), built on ``textures``
  (tables, rooms), ``distractors`` (non-card objects), ``hands`` and ``effects`` (camera look).
* ``render``: a whole YOLO dataset on disk (``tableref datasets render``).
"""
