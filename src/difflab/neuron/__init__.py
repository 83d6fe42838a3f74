"""Hodgkin–Huxley neurons: the cell, its channels, rate functions, a tailored solver and spike features.

Units throughout: mV, ms, µA/cm² (input current density), mS/cm² (conductances), µF/cm², °C.
"""

# Validation runners join difflab.validation's registry (kinds "neuron.*").
from . import _cell_validation as _cell_validation  # registers the validation kind "neuron.cell_trace"
from . import _network_validation as _network_validation  # registers "neuron.network_spikes"
from . import _validation as _validation
from ._asc import read_asc as read_asc
from ._asc_parse import ASCError as ASCError
from ._axon import replace_axon as replace_axon
from ._cable import Cell as Cell
from ._cable import Region as Region
from ._cable_solver import CableRushLarsenCN as CableRushLarsenCN
from ._cell import HodgkinHuxley as HodgkinHuxley
from ._channels import AbstractChannel as AbstractChannel
from ._channels import LeakChannel as LeakChannel
from ._channels import PotassiumChannel as PotassiumChannel
from ._channels import SodiumChannel as SodiumChannel
from ._features import firing_rate as firing_rate
from ._features import soft_spike_count as soft_spike_count
from ._features import spike_count as spike_count
from ._features import spike_times as spike_times
from ._fi import fi_curve as fi_curve
from ._fi import rheobase as rheobase
from ._morphology import Morphology as Morphology
from ._morphology import Section as Section
from ._network import Network as Network
from ._network import NetworkRushLarsenCN as NetworkRushLarsenCN
from ._nseg import with_nseg as with_nseg
from ._presets import available_presets as available_presets
from ._presets import load_preset as load_preset
from ._rates import hh_rates as hh_rates
from ._rates import q10_factor as q10_factor
from ._rates import vtrap as vtrap
from ._rates import z_over_expm1 as z_over_expm1
from ._solver import RushLarsenCN as RushLarsenCN
from ._stimulus import IClamp as IClamp
from ._swc import SWCError as SWCError
from ._swc import read_swc as read_swc
from ._synapses import AbstractSynapses as AbstractSynapses
from ._synapses import AlphaSynapses as AlphaSynapses
from ._synapses import Exp2Synapses as Exp2Synapses
from ._synapses import ExpSynapses as ExpSynapses
