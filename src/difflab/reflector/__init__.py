"""The FAST active reflector (CUMCM 2021 Problem A).

Geometry, working paraboloid, constraints, receiving ratio, shape optimisation and actuator dynamics. Lengths in
metres, angles in degrees, time in seconds.
"""

# Validation runners join difflab.validation's registry (kinds "reflector.*").
from . import _validation as _validation
from ._answers import extensions_from_dataset as extensions_from_dataset
from ._answers import solution_dataset as solution_dataset
from ._constants import APERTURE_RADIUS as APERTURE_RADIUS
from ._constants import BASE_RADIUS as BASE_RADIUS
from ._constants import DISC_RADIUS as DISC_RADIUS
from ._constants import MAX_EXTENSION as MAX_EXTENSION
from ._constants import MAX_STRAIN as MAX_STRAIN
from ._constants import focal_surface_radius as focal_surface_radius
from ._constraints import ConstraintReport as ConstraintReport
from ._constraints import check_constraints as check_constraints
from ._constraints import edge_strain as edge_strain
from ._edges import unique_edges as unique_edges
from ._fit import fit_zones as fit_zones
from ._geometry import Geometry as Geometry
from ._kinematics import extension_for_displacement as extension_for_displacement
from ._kinematics import node_displacement as node_displacement
from ._kinematics import node_positions as node_positions
from ._maximise import AugmentedLagrangian as AugmentedLagrangian
from ._maximise import maximise_ratio as maximise_ratio
from ._observation import simulate_tracking as simulate_tracking
from ._paraboloid import displacement_to_paraboloid as displacement_to_paraboloid
from ._paraboloid import focal_length as focal_length
from ._paraboloid import ideal_extensions as ideal_extensions
from ._paraboloid import paraboloid_height as paraboloid_height
from ._paraboloid import vertex as vertex
from ._pointing import Pointing as Pointing
from ._project import project_feasible as project_feasible
from ._raytrace import panel_hit_fraction as panel_hit_fraction
from ._raytrace import projected_area as projected_area
from ._raytrace import receiving_ratio as receiving_ratio
from ._sampling import barycentric_grid as barycentric_grid
from ._servo import ActuatorServo as ActuatorServo
from ._servo_fit import fit_servo as fit_servo
from ._servo_fit import step_command as step_command
from ._servo_fit import synthetic_step_response as synthetic_step_response
from ._solve import CONVERGED_SAMPLES as CONVERGED_SAMPLES
from ._solve import Solution as Solution
from ._solve import solve as solve
from ._source import feed_position as feed_position
from ._source import source_direction as source_direction
from ._tracking import TrackingTarget as TrackingTarget
from ._tracking import sky_track as sky_track
from ._xlsx import read_result_extensions as read_result_extensions
from ._xlsx import write_result_xlsx as write_result_xlsx
from ._xlsx import write_solution_xlsx as write_solution_xlsx
from ._zones import search_zones as search_zones
from ._zones import stepped_start as stepped_start
