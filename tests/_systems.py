"""The small exact systems the tests share (see tests/README.md for each one's closed-form solution)."""

from typing import ClassVar

import jax.numpy as jnp
import numpy as np

import difflab
from difflab.neuron.channels import SK_E2, Ca_HVA, Ca_LVAst, CaDynamics_E2, Ih, NaTs2_t, SKv3_1, pas


class Relaxation(difflab.AbstractModel):
    """tau dy/dt = -y + u(t): first-order relaxation towards the input u (exact solutions known)."""

    tau: jnp.ndarray
    y_init: jnp.ndarray
    states = (difflab.StateInfo("y", "mV", "relaxing variable"),)
    time_units = "ms"

    def __init__(self, tau=2.0, y_init=1.0):
        self.tau = jnp.asarray(tau, dtype=jnp.result_type(tau, float))
        self.y_init = jnp.asarray(y_init, dtype=jnp.result_type(y_init, float))

    def vector_field(self, t, y, args):
        u = 0.0 if args is None else args(t)
        return {"y": (u - y["y"]) / self.tau}

    def initial_state(self):
        return {"y": self.y_init}


def step_response(t, tau, y0, amplitude, start, stop):
    """Exact solution of tau y' = -y + A 1[start <= t < stop] with y(0) = y0."""
    free = y0 * jnp.exp(-t / tau)
    rise = amplitude * (1 - jnp.exp(-(jnp.clip(t, start, stop) - start) / tau))
    decay = jnp.exp(-(jnp.maximum(t, stop) - stop) / tau)
    return free + rise * decay


class Decay(difflab.AbstractModel):
    """dy/dt = -k y + u(t), y(0) = y0; with u = 0 the exact solution is y0 exp(-k t)."""

    k: jnp.ndarray
    y0: jnp.ndarray
    states = (difflab.StateInfo("y", "mV", "decaying variable"),)
    time_units = "ms"
    aliases: ClassVar[dict[str, str]] = {"rate": "k"}
    parameter_units: ClassVar[dict[str, str]] = {"k": "1/ms", "rate": "1/ms", "y0": "mV"}

    def __init__(self, k=0.5, y0=2.0):
        self.k = jnp.asarray(k, dtype=float)
        self.y0 = jnp.asarray(y0, dtype=float)

    def vector_field(self, t, y, args):
        u = 0.0 if args is None else args(t)
        return {"y": -self.k * y["y"] + u}

    def initial_state(self):
        return {"y": self.y0}


class Line(difflab.AbstractModel):
    """dy/dt = a, y(0) = b: the straight line y = a t + b (a linear model in its parameters)."""

    a: jnp.ndarray
    b: jnp.ndarray
    states = (difflab.StateInfo("y", "mV", "straight line"),)
    time_units = "ms"
    parameter_units: ClassVar[dict[str, str]] = {"a": "mV/ms", "b": "mV"}

    def __init__(self, a=1.0, b=0.0):
        self.a = jnp.asarray(a, dtype=float)
        self.b = jnp.asarray(b, dtype=float)

    def vector_field(self, t, y, args):
        return {"y": self.a + 0.0 * y["y"]}

    def initial_state(self):
        return {"y": self.b}


def decay_data(k=0.5, y0=2.0, n=41, t1=8.0, noise=0.0, seed=0):
    """Exact samples of y0 exp(-k t) (plus Gaussian noise) as a dict with 'time'."""
    ts = np.linspace(0.0, t1, n)
    y = y0 * np.exp(-k * ts) + noise * np.random.default_rng(seed).standard_normal(n)
    return {"time": ts, "y": y}


class OtherDecay(difflab.AbstractModel):
    """The same equation under another class (a checkpoint of Decay must not resume it)."""

    k: jnp.ndarray
    y0: jnp.ndarray
    states = (difflab.StateInfo("y", "mV", "decaying variable"),)
    time_units = "ms"

    def __init__(self, k=0.5, y0=2.0):
        self.k = jnp.asarray(k, dtype=float)
        self.y0 = jnp.asarray(y0, dtype=float)

    def vector_field(self, t, y, args):
        return {"y": -self.k * y["y"]}

    def initial_state(self):
        return {"y": self.y0}


