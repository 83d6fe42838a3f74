"""Battery cases, classes 5, 13: multi-compartment cells, morphologies and NWB recordings."""

from __future__ import annotations

from battery.framework import case  # noqa: F401
