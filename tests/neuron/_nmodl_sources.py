"""NMODL sources for the reader's tests, written here from the published equations of difflab's channels.

Squid axon (Hodgkin & Huxley 1952, NEURON's `hh` convention, q10 = 3 from 6.3 °C) as separate Na, K and leak
mechanisms; the L5PC's NaTs2_t, Ih, Im and SK_E2 (Hay et al. 2011) with the rates of difflab.neuron.channels'
docstrings. Densities in S/cm² (or mho/cm²), as NEURON's files give them.
"""

VTRAP = """
FUNCTION vtrap(x, y) {
    : x/(exp(x/y) - 1), with its limit y at x = 0
    if (fabs(x/y) < 1e-6) {
        vtrap = y*(1 - x/y/2)
    } else {
        vtrap = x/(exp(x/y) - 1)
    }
}
"""

SQUID_NA = (
    """
TITLE squid axon sodium channel
NEURON {
    SUFFIX na_hh
    USEION na READ ena WRITE ina
    RANGE gnabar
}
UNITS { (S) = (siemens) (mV) = (millivolt) (mA) = (milliamp) }
PARAMETER { gnabar = 0.12 (S/cm2) <0, 1e9> }
ASSIGNED { v (mV) celsius (degC) ena (mV) ina (mA/cm2) minf hinf mtau (ms) htau (ms) }
STATE { m h }
BREAKPOINT {
    SOLVE states METHOD cnexp
    ina = gnabar*m*m*m*h*(v - ena)
}
INITIAL { rates(v) m = minf h = hinf }
DERIVATIVE states {
    rates(v)
    m' = (minf - m)/mtau
    h' = (hinf - h)/htau
}
PROCEDURE rates(v (mV)) {
    LOCAL alpha, beta, sum, q10
    TABLE minf, mtau, hinf, htau DEPEND celsius FROM -100 TO 100 WITH 200
UNITSOFF
    q10 = 3^((celsius - 6.3)/10)
    alpha = .1 * vtrap(-(v + 40), 10)
    beta = 4 * exp(-(v + 65)/18)
    sum = alpha + beta
    mtau = 1/(q10*sum)
    minf = alpha/sum
    alpha = .07 * exp(-(v + 65)/20)
    beta = 1 / (exp(-(v + 35)/10) + 1)
    sum = alpha + beta
    htau = 1/(q10*sum)
    hinf = alpha/sum
}
UNITSON
"""
    + VTRAP
)

SQUID_K = (
    """TITLE squid axon's K+ channel, "hh" & n^4 (36 mS/cm2)
COMMENT Delayed rectifier of the squid axon: i = gkbar n^4 (v - ek),
written with alpha and beta. ENDCOMMENT
NEURON { SUFFIX k_hh USEION k READ ek WRITE ik RANGE gkbar }
PARAMETER { gkbar = .036 (mho/cm2) }
ASSIGNED { v (mV) celsius (degC) ek (mV) ik (mA/cm2) an (/ms) bn (/ms) }
STATE { n }
BREAKPOINT {
    SOLVE states METHOD cnexp
    ik = gkbar*n^4*(v - ek)
}
DERIVATIVE states {
    rates(v)
    n' = an*(1 - n) - bn*n
}
PROCEDURE rates(u (mV)) {
    LOCAL q
    q = 3^((celsius - 6.3)/10)
    an = q*.01*vtrap(-(u + 55), 10)
    bn = q*.125*exp(-(u + 65)/80)
}
"""
    + VTRAP
)

SQUID_LEAK = """
NEURON { SUFFIX leak_hh NONSPECIFIC_CURRENT il RANGE gl, el }
PARAMETER { gl = .0003 (S/cm2) el = -54.3 (mV) }
ASSIGNED { v (mV) il (mA/cm2) }
BREAKPOINT { il = gl*(v - el) }
"""

NATS2_T = (
    """
: transient sodium current of the L5PC soma, alpha/beta with half-activation -32 mV, inactivation -60 mV
NEURON { SUFFIX NaTs2_t USEION na READ ena WRITE ina RANGE gNaTs2_tbar, gNaTs2_t }
PARAMETER { gNaTs2_tbar = 0.00001 (S/cm2) }
ASSIGNED { v (mV) ena (mV) ina (mA/cm2) gNaTs2_t (S/cm2) mAlpha mBeta hAlpha hBeta }
STATE { m h }
BREAKPOINT {
    SOLVE states METHOD cnexp
    gNaTs2_t = gNaTs2_tbar*m*m*m*h
    ina = gNaTs2_t*(v - ena)
}
DERIVATIVE states {
    rates()
    m' = mAlpha*(1 - m) - mBeta*m
    h' = hAlpha*(1 - h) - hBeta*h
}
PROCEDURE rates() {
    LOCAL qt
    qt = 2.3^((34 - 21)/10)
    mAlpha = qt*0.182*vtrap(-(v + 32), 6)
    mBeta = qt*0.124*vtrap(v + 32, 6)
    hAlpha = qt*0.015*vtrap(v + 60, 6)
    hBeta = qt*0.015*vtrap(-(v + 60), 6)
}
"""
    + VTRAP
)

