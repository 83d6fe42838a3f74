"""The channel library: the L5 pyramidal cell's mechanisms (Hay et al. 2011), one family per file.

Every channel is an [`AbstractChannel`][difflab.neuron.AbstractChannel] in difflab's units (conductances in
mS/cm², 1000 × NEURON's S/cm²; potentials mV; time ms), with the equations and defaults of its .mod file and gate
states named as NEURON names them (`m_NaTs2_t`). A single-compartment L5PC soma at 34 °C:

    from difflab.neuron import HodgkinHuxley
    from difflab.neuron.channels import CaDynamics_E2, Ca_HVA, Ca_LVAst, Ih, NaTs2_t, SK_E2, SKv3_1, pas

    cell = HodgkinHuxley(
        channels={
            "NaTs2_t": NaTs2_t(gbar=983.955), "SKv3_1": SKv3_1(gbar=303.472, E=-85.0),
            "SK_E2": SK_E2(gbar=8.407, E=-85.0), "Ca_HVA": Ca_HVA(gbar=0.994), "Ca_LVAst": Ca_LVAst(gbar=0.333),
            "Ih": Ih(gbar=0.08), "pas": pas(g=0.03, E=-75.0),
        },
        concentrations={"ca": CaDynamics_E2(gamma=0.000609, decay=210.485284)},
        celsius=34.0,
    )

Reference: Hay, Hill, Schürmann, Markram & Segev, PLoS Comput Biol 7:e1002107 (2011); ModelDB 139653.
"""

from ._gating import Q10 as Q10
from ._gating import boltzmann as boltzmann
from ._gating import inf_tau as inf_tau
from ._ions import FARADAY as FARADAY
from ._ions import GAS_CONSTANT as GAS_CONSTANT
from ._ions import AbstractConcentration as AbstractConcentration
from ._ions import nernst as nernst
from .calcium import Ca_HVA as Ca_HVA
from .calcium import Ca_LVAst as Ca_LVAst
from .calcium_dynamics import CaDynamics_E2 as CaDynamics_E2
from .hcn import Ih as Ih
from .passive import pas as pas
from .potassium import SK_E2 as SK_E2
from .potassium import Im as Im
from .potassium import K_Pst as K_Pst
from .potassium import K_Tst as K_Tst
from .potassium import SKv3_1 as SKv3_1
from .sodium import Nap_Et2 as Nap_Et2
from .sodium import NaTa_t as NaTa_t
from .sodium import NaTs2_t as NaTs2_t
