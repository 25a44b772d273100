"""`python -m sleuth.cli`: the console entry point, for environments without the script."""

from . import run

if __name__ == "__main__":  # not when worker processes re-import the main module
    run()
