# Cython declarations for referee/scoring.py (compiled builds only; the .py file is the definition).
from referee.effects cimport CardRule
