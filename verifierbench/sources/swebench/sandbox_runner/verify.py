"""Entry point of a harness test run in the sandbox (the executor runs a `verify.py`)."""

from run_tests import main

main()
