"""`python -m difflab.cli`: the same as the `difflab` command."""

from . import main

main()
