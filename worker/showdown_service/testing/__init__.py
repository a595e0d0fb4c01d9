"""Layer 6, for tests and the demo: a local Redis server on a free port, the tournament simulator. Never imported by
the service's running paths. See docs/architecture.md."""
