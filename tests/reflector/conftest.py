"""Fixtures shared by the reflector tests: the FAST geometry and the two contest pointings."""

import numpy as np
import pytest

from difflab import reflector as rf

Q2_ANGLES = (36.795, 78.169)


@pytest.fixture(scope="session")
def geometry():
    return rf.Geometry.fast()


@pytest.fixture(scope="session")
def zenith(geometry):
    return rf.Pointing.from_angles(geometry, 0.0, 90.0)


@pytest.fixture(scope="session")
def q2(geometry):
    return rf.Pointing.from_angles(geometry, *Q2_ANGLES)


@pytest.fixture(scope="session")
def paraboloid_q2(geometry, q2):
    """Extensions putting every aperture node on the ideal paraboloid of depth 300.8 m (others at 0)."""
    mu = np.asarray(rf.ideal_extensions(geometry, q2.s, 300.8))
    return np.where(np.asarray(q2.nodes_inside), mu, 0.0)
