"""Shared test settings: Hypothesis runs derandomized by default so that CI is repeatable.

Set HYPOTHESIS_PROFILE=explore for a longer, randomized search.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
