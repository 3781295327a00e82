"""The app for a WSGI server of one's own choosing (gunicorn, uWSGI), configured by the environment:
``DATABASE_URL`` (PostgreSQL for more than one worker), ``TABLEREF_PIN``, ``TABLEREF_SECRET_KEY`` (the same
for every worker), ``TABLEREF_LISTEN`` (the address served on, for the Host check; default 127.0.0.1)::

    DATABASE_URL=postgresql://club@db/tableref TABLEREF_PIN=4711 TABLEREF_SECRET_KEY=… \\
        gunicorn -k gthread --threads 256 -w 2 -b 0.0.0.0:8000 'web.wsgi:app'

The camera is off: a club's cameras are nodes (``tableref watch SOURCE --post URL --table NAME``).
"""
from __future__ import annotations

import os

from web.app import create_app

app = create_app(pin=os.environ.get("TABLEREF_PIN") or None, listen=os.environ.get("TABLEREF_LISTEN", "127.0.0.1"))
app.extensions["tableref.camera"].set_off("camera off: a club's cameras are nodes (tableref watch --post)")
