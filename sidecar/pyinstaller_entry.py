"""PyInstaller entry point for the one-dir `skilldesk-sidecar` binary (see scripts/build-sidecar.mjs)."""

import os
import sys

from skilldesk_sidecar.__main__ import main

if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stderr.flush()
    os._exit(code)
