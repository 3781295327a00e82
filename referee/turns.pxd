# Cython declarations for referee/turns.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.effects cimport CardRule
from referee.judge cimport PlayJudge

cdef class TurnRules(PlayJudge):
    cpdef _seven_o(self, str player, CardRule rule, str target)
    cpdef _bring_in_check(self)
