"""Tests of agents.program: programs in any language as agents, their protocol and limits.

The programs that break the rules are small Python scripts written by the tests; they
start in a few tens of milliseconds, so the limits here are tight without being flaky.
"""
