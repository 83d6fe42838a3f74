"""Public namespace for data files (`difflab.io`): netCDF input/output and NWB current-clamp recordings."""

from .data._netcdf import DataFileError as DataFileError
from .data._netcdf import ensure_writable_folder as ensure_writable_folder
from .data._netcdf import read_netcdf as read_netcdf
from .data._netcdf import write_netcdf as write_netcdf
from .data._nwb import Recording as Recording
from .data._nwb import read_nwb as read_nwb
