"""What ships with difflab: reference datasets and model presets.

The reference datasets are checked against their sha256 manifests; the model presets
(`models/<group>/<name>.toml`) are built by [`load_model`][difflab.datasets.load_model].

Each group folder (`datasets/<group>/`) holds the data files, a `README.md` (origin,
simulator and version, settings, licence, units) and a `manifest.toml`:

```toml
[files."hh_step_10uA.nc"]
sha256 = "..."
description = "..."
```

Names are `"<group>/<file stem or file name>"`, e.g. `"hh/hh_step_10uA"` or
`"fast/nodes.csv"`.
"""

from ..data.internal import DatasetError as DatasetError
from ..data.internal import PresetError as PresetError
from ..data.internal import available as available
from ..data.internal import available_presets as available_presets
from ..data.internal import load as load
from ..data.internal import load_model as load_model
from ..data.internal import path as path
from ..data.internal import preset_file as preset_file
from ..data.internal import sha256 as sha256
