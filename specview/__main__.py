"""`python -m specview`."""

import sys

from specview.cli import main

sys.exit(main())
