# Cython declarations for referee/engine.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.deal cimport DealRules

cdef class RefereeCore(DealRules):
    cdef public list _log
    cdef public dict _last_event
    cdef public bint _rebuilding
    cdef public tuple _game_part_key
    cdef public dict _game_part_cache
    cdef public dict _handlers
    cpdef handle(self, event)
    cpdef state(self)
    cpdef _open_challenge(self)
    cpdef _game_part(self, GameState game)
    cpdef legal_plays(self, str player)
