"""``python -m exactdp``: the command line."""

import sys

from exactdp.cli.app import main

sys.exit(main())
