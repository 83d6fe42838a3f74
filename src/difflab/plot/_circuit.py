"""A circuit's wire diagram with matplotlib: the layout and glyphs of `Circuit.draw`, as a figure.

Wires run left to right, q0 at the top; each column of the diagram (`Circuit.moments()`) is as wide as its
longest label. Controls are dots (filled on 1, open on 0), a controlled X's target is ⊕, a swap's ends are ×, every
other operation is a labelled box; a vertical line joins the wires of one operation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._matplotlib import axes_for

_EXPECTED = "a difflab.quantum.circuits.Circuit"
_BOX = {"boxstyle": "square,pad=0.3", "facecolor": "white", "edgecolor": "0.2", "lw": 0.8}


def circuit(circuit: Any, *, ax: Any = None) -> Any:
    """Draw `circuit` as a wire diagram.

    Args:
        circuit: a [`Circuit`][difflab.quantum.circuits.Circuit] (gates and channels).
        ax: a matplotlib `Axes` to draw into; default a new figure sized to the circuit.

    Returns:
        The `Axes`: one horizontal line per wire (y tick labels q0, q1, …), one text artist per boxed label.

    Raises:
        TypeError: `circuit` is not a Circuit.
    """
    if not callable(getattr(type(circuit), "moments", None)) or not isinstance(getattr(circuit, "n_wires", None), int):
        raise TypeError(f"circuit must be {_EXPECTED}; got {type(circuit).__name__}")
    columns, n = circuit.moments(), circuit.n_wires
    widths = [0.5 + 0.12 * max(len(g) for _, glyphs in col for g in glyphs.values()) for col in columns]
    centres = np.cumsum([0.0, *widths])[:-1] + 0.5 * np.asarray(widths) + 0.3
    right = float(centres[-1] + 0.5 * widths[-1] + 0.3) if columns else 1.0
    ax = axes_for(ax, (max(3.0, 1.2 * right), 0.55 * n + 0.5))
    for w in range(n):
        ax.plot([0, right], [-w, -w], color="0.3", lw=1, zorder=0)
    for x, column in zip(centres, columns, strict=True):
        for _, glyphs in column:
            _operation(ax, float(x), glyphs)
    ax.set(xlim=(0, right), ylim=(-n + 0.4, 0.6), xticks=[])
    ax.set_yticks(-np.arange(n), [f"q{w}" for w in range(n)])
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(left=False)
    return ax


def _operation(ax: Any, x: float, glyphs: dict[int, str]) -> None:
    ws = sorted(glyphs)
    if len(ws) > 1:
        ax.plot([x, x], [-ws[0], -ws[-1]], color="0.2", lw=1, zorder=1)
    for w, glyph in glyphs.items():
        if glyph in ("●", "○"):
            ax.plot(x, -w, "o", ms=7, color="0.2", mfc="0.2" if glyph == "●" else "white", zorder=2)
        elif glyph == "⊕":
            ax.plot(x, -w, "o", ms=13, color="0.2", mfc="white", zorder=2)
            ax.plot(x, -w, "+", ms=13, color="0.2", mew=1, zorder=3)
        elif glyph == "×":
            ax.plot(x, -w, "x", ms=9, color="0.2", mew=1.5, zorder=2)
        else:
            ax.text(x, -w, glyph, ha="center", va="center", fontsize=9, bbox=_BOX, zorder=3)
