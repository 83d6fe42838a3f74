import numpy as np
import pytest

from difflab import reflector as rf


def test_q2_direction_and_feed(q2):
    np.testing.assert_allclose(q2.s, [0.164181, 0.122801, 0.978757], atol=1e-6)
    np.testing.assert_allclose(q2.focus, [-26.337, -19.699, -157.006], atol=1e-3)


def test_zenith_feed(zenith):
    np.testing.assert_allclose(zenith.focus, [0.0, 0.0, -160.4136], atol=1e-4)
    assert rf.focal_surface_radius() == pytest.approx(160.4136)


def test_aperture_counts(zenith, q2):
    assert int(zenith.nodes_inside.sum()) == 706
    assert int(q2.nodes_inside.sum()) == 692
    assert zenith.panels_inside.shape == (1325,)
    assert q2.panels_inside.shape == (1295,)


def test_inside_ids(geometry, zenith):
    ids = zenith.inside_ids(geometry)
    assert len(ids) == 706 and ids[0] == "A0"


@pytest.mark.parametrize(
    ("alpha", "beta", "name"),
    [(-1.0, 80.0, "alpha"), (400.0, 80.0, "alpha"), (10.0, 95.0, "beta"), (0, np.nan, "beta")],
)
def test_bad_angles(geometry, alpha, beta, name):
    with pytest.raises(ValueError, match=name):
        rf.Pointing.from_angles(geometry, alpha, beta)
