"""Tests of the read API and its pages (showdown_service.api)."""
