"""`python -m flipnet` is the `flipnet` command."""

from flipnet.cli import main

raise SystemExit(main())
