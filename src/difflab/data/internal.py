"""The internal face of `data`: what the other folders of difflab may import from it.

The data layer as the rest of difflab uses it: atomic netCDF reads and writes, NWB recordings, fingerprints
of inputs and callables (what makes a stored result reusable), the dataset registry and presets, units and the
package's resource folder.

Siblings import from here, never from this folder's underscore modules (`scripts/check_layout.py`).
"""

from ._fingerprint import callable_identity as callable_identity
from ._fingerprint import dataset_checksum as dataset_checksum
from ._fingerprint import tree_fingerprint as tree_fingerprint
from ._netcdf import DataFileError as DataFileError
from ._netcdf import checkpoint_path as checkpoint_path
from ._netcdf import ensure_writable_folder as ensure_writable_folder
from ._netcdf import listed as listed
from ._netcdf import read_checkpoint as read_checkpoint
from ._netcdf import read_netcdf as read_netcdf
from ._netcdf import umask as umask
from ._netcdf import write_netcdf as write_netcdf
from ._nwb import Recording as Recording
from ._nwb import read_nwb as read_nwb
from ._presets import PresetError as PresetError
from ._presets import available_presets as available_presets
from ._presets import load_model as load_model
from ._presets import preset_file as preset_file
from ._registry import DatasetError as DatasetError
from ._registry import available as available
from ._registry import load as load
from ._registry import path as path
from ._registry import sha256 as sha256
from ._resources import resource_dir as resource_dir
from ._units import conversion_factor as conversion_factor
