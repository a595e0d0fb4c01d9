"""``python -m showdown_service``: the same as the ``showdown`` command."""

import sys

from showdown_service.cli.launch import main

sys.exit(main())
