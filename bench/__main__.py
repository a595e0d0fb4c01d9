"""Run every benchmark: ``python -m bench``."""

from bench import evaluator

print(evaluator.report())
