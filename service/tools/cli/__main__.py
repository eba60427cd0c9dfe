"""``python -m service.tools.cli``: the ``doko`` command (`service.tools.cli.main`)."""

from service.tools.cli import main

raise SystemExit(main())
