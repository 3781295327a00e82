# Cython declarations for referee/simulate.py (compiled builds only; the .py file is the definition).
cdef class Table:
    cdef public object rng
    cdef public list draw_pile
    cdef public Py_ssize_t deck_size
    cdef public list discard
    cdef public dict hands
    cdef public Py_ssize_t reshuffles
    cpdef available(self)
    cpdef play(self, str player, str card)

cdef class Tally:
    cdef public Py_ssize_t games
    cdef public Py_ssize_t rounds
    cdef public Py_ssize_t events
    cdef public Py_ssize_t rejected
    cdef public Py_ssize_t reshuffles
    cdef public Py_ssize_t unfinished
    cdef public Py_ssize_t exhausted
    cdef public object flags
    cdef public object injected
    cdef public object flagged
    cdef public list missed
    cdef public list spurious
    cdef public list invariant_failures
    cdef public object failure_count

cdef class GameRun:
    cdef public str rules
    cdef public list players
    cdef public object rng
    cdef public Tally tally
    cdef public double mistakes
    cdef public object referee
    cdef public dict bots
    cdef public dict opts
    cdef public bint seven_o
    cdef public bint identical_plays
    cdef public bint restricted_wd4
    cdef public Table table
    cdef public tuple palette
    cdef public dict state
    cdef public bint started
    cpdef send(self, dict event, str expect=*, bint check=*)
    cpdef step(self)
    cpdef turn(self, str player)
    cpdef play(self, str player, str card, str expect=*, bint call_uno=*)
    cpdef answer_draw(self, str player)
    cpdef mistake(self)
    cpdef jump_in(self, str turn)
