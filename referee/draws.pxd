# Cython declarations for referee/draws.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.plays cimport PlayRules

cdef class DrawRules(PlayRules):
    pass
