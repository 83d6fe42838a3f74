"""Plots one call away: fits, posteriors, sweeps, sensitivities, F–I curves, spikes, cells, reflector, quantum.

Every function draws into a matplotlib `Axes` (or `Figure`) passed as `ax=` / `fig=`, or into a new one, and
returns it; axes are labelled with names and units read from the data's `units` attributes. matplotlib is imported
on first use (install it with `pip install 'difflab[plot]'`); no pyplot state is touched. The validation report
draws its figures with these functions too. `wigner` draws a single mode's Wigner function over phase space.
"""

from ._calibration import calibration as calibration
from ._cell import bap as bap
from ._cell import morphology as morphology
from ._circuit import circuit as circuit
from ._fi import fi_curve as fi_curve
from ._matplotlib import new_figure as new_figure
from ._overlay import MODEL_STYLE as MODEL_STYLE
from ._overlay import REFERENCE_STYLE as REFERENCE_STYLE
from ._overlay import overlay as overlay
from ._overlay import png_base64 as png_base64
from ._phase_space import wigner as wigner
from ._posterior import posterior as posterior
from ._quantum import bloch as bloch
from ._quantum import populations as populations
from ._reflector import reflector as reflector
from ._sensitivity import sensitivity as sensitivity
from ._spikes import spike_features as spike_features
from ._sweep import sweep as sweep
from ._trajectory import trajectory as trajectory
