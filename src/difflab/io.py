"""Public namespace for data files (``difflab.io``): netCDF input/output and NWB current-clamp recordings."""

from ._io import DataFileError as DataFileError
from ._io import read_netcdf as read_netcdf
from ._io import write_netcdf as write_netcdf
from ._nwb import Recording as Recording
from ._nwb import read_nwb as read_nwb
