"""Tests of metrics, ACLs, TLS (showdown_service.ops)."""
