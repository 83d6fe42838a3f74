"""Public namespace for data files (`difflab.io`): netCDF input/output and NWB current-clamp recordings."""

from .data.internal import DataFileError as DataFileError
from .data.internal import Recording as Recording
from .data.internal import ensure_writable_folder as ensure_writable_folder
from .data.internal import read_netcdf as read_netcdf
from .data.internal import read_nwb as read_nwb
from .data.internal import write_netcdf as write_netcdf
