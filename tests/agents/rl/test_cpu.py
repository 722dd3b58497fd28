"""Tests of agents.rl.cpu: torch's threads and the subnormal flush of a training run."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("torch")

from agents.rl.cpu import is_flushing_subnormals, torch_on_cpu


def test_subnormals_are_flushed_inside_and_kept_outside():
    assert not is_flushing_subnormals()
    assert sys.float_info.min / 4 > 0.0
    with torch_on_cpu(1):
        assert is_flushing_subnormals()
        assert sys.float_info.min / 4 == 0.0
    assert not is_flushing_subnormals()


def test_a_flush_that_was_on_stays_on():
    with torch_on_cpu(1):
        with torch_on_cpu(1):
            pass
        assert is_flushing_subnormals()
    assert not is_flushing_subnormals()


def test_a_block_that_raises_still_undoes_the_flush():
    with pytest.raises(RuntimeError), torch_on_cpu(1):
        raise RuntimeError("training failed")
    assert not is_flushing_subnormals()
