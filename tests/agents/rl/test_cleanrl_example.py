"""examples/cleanrl_ppo.py, the one-file masked PPO, runs on a small budget in every game."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "cleanrl_ppo.py"


@pytest.mark.parametrize(
    ("env_id", "board_size"),
    [("trap_env/Trap-v0", 4), ("trap_env/Othello-v0", 4), ("trap_env/Colosseum-v0", 4)],
)
def test_the_cleanrl_style_ppo_trains_and_plays_every_game(env_id, board_size, capsys):
    main = runpy.run_path(str(EXAMPLE), run_name="example")["main"]
    rate = main(["--env-id", env_id, "--board-size", str(board_size), "--opponent", "random",
                 "--total-timesteps", "512", "--num-envs", "8", "--num-steps", "32",
                 "--eval-games", "8"])
    assert 0.0 <= rate <= 1.0
    assert f"{env_id} {board_size}x{board_size}: 512 steps" in capsys.readouterr().out
