from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _assistant_needs_a_subscription(doctors_on_trial: None) -> None:
    """The assistant is gated on the subscription; the doctors here are on trial."""
