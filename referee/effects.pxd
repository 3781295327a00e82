# Cython declarations for referee/effects.py (compiled builds only; the .py file is the definition).
cdef class CardRule:
    cdef readonly str id
    cdef readonly str family
    cdef readonly object color
    cdef readonly str kind
    cdef readonly object match
    cdef readonly Py_ssize_t draw
    cdef readonly bint wild
    cdef readonly bint calls_color
    cdef readonly bint keeps_under
    cdef readonly Py_ssize_t points
    cdef readonly Py_ssize_t cut_value
    cdef readonly bint action
