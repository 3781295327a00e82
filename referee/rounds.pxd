# Cython declarations for referee/rounds.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.effects cimport CardRule
from referee.turns cimport TurnRules

cdef class RoundEnd(TurnRules):
    pass
