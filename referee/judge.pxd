# Cython declarations for referee/judge.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.effects cimport CardRule
from referee.base cimport RefereeBase

cdef class PlayJudge(RefereeBase):
    pass
