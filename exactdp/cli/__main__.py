"""``python -m exactdp.cli``."""

import sys

from exactdp.cli.main import main

sys.exit(main())
