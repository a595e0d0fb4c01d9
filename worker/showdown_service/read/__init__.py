"""Layer 5, the read side: answers from the output streams (dead letters, the requeue's guard, health). Above the
archive, below the API and the CLI. See docs/architecture.md."""