IH = (
    """
NEURON { SUFFIX Ih NONSPECIFIC_CURRENT ihcn RANGE gIhbar, ehcn }
PARAMETER { gIhbar = 0.00001 (S/cm2) ehcn = -45.0 (mV) }
ASSIGNED { v (mV) ihcn (mA/cm2) mAlpha mBeta }
STATE { m }
BREAKPOINT {
    SOLVE states METHOD cnexp
    ihcn = gIhbar*m*(v - ehcn)
}
DERIVATIVE states {
    mAlpha = 0.00643*vtrap(v + 154.9, 11.9)
    mBeta = 0.193*exp(v/33.1)
    m' = mAlpha*(1 - m) - mBeta*m
}
"""
    + VTRAP
)

IM = """
NEURON { SUFFIX Im USEION k READ ek WRITE ik RANGE gImbar }
PARAMETER { gImbar = 0.00001 (S/cm2) }
ASSIGNED { v (mV) ek (mV) ik (mA/cm2) mAlpha mBeta }
STATE { m }
BREAKPOINT {
    SOLVE states METHOD cnexp
    ik = gImbar*m*(v - ek)
}
DERIVATIVE states {
    LOCAL qt
    qt = 2.3^((34 - 21)/10)
    mAlpha = qt*3.3e-3*exp(0.1*(v + 35))
    mBeta = qt*3.3e-3*exp(-0.1*(v + 35))
    m' = mAlpha*(1 - m) - mBeta*m
}
"""

SK_E2 = """
: small-conductance calcium-activated potassium current, steady state a Hill function of cai
NEURON {
    SUFFIX SK_E2
    USEION k READ ek WRITE ik
    USEION ca READ cai
    RANGE gSK_E2bar
}
PARAMETER { gSK_E2bar = .000001 (mho/cm2) zTau = 1 (ms) }
ASSIGNED { v (mV) ek (mV) cai (mM) ik (mA/cm2) zInf }
STATE { z FROM 0 TO 1 }
BREAKPOINT {
    SOLVE states METHOD cnexp
    ik = gSK_E2bar*z*(v - ek)
}
DERIVATIVE states {
    rates(cai)
    z' = (zInf - z)/zTau
}
PROCEDURE rates(ca (mM)) {
    if (ca < 1e-7) {
        ca = ca + 1e-7
    }
    zInf = 1/(1 + (0.00043/ca)^4.8)
}
INITIAL { rates(cai) z = zInf }
"""

CADYN = """
: submembrane calcium shell: influx from ica into a shell of depth d, first-order decay to minCai
NEURON { SUFFIX CaDynamics_E2 USEION ca READ ica WRITE cai RANGE decay, gamma, minCai, depth }
UNITS { (mA) = (milliamp) (mM) = (milli/liter) (um) = (micron) FARADAY = (faraday) (coulombs) }
PARAMETER { gamma = 0.05 decay = 80 (ms) depth = 0.1 (um) minCai = 1e-4 (mM) }
ASSIGNED { ica (mA/cm2) }
STATE { cai (mM) }
BREAKPOINT { SOLVE states METHOD cnexp }
DERIVATIVE states {
    cai' = -10000*ica*gamma/(2*FARADAY*depth) - (cai - minCai)/decay
}
"""

HH = (
    """
: the squid axon in one mechanism, as NEURON's hh: three currents, gates m, h, n
NEURON {
    SUFFIX hh
    USEION na READ ena WRITE ina
    USEION k READ ek WRITE ik
    NONSPECIFIC_CURRENT il
    RANGE gnabar, gkbar, gl, el
}
PARAMETER { gnabar = .12 (S/cm2) gkbar = .036 (S/cm2) gl = .0003 (S/cm2) el = -54.3 (mV) }
ASSIGNED { v (mV) celsius (degC) ena (mV) ek (mV) ina (mA/cm2) ik (mA/cm2) il (mA/cm2) gna (S/cm2) gk (S/cm2)
           am (/ms) bm (/ms) ah (/ms) bh (/ms) an (/ms) bn (/ms) }
STATE { m h n }
BREAKPOINT {
    SOLVE states METHOD cnexp
    gna = gnabar*m*m*m*h
    ina = gna*(v - ena)
    gk = gkbar*n*n*n*n
    ik = gk*(v - ek)
    il = gl*(v - el)
}
DERIVATIVE states {
    rates(v)
    m' = am*(1 - m) - bm*m
    h' = ah*(1 - h) - bh*h
    n' = an*(1 - n) - bn*n
}
PROCEDURE rates(v (mV)) {
    LOCAL q
    q = 3^((celsius - 6.3)/10)
    am = q*.1*vtrap(-(v + 40), 10)
    bm = q*4*exp(-(v + 65)/18)
    ah = q*.07*exp(-(v + 65)/20)
    bh = q/(exp(-(v + 35)/10) + 1)
    an = q*.01*vtrap(-(v + 55), 10)
    bn = q*.125*exp(-(v + 65)/80)
}
"""
    + VTRAP
)
