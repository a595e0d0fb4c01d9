"""Tests of the pure core (showdown_core): cards, evaluators, pots, settlement, rules."""
