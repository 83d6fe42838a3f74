"""Hodgkin–Huxley neurons: the cell, its channels, rate functions, a tailored solver and spike features.

Units throughout: mV, ms, µA/cm² (input current density), mS/cm² (conductances), µF/cm², °C.
"""

import warnings

# Validation runners join difflab.validation's registry (kinds "neuron.*").
from . import _presets
from . import _validation as _validation
from . import _validation_cell_network as _validation_cell_network
from . import _validation_l5pc as _validation_l5pc
from . import channels as channels
from ._asc import read_asc as read_asc
from ._asc_parse import ASCError as ASCError
from ._axon import replace_axon as replace_axon
from ._cable_solver import CableRushLarsenCN as CableRushLarsenCN
from ._cell import Cell as Cell
from ._cell import Region as Region
from ._cell_network import CellNetwork as CellNetwork
from ._cell_network_solver import CellNetworkRushLarsenCN as CellNetworkRushLarsenCN
from ._channels import AbstractChannel as AbstractChannel
from ._channels import LeakChannel as LeakChannel
from ._channels import PotassiumChannel as PotassiumChannel
from ._channels import SodiumChannel as SodiumChannel
from ._distributions import AbstractDistribution as AbstractDistribution
from ._distributions import Exponential as Exponential
from ._distributions import Linear as Linear
from ._distributions import Sigmoid as Sigmoid
from ._distributions import Uniform as Uniform
from ._distributions import Window as Window
from ._efeatures import FeatureSettings as FeatureSettings
from ._efeatures import spike_features as spike_features
from ._feature_loss import SpikeFeatures as SpikeFeatures
from ._features import firing_rate as firing_rate
from ._features import soft_spike_count as soft_spike_count
from ._features import spike_count as spike_count
from ._features import spike_times as spike_times
from ._fi import fi_curve as fi_curve
from ._fi import rheobase as rheobase
from ._gap_junctions import GapJunctions as GapJunctions
from ._hodgkin_huxley import HodgkinHuxley as HodgkinHuxley
from ._l5pc import l5pc as l5pc
from ._morphology import Morphology as Morphology
from ._morphology import Section as Section
from ._network import Network as Network
from ._network import NetworkRushLarsenCN as NetworkRushLarsenCN
from ._nmda import NMDASynapses as NMDASynapses
from ._nmda import magnesium_block as magnesium_block
from ._nmodl import AbstractNMODLChannel as AbstractNMODLChannel
from ._nmodl import read_nmodl as read_nmodl
from ._nmodl_concentration import AbstractNMODLConcentration as AbstractNMODLConcentration
from ._nmodl_lex import NMODLError as NMODLError
from ._nseg import with_nseg as with_nseg
from ._plasticity import TsodyksMarkram as TsodyksMarkram
from ._presets import load_preset as load_preset
from ._presets import preset_names as preset_names
from ._rates import hh_rates as hh_rates
from ._rates import q10_factor as q10_factor
from ._rates import vtrap as vtrap
from ._rates import z_over_expm1 as z_over_expm1
from ._solver import RushLarsenCN as RushLarsenCN
from ._stimulus import IClamp as IClamp
from ._swc import SWCError as SWCError
from ._swc import read_swc as read_swc
from ._synapses import AbstractSynapses as AbstractSynapses
from ._synapses import AbstractTwoStateSynapses as AbstractTwoStateSynapses
from ._synapses import AlphaSynapses as AlphaSynapses
from ._synapses import Exp2Synapses as Exp2Synapses
from ._synapses import ExpSynapses as ExpSynapses
from .channels import Q10 as Q10
from .channels import SK_E2 as SK_E2
from .channels import AbstractConcentration as AbstractConcentration
from .channels import Ca_HVA as Ca_HVA
from .channels import Ca_LVAst as Ca_LVAst
from .channels import CaDynamics_E2 as CaDynamics_E2
from .channels import Ih as Ih
from .channels import Im as Im
from .channels import K_Pst as K_Pst
from .channels import K_Tst as K_Tst
from .channels import Nap_Et2 as Nap_Et2
from .channels import NaTa_t as NaTa_t
from .channels import NaTs2_t as NaTs2_t
from .channels import SKv3_1 as SKv3_1
from .channels import pas as pas


def __getattr__(name: str):
    if name == "available_presets":  # deprecated: one meaning of the name, difflab.datasets.available_presets
        warnings.warn(
            "difflab.neuron.available_presets is deprecated and goes at 0.3: use "
            'difflab.datasets.available_presets("hodgkin_huxley") (names "hodgkin_huxley/<name>", which load_preset '
            "takes too)",
            DeprecationWarning,
            stacklevel=2,
        )
        return _presets.preset_names
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
