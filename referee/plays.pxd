# Cython declarations for referee/plays.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.effects cimport CardRule
from referee.rounds cimport RoundEnd

cdef class PlayRules(RoundEnd):
    pass
