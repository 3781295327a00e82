# Cython declarations for referee/deal.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.effects cimport CardRule
from referee.calls cimport CallRules

cdef class DealRules(CallRules):
    pass
