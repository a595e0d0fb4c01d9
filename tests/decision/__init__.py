"""Tests of the pure decision (showdown_service.decision): intake, settling, the result, the twin."""
