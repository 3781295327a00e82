# Cython declarations for referee/plays.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.effects cimport CardRule
from referee.rounds cimport RoundEnd

cdef class PlayRules(RoundEnd):
    cpdef _forgot_color(self, str player)
    cpdef _end_turn_after_draw(self)
    cpdef _uno_after_play(self, str player)
