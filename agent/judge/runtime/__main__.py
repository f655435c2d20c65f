"""`python -m agent.judge.runtime`: see `agent.judge.runtime.cli`."""

import sys

from agent.judge.runtime.cli import main

sys.exit(main())
