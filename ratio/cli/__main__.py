"""``python -m ratio.cli``: the same command line as the ``ratio`` script."""

from ratio.cli import main

main()
