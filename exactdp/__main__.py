"""``python -m exactdp``: the command line."""

import sys

from exactdp.cli.main import main

sys.exit(main())
