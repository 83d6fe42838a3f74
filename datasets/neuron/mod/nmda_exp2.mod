COMMENT
NMDA receptor point process for the reference of datasets/neuron/network_nmda.nc: the two-state kinetics of
NEURON's Exp2Syn (rise tau1, decay tau2, a NetCon weight is the peak conductance) times the magnesium block of
Jahr and Stevens (1990), B(v) = 1 / (1 + exp(-0.062 v) mg / 3.57), v in mV, mg in mM.
ENDCOMMENT

NEURON {
    POINT_PROCESS NMDAExp2
    RANGE tau1, tau2, e, mg, i, g
    NONSPECIFIC_CURRENT i
}

UNITS {
    (nA) = (nanoamp)
    (mV) = (millivolt)
    (uS) = (microsiemens)
    (mM) = (milli/liter)
}

PARAMETER {
    tau1 = 2 (ms) <1e-9, 1e9>
    tau2 = 20 (ms) <1e-9, 1e9>
    e = 0 (mV)
    mg = 1 (mM)
    slope = 0.062 (/mV)
    half = 3.57 (mM)
}

ASSIGNED {
    v (mV)
    i (nA)
    g (uS)
    factor
}

STATE {
    A (uS)
    B (uS)
}

INITIAL {
    LOCAL tp
    A = 0
    B = 0
    tp = (tau1 * tau2) / (tau2 - tau1) * log(tau2 / tau1)
    factor = 1 / (exp(-tp / tau2) - exp(-tp / tau1))
}

BREAKPOINT {
    SOLVE state METHOD cnexp
    g = (B - A) / (1 + exp(-slope * v) * mg / half)
    i = g * (v - e)
}

DERIVATIVE state {
    A' = -A / tau1
    B' = -B / tau2
}

NET_RECEIVE(weight (uS)) {
    A = A + weight * factor
    B = B + weight * factor
}
