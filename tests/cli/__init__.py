"""Tests of the command line (showdown_service.cli), as an operator uses it."""