def l5pc_soma_channels() -> dict:
    """BluePyOpt's released somatic L5PC densities (S/cm² × 1000 = mS/cm²): `l5pc_channels.nc`'s current clamp."""
    return {
        "NaTs2_t": NaTs2_t(gbar=983.955),
        "SKv3_1": SKv3_1(gbar=303.472, E=-85.0),
        "SK_E2": SK_E2(gbar=8.407, E=-85.0),
        "Ca_HVA": Ca_HVA(gbar=0.994),
        "Ca_LVAst": Ca_LVAst(gbar=0.333),
        "Ih": Ih(gbar=0.08),
        "pas": pas(g=0.03, E=-75.0),
    }


def l5pc_soma_calcium() -> dict:
    """The somatic calcium pool of the same cell (BluePyOpt's released gamma and decay)."""
    return {"ca": CaDynamics_E2(gamma=0.000609, decay=210.485284)}


class Ishigami(difflab.AbstractModel):
    """dy/dt = f(x1, x2, x3), y(0) = 0, so y(1) = f: the Ishigami function as a model that `sweep` can run.

    f = sin x1 + a sin^2 x2 + b x3^4 sin x1 (Ishigami & Homma 1990), x_i uniform on [-pi, pi]; its Sobol'
    indices and the integrals of its squared partial derivatives are known in closed form (tests/README.md).
    A constant vector field is integrated exactly by any Runge-Kutta step, so y(1) is f to rounding.
    """

    x1: jnp.ndarray
    x2: jnp.ndarray
    x3: jnp.ndarray
    a: jnp.ndarray
    b: jnp.ndarray
    states = (difflab.StateInfo("y", "1", "integral of f"),)
    time_units = "s"

    def __init__(self, x1=0.0, x2=0.0, x3=0.0, a=7.0, b=0.1):
        self.x1, self.x2, self.x3, self.a, self.b = (jnp.asarray(v, dtype=float) for v in (x1, x2, x3, a, b))

    def vector_field(self, t, y, args):
        s1 = jnp.sin(self.x1)
        return {"y": s1 + self.a * jnp.sin(self.x2) ** 2 + self.b * self.x3**4 * s1}

    def initial_state(self):
        return {"y": jnp.zeros(())}


# Closed-form sensitivity figures of Ishigami (a = 7, b = 0.1, x_i uniform on [-pi, pi]); Sobol' & Levitan 1999,
# Saltelli et al. 2008 (Global Sensitivity Analysis: The Primer): V1 = (1 + b pi^4 / 5)^2 / 2, V2 = a^2 / 8, V3 = 0,
# V13 = 8 b^2 pi^8 / 225, V = V1 + V2 + V13; mean squared partials E[(df/dx1)^2] = (1 + 2 b pi^4 / 5 + b^2 pi^8 / 9)
# / 2, E[(df/dx2)^2] = a^2 / 2, E[(df/dx3)^2] = 8 b^2 pi^6 / 7.
ISHIGAMI_BOUNDS = {"x1": (-np.pi, np.pi), "x2": (-np.pi, np.pi), "x3": (-np.pi, np.pi)}
_V1, _V2, _V13 = 0.5 * (1 + 0.1 * np.pi**4 / 5) ** 2, 7.0**2 / 8, 8 * 0.1**2 * np.pi**8 / 225
ISHIGAMI_FIRST = np.array([_V1, _V2, 0.0]) / (_V1 + _V2 + _V13)
ISHIGAMI_TOTAL = np.array([_V1 + _V13, _V2, _V13]) / (_V1 + _V2 + _V13)
ISHIGAMI_NU = np.array(
    [0.5 * (1 + 2 * 0.1 * np.pi**4 / 5 + 0.1**2 * np.pi**8 / 9), 7.0**2 / 2, 8 * 0.1**2 * np.pi**6 / 7]
)
