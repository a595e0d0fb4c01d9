"""Benchmarks: showdown side by side with its peers, in one run, reported as ratios.

The machine is shared and noisy, so absolute times wander; ratios measured
in the same run, with rounds interleaved, are what we compare.
"""
