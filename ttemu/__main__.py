import sys

from .cmd.cli import main

sys.exit(main())
