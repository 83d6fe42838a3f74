"""What one pass over a state vector costs, by the form of its kernel: is a gate bound by memory or by its code?

Every kernel runs 8 times in a `jax.lax.fori_loop` (so that buffers are reused as in a circuit), and the time per
pass is the median of `--rounds` rounds of `--calls` calls. The kernels, on `--qubits` qubits (complex128):

- `scale`: every amplitude times one number, in place (the floor: the state read and written once);
- `gate-slices`: a one-qubit gate as `difflab.quantum.circuits` applies it (slices of a free reshape, stacked), on
  the wires of `--wires`;
- `gate-flip`: the same gate, the partner amplitudes by a `flip` of the pair axis;
- `gate-einsum`: the same gate as a contraction;
- `diagonal`: the gate's diagonal alone, a coefficient broadcast along the pair axis;
- `halves` and `halves-planes`: the gate on wire 0 with the two halves held as separate flat arrays (no slicing), in
  complex128 and as real and imaginary float64 planes;
- `block2`, `block3` and their `-planes`: dense two- and three-qubit blocks on wires 3 and 12, in complex128 (as the
  library applies them) and on real and imaginary planes.

    python benchmarks/circuits_pass_forms.py
    python benchmarks/circuits_pass_forms.py --qubits 16 --wires 0 8
"""

from __future__ import annotations

import argparse
import time

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import difflab  # noqa: E402, F401 - XLA's settings as the library runs them
from difflab.quantum.circuits._apply import apply_matrix  # noqa: E402


def repeated(kernel):
    """`kernel` applied 8 times to its own output, compiled: a pass with the buffers reused."""
    return jax.jit(lambda state, *args: jax.lax.fori_loop(0, 8, lambda _, s: kernel(s, *args), state))


def per_pass(fn, *args, rounds: int, calls: int) -> float:
    """Median time of one pass (ms)."""
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(calls):
            out = fn(*args)
        jax.block_until_ready(out)
        times.append((time.perf_counter() - t) / calls / 8)
    return 1e3 * float(np.median(times))


def unitary(k: int, rng) -> jax.Array:
    q, _ = np.linalg.qr(rng.standard_normal((2**k, 2**k)) + 1j * rng.standard_normal((2**k, 2**k)))
    return jnp.asarray(q)


def on_planes(re, im, mr, mi, n: int, wire: int, k: int):
    """A dense k-qubit block on wires `wire … wire + k − 1` of a state held as real and imaginary planes."""
    shape = (2**wire, 2**k, 2 ** (n - wire - k))
    xr, xi = re.reshape(shape), im.reshape(shape)
    rows = range(2**k)
    out_r = [sum(mr[r, c] * xr[:, c] - mi[r, c] * xi[:, c] for c in rows) for r in rows]
    out_i = [sum(mr[r, c] * xi[:, c] + mi[r, c] * xr[:, c] for c in rows) for r in rows]
    return jnp.stack(out_r, 1).reshape(re.shape), jnp.stack(out_i, 1).reshape(im.shape)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qubits", type=int, default=20)
    parser.add_argument("--wires", type=int, nargs="+", default=[0, 4, 12, 19])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    n, timing = args.qubits, {"rounds": args.rounds, "calls": args.calls}
    rng = np.random.default_rng(0)
    flat = rng.standard_normal(2**n) + 1j * rng.standard_normal(2**n)
    state = jnp.asarray(flat.reshape((2,) * n))
    gate = unitary(1, rng)
    rows = []

    rows.append(("scale", per_pass(repeated(lambda s, g: s * g[0, 0]), state, gate, **timing)))
    for wire in args.wires:
        fn = repeated(lambda s, g, w=wire: apply_matrix(s, g, (w,)))
        rows.append((f"gate-slices, wire {wire}", per_pass(fn, state, gate, **timing)))

    def pair_view(s, wire):
        return s.reshape(2**wire, 2, -1)

    def flip(s, g, wire=args.wires[-1]):
        v = pair_view(s, wire)
        diagonal = jnp.stack([g[0, 0], g[1, 1]]).reshape(1, 2, 1)
        off = jnp.stack([g[0, 1], g[1, 0]]).reshape(1, 2, 1)
        return (diagonal * v + off * jnp.flip(v, axis=1)).reshape(s.shape)

    def contraction(s, g, wire=args.wires[-1]):
        return jnp.einsum("ij,ajb->aib", g, pair_view(s, wire)).reshape(s.shape)

    def diagonal(s, g, wire=args.wires[-1]):
        return (jnp.stack([g[0, 0], g[1, 1]]).reshape(1, 2, 1) * pair_view(s, wire)).reshape(s.shape)

    for name, kernel in (("gate-flip", flip), ("gate-einsum", contraction), ("diagonal", diagonal)):
        rows.append((f"{name}, wire {args.wires[-1]}", per_pass(repeated(kernel), state, gate, **timing)))
        if name == "gate-flip":  # the forms compute the same gate
            want = apply_matrix(state, gate, (args.wires[-1],))
            assert float(jnp.max(jnp.abs(flip(state, gate) - want))) < 1e-12
            assert float(jnp.max(jnp.abs(contraction(state, gate) - want))) < 1e-12

    half = 2 ** (n - 1)
    a, b = jnp.asarray(flat[:half]), jnp.asarray(flat[half:])

    def halves(s, g):
        return (g[0, 0] * s[0] + g[0, 1] * s[1], g[1, 0] * s[0] + g[1, 1] * s[1])

    gr, gi = jnp.real(gate), jnp.imag(gate)

    def halves_planes(s, gr, gi):
        ar, ai, br, bi = s
        return (gr[0, 0] * ar - gi[0, 0] * ai + gr[0, 1] * br - gi[0, 1] * bi,
                gr[0, 0] * ai + gi[0, 0] * ar + gr[0, 1] * bi + gi[0, 1] * br,
                gr[1, 0] * ar - gi[1, 0] * ai + gr[1, 1] * br - gi[1, 1] * bi,
                gr[1, 0] * ai + gi[1, 0] * ar + gr[1, 1] * bi + gi[1, 1] * br)  # fmt: skip

    rows.append(("halves, wire 0", per_pass(repeated(halves), (a, b), gate, **timing)))
    planes = (jnp.real(a), jnp.imag(a), jnp.real(b), jnp.imag(b))
    rows.append(("halves-planes, wire 0", per_pass(repeated(halves_planes), planes, gr, gi, **timing)))

    for k in (2, 3):
        block = unitary(k, rng)
        for wire in (3, 12):
            wires = tuple(range(wire, wire + k))
            fn = repeated(lambda s, m, w=wires: apply_matrix(s, m, w))
            rows.append((f"block{k}, wires {wire}–{wire + k - 1}", per_pass(fn, state, block, **timing)))
            fn = repeated(lambda s, mr, mi, w=wire, k=k: on_planes(s[0], s[1], mr, mi, n, w, k))
            split = (jnp.real(state), jnp.imag(state))
            got = on_planes(*split, jnp.real(block), jnp.imag(block), n, wire, k)
            want = apply_matrix(state, block, wires)
            assert float(jnp.max(jnp.abs(got[0] + 1j * got[1] - want))) < 1e-12
            per = per_pass(fn, split, jnp.real(block), jnp.imag(block), **timing)
            rows.append((f"block{k}-planes, wires {wire}–{wire + k - 1}", per))

    print(f"{n} qubits ({16 * 2**n / 2**20:.0f} MiB of complex128), jax {jax.__version__}; ms per pass:")
    for name, ms in rows:
        print(f"  {name:32s} {ms:7.2f}")


if __name__ == "__main__":
    main()
