"""Problem constants of the FAST active reflector (CUMCM 2021 Problem A; metres unless stated).

References:
    CUMCM 2021 Problem A statement, "FAST" 主动反射面的形状调节, appendix items 1-8; the data's node radii give
    R = 300.4 m (the statement says "about 300 m").
"""

#: Radius of the base sphere, metres (|node| = 300.4 ± 0.0007 in the data).
BASE_RADIUS = 300.4
#: Focal ratio F/R: the focal surface has radius (1 - 0.466) R.
FOCAL_RATIO = 0.466
#: Radius of the working paraboloid's aperture, metres (300 m diameter).
APERTURE_RADIUS = 150.0
#: Radius of the feed cabin's effective receiving disc, metres (1 m diameter).
DISC_RADIUS = 0.5
#: Actuator travel limit |e|, metres.
MAX_EXTENSION = 0.6
#: Largest allowed relative change of every edge (main cable) length: 0.07 %.
MAX_STRAIN = 7e-4


def focal_surface_radius(radius: float = BASE_RADIUS) -> float:
    """Radius of the focal surface R_f = (1 - F/R) R = 0.534 R (160.4136 m for R = 300.4 m)."""
    return (1.0 - FOCAL_RATIO) * radius
