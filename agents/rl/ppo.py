"""The ``ppo`` agent: a MaskablePPO policy trained on ``trap_env/Trap-v0``, played on CPU.

It plays either seat and both phases: the state is turned into the env's observation from
the acting player's side (:func:`trap_env.observation.observe`) and the policy always
sees the legal-action mask, so it never picks an illegal move or throw.

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("ppo")                                   # the bundled 7x7 model
    >>> agent = make_agent("ppo:path=runs/x/best/best_model.zip,deterministic=false", seed=1)

torch and sb3-contrib (the ``rl`` extra) are imported only when a ``ppo`` agent is built,
so ``import agents`` works without them.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import SeededAgent, UnsupportedGameError
from trap_env.core import Cell, GameConfig, Phase, State

__all__ = ["DEFAULT_MODEL", "IncompatibleModelError", "PPOAgent", "load_policy"]

DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "ppo_7x7.zip"
"""The bundled policy for the default 7x7 board."""


class IncompatibleModelError(ValueError):
    """A model file that is not a readable MaskablePPO zip of a Trap! policy."""


class PPOAgent(SeededAgent):
    """A trained MaskablePPO policy behind the agent interface.

    Args:
        path: the model zip saved by MaskablePPO; by default the bundled 7x7 model.
        deterministic: play the most probable legal action (True) or sample one from the
            masked policy with the agent's own seeded generator (False).
        device: the torch device; "cpu" is all a 7x7 policy needs.
        seed: seeds the generator used when ``deterministic`` is False.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleModelError: if the file is not a MaskablePPO model zip for
            ``(N, N, planes)`` observations, or is damaged.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        deterministic: bool = True,
        device: str = "cpu",
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.path = Path(path) if path is not None else DEFAULT_MODEL
        self.deterministic = deterministic
        self.policy = load_policy(self.path, device)
        self.board_size = int(self.policy.observation_space.shape[0])

    def check_game(self, config: GameConfig) -> None:
        """Refuse a board of another size than the network's (its input is the whole board).

        Raises:
            UnsupportedGameError: naming the network's board size.
        """
        self._check_board_size(config.board_size)

    def _check_board_size(self, size: int) -> None:
        if size != self.board_size:
            raise UnsupportedGameError(
                f"the ppo model {self.path} plays only {self.board_size}x{self.board_size} "
                f"boards (its network's input); this game is {size}x{size}. Train one for "
                f"this size with trap-train --board-size {size}"
            )

    def select_action(self, state: State) -> Cell:
        """The policy's move or throw for the player to act, among the legal ones.

        Raises:
            UnsupportedGameError: for a board of another size than the network's.
            ValueError: for a state that is not a MOVE or THROW of a running game.
        """
        probabilities = self.action_probabilities(state)
        if self.deterministic:
            return int(np.argmax(probabilities))
        return int(self.rng.choices(range(len(probabilities)), weights=probabilities.tolist())[0])

    def action_probabilities(self, state: State) -> np.ndarray:
        """The masked policy's probability of each flat cell (zero on illegal ones)."""
        import torch

        from trap_env.observation import action_mask, observe

        self._check_state(state)
        observation = observe(state, state.player)
        mask = np.asarray(action_mask(state), dtype=bool)
        with torch.no_grad():
            tensor, _ = self.policy.obs_to_tensor(observation)
            distribution = self.policy.get_distribution(tensor, action_masks=mask[None])
            probabilities = distribution.distribution.probs[0].cpu().numpy()
        probabilities = np.where(mask, probabilities, 0.0)
        return np.asarray(probabilities / probabilities.sum(), dtype=np.float64)

    def _check_state(self, state: State) -> None:
        self._check_board_size(state.board_size)
        if state.phase not in (Phase.MOVE, Phase.THROW) or state.winner != -1:
            raise ValueError(
                f"a ppo agent acts in phase MOVE or THROW of a running game, got phase "
                f"{state.phase.name}" + (" (game over)" if state.winner != -1 else "")
            )


def load_policy(path: str | Path, device: str = "cpu") -> Any:
    """The MaskablePPO policy network saved in ``path``, in eval mode, on ``device``.

    Only the policy is rebuilt (no algorithm, no optimiser, no env), which is all that
    playing needs.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleModelError: if the file is not a MaskablePPO zip, its parameters
            cannot be read, or its observations are not ``(N, N, planes)`` boards with N*N
            actions.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"no PPO model at {path}; give the zip that MaskablePPO.save wrote "
            f"(ppo:path=...), or omit path for the bundled {DEFAULT_MODEL.name}"
        )
    data, params = _read_zip(path)
    policy_class = data.get("policy_class")
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    if not (isinstance(policy_class, type) and issubclass(policy_class, MaskableActorCriticPolicy)):
        name = getattr(policy_class, "__name__", repr(policy_class))
        raise IncompatibleModelError(
            f"{path} holds a {name} policy, not a MaskablePPO one "
            "(MaskableActorCriticPolicy); the ppo agent needs masked predictions"
        )
    observation_space, action_space = data["observation_space"], data["action_space"]
    _check_spaces(path, observation_space, action_space)
    kwargs = {k: v for k, v in data.get("policy_kwargs", {}).items() if k != "device"}
    try:
        policy = policy_class(observation_space, action_space, lambda _: 0.0, **kwargs)
        policy.load_state_dict(params["policy"])
    except (TypeError, ValueError, RuntimeError) as error:
        raise IncompatibleModelError(
            f"{path} was saved with a network that this version of the code cannot rebuild "
            f"({error}); retrain it with trap-train"
        ) from error
    return policy.to(device).eval()


def _read_zip(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        data, params, _ = load_from_zip_file(path, device="cpu")
    except (zipfile.BadZipFile, ValueError, KeyError) as error:
        raise IncompatibleModelError(
            f"{path} is not a model zip saved by MaskablePPO.save ({error})"
        ) from error
    except (pickle.UnpicklingError, RuntimeError, EOFError) as error:
        # torch.load's own message is a screen of advice (for pickles: to load them unsafely).
        raise IncompatibleModelError(
            f"{path} is damaged: the PyTorch parameters in it (policy.pth) cannot be read "
            f"({type(error).__name__}); save the model again or use another copy"
        ) from error
    if not data or not params or "policy" not in params or "observation_space" not in data:
        raise IncompatibleModelError(
            f"{path} is a zip but not a saved MaskablePPO model (no policy parameters or "
            "observation space in it)"
        )
    return data, params


def _check_spaces(path: Path, observation_space: Any, action_space: Any) -> None:
    shape = tuple(getattr(observation_space, "shape", ()) or ())
    cells = getattr(action_space, "n", None)
    if len(shape) != 3 or shape[0] != shape[1] or cells != shape[0] * shape[1]:
        raise IncompatibleModelError(
            f"{path} was trained on observations {shape} with actions {action_space}; a "
            "Trap! policy has (N, N, planes) observations and Discrete(N*N) actions"
        )
