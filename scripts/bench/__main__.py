#!/usr/bin/env python3
"""python3 -m scripts.bench (from the repository root), or run this file."""

import os
import sys

if not __package__:  # run as a file: import the package from the repository root
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from scripts.bench.cli import main  # noqa: E402

sys.exit(main())
