"""Battery cases, classes 5, 10: gate circuits (states, angles, channels and gates, concrete and traced)."""

from __future__ import annotations

from battery.framework import case  # noqa: F401
