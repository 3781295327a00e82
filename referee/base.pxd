# Cython declarations for referee/base.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.effects cimport CardRule

cdef class RefereeBase:
    cdef public GameState _game
