"""Tests of the read side (showdown_service.read): dead letters and their requeue."""
