"""``python -m schedcc`` runs the command line."""

import sys

from schedcc.cli import main

sys.exit(main())
