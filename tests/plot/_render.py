"""Render a figure to PNG in memory (matplotlib's Agg canvas; no pyplot, no display)."""

import io


def render(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=50)
    png = buffer.getvalue()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    return png
