"""Layer 2, what operators watch: metrics (one place), sampling, heartbeats, alert rules, the dashboard, ACLs.
Imports only :mod:`showdown_service.infra`. See docs/architecture.md."""
