COMMENT
One side of an ohmic gap junction, for the reference of datasets/neuron/cell_network.nc. The current out of this
side's membrane is i = g (v - vgap) (nA), g in uS, v this segment's potential and vgap the other side's, read
through a POINTER. A junction is two instances, one per side, each pointing at the other's v and given the same g:
the currents are then equal and opposite. Under CVODE both potentials are states of one system, so the current
is evaluated from the current states at every right-hand side (the solver's Jacobian lacks the cross term, which
slows its Newton iteration but does not change the solution it converges to).
ENDCOMMENT

NEURON {
    POINT_PROCESS GapJunction
    POINTER vgap
    RANGE g, i
    NONSPECIFIC_CURRENT i
}

UNITS {
    (nA) = (nanoamp)
    (mV) = (millivolt)
    (uS) = (microsiemens)
}

PARAMETER {
    g = 0 (uS)
}

ASSIGNED {
    v (mV)
    vgap (mV)
    i (nA)
}

BREAKPOINT {
    i = g * (v - vgap)
}
