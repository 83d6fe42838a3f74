"""Public namespace for netCDF input/output (``difflab.io``)."""

from ._io import DataFileError as DataFileError
from ._io import read_netcdf as read_netcdf
from ._io import write_netcdf as write_netcdf
