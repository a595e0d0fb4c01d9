"""Tests of hand-history readers and replay (showdown_service.histories)."""
