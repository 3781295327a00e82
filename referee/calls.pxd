# Cython declarations for referee/calls.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.draws cimport DrawRules

cdef class CallRules(DrawRules):
    pass
