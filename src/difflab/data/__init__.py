"""Data in and out: files, recordings, units, fingerprints and the shipped resources.

The package covers atomic netCDF reading and writing, NWB recordings, units of measured data, problem fingerprints,
the registry of shipped reference datasets and where shipped resources live.

The public faces are `difflab.io` (files a user reads and writes) and `difflab.datasets` (the shipped references).
"""
