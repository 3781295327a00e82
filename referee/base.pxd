# Cython declarations for referee/base.py (compiled builds only; the .py file is the definition).
from referee.state cimport GameState, RoundState
from referee.effects cimport CardRule

cdef class RefereeBase:
    cdef public GameState _game
    cpdef _player(self, dict event, str key=*)
    cpdef _card(self, value, str what=*)
    cpdef _round(self)
    cpdef _acted(self, str player)
    cpdef _hand_has(self, str player, str card)
    cpdef _remove_card(self, str player, str card)
