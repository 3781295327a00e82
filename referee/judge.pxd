# Cython declarations for referee/judge.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.effects cimport CardRule
from referee.base cimport RefereeBase

cdef class PlayJudge(RefereeBase):
    cpdef _judge_play(self, str player, str card)
    cpdef _finish_check(self, str player, CardRule rule, str mode)
    cpdef _fitting(self, cards)
    cpdef _fits(self, CardRule rule)
    cpdef _wild_fits(self)
    cpdef _wild_allowed(self, str player, CardRule rule, tuple in_force=*)
    cpdef _wild_held_against(self, str player, tuple in_force=*)
    cpdef _may_play(self, str player, str card)
    cpdef _answers_pending(self, CardRule rule)
    cpdef _restricted(self, CardRule rule)
