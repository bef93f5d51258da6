"""``python -m exactdp.cli``."""

import sys

from exactdp.cli.app import main

sys.exit(main())
