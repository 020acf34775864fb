"""`python -m flipnet` is the `flipnet` command."""

import sys

try:
    from flipnet.cli import main
except KeyboardInterrupt:  # Ctrl-C before main() installs its own handler (numpy loading)
    print("flipnet: interrupted", file=sys.stderr)
    raise SystemExit(130)

raise SystemExit(main())
