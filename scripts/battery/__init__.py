"""The bad-input battery: its machinery and its cases, one file per area."""
