"""Layer 3, the worker: the consumer loop and what it owns (state, groups, I/O, planning, housekeeping, the
inbox's ingress, the commit, the restore after a Redis loss, the tournament ledger store). Nothing is imported
here: ``import showdown_service.worker.ledger`` loads the ledger store, not the loop. See docs/architecture.md."""
