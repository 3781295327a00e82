"""The app for a WSGI server of one's own choosing (gunicorn, uWSGI), configured by the environment:
``DATABASE_URL`` (PostgreSQL for more than one worker), ``TABLEREF_PIN``, ``TABLEREF_SECRET_KEY`` (the same
for every worker), ``TABLEREF_LISTEN`` (the address served on, for the Host check; default 127.0.0.1: give the
address gunicorn binds), ``TABLEREF_ALLOW_HOSTS`` (more names the server answers to, comma-separated, as
``tableref serve --allow-host``)::

    DATABASE_URL=postgresql://club@db/tableref TABLEREF_PIN=4711 TABLEREF_SECRET_KEY=… TABLEREF_LISTEN=0.0.0.0 \\
        TABLEREF_ALLOW_HOSTS=club-server gunicorn -k gthread --threads 256 -w 2 -b 0.0.0.0:8000 'web.wsgi:app'

The camera is off: a club's cameras are nodes (``tableref watch SOURCE --post URL --table NAME``).
"""
from __future__ import annotations

import os

from web.app import create_app

app = create_app(pin=os.environ.get("TABLEREF_PIN") or None, listen=os.environ.get("TABLEREF_LISTEN", "127.0.0.1"),
                 allowed_hosts=[name.strip() for name in os.environ.get("TABLEREF_ALLOW_HOSTS", "").split(",")
                                if name.strip()])
app.extensions["tableref.camera"].set_off("camera off: a club's cameras are nodes (tableref watch --post)")
