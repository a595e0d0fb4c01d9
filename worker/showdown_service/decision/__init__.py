"""Layer 2, the decision: the one pure step every path shares (intake, settling, decide, the audit record, the wire
format, rendering, routing, the tournament replay). Loads no redis-py (tests/project/test_architecture.py holds
it); imports only :mod:`showdown_service.infra`. See docs/architecture.md."""
