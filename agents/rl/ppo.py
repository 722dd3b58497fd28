"""The ``ppo`` agent: a MaskablePPO policy trained on ``trap_env/Trap-v0``, played on CPU.

It plays either seat and both phases: the state is turned into the env's observation from
the acting player's side (:func:`trap_env.trap.observation.observe`) and the policy always
sees the legal-action mask, so it never picks an illegal move or throw.

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("ppo", game="trap")  # the bundled 7x7 model
    >>> spec = "ppo:path=runs/x/best/best_model.zip,deterministic=false"
    >>> agent = make_agent(spec, game="trap", seed=1)

torch and sb3-contrib (the ``rl`` extra) are imported only when a ``ppo`` agent is built,
so ``import agents`` works without them.
"""

from __future__ import annotations

import base64
import binascii
import json
import pickle
import pickletools
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.seeded import SeededAgent
from trap_env.agent import UnsupportedGameError
from trap_env.trap.core import Cell, GameConfig, Phase, State

__all__ = [
    "DEFAULT_MODEL",
    "IncompatibleModelError",
    "ModelSpec",
    "PPOAgent",
    "load_policy",
    "read_model_spec",
    "read_parameters",
]

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "trap" / "models" / "ppo_7x7.zip"
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

    def batched(self) -> BatchedPolicy:
        """The same policy for many games of the batched env at once: the most probable
        legal action, or one sampled with the batch's random word of each game."""
        return BatchedPolicy(self.policy, self.deterministic)

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

        from trap_env.trap.observation import action_mask, observe

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


class BatchedPolicy:
    """A ``ppo`` agent's policy as an opponent in the batched env
    (:class:`trap_env.batched_opponents.BatchOpponent`), for all its games in one forward
    pass. Sampling draws each game's action from its random word (inverse transform over
    the masked probabilities), so a game's course depends on its own stream only."""

    checked = True

    def __init__(self, policy: Any, deterministic: bool) -> None:
        self.policy = policy
        self.deterministic = deterministic

    def start(self, engine: Any, games: np.ndarray, words: np.ndarray) -> None:
        """Nothing to prepare."""

    def act(self, engine: Any, batch: Any, where: np.ndarray, words: np.ndarray) -> np.ndarray:
        """The policy's actions for the games in ``where``, seen from the side to act."""
        import torch

        from trap_env.batched import gather

        rows = np.flatnonzero(where)
        actions = np.zeros(len(where), np.int64)
        if not len(rows):
            return actions
        part = gather(batch, rows)
        masks = engine.legal_masks(part)
        observations = engine.observations(part, engine.players(part))
        with torch.no_grad():
            tensor, _ = self.policy.obs_to_tensor(observations)
            distribution = self.policy.get_distribution(tensor, action_masks=masks)
            probabilities = distribution.distribution.probs.cpu().numpy().astype(np.float64)
        probabilities = np.where(masks, probabilities, 0.0)
        if self.deterministic:
            actions[rows] = np.argmax(probabilities, axis=1)
            return actions
        cumulative = np.cumsum(probabilities, axis=1)
        uniform = (words[rows] >> np.uint64(11)).astype(np.float64) / 2.0**53
        drawn = np.argmax(cumulative > (uniform * cumulative[:, -1])[:, None], axis=1)
        legal = masks[np.arange(len(rows)), drawn]  # a rounding past the last legal action
        actions[rows] = np.where(legal, drawn, np.argmax(probabilities, axis=1))
        return actions


def load_policy(path: str | Path, device: str = "cpu") -> Any:
    """The MaskablePPO policy network saved in ``path``, in eval mode, on ``device``.

    Nothing in the file is unpickled: the network, an :class:`agents.rl.policy.TrapPolicy`,
    is built from the zip's JSON metadata (its sizes) and only its weights are read, with
    ``torch.load(weights_only=True)`` (tensors only). A crafted zip therefore cannot run
    code, which stable-baselines3's own loader (``MaskablePPO.load``, cloudpickle) can.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleModelError: if the file is not a MaskablePPO zip of a ``TrapPolicy``
            (the network trap-train saves), its parameters cannot be read as tensors, or
            its observations are not ``(N, N, planes)`` boards with N*N actions.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"no PPO model at {path}; give the zip that MaskablePPO.save wrote "
            f"(ppo:path=...), or omit path for the bundled {DEFAULT_MODEL.name}"
        )
    spec = read_model_spec(path)
    params = read_parameters(path)
    from agents.rl.policy import TrapPolicy, policy_kwargs

    try:
        policy = TrapPolicy(
            spec.observation_space(), spec.action_space(), lambda _: 0.0,
            **policy_kwargs(spec.channels, spec.num_layers, spec.hidden),
        )
        policy.load_state_dict(params["policy"])
    except (TypeError, ValueError, RuntimeError) as error:
        raise IncompatibleModelError(
            f"{path}: its weights do not fit the network its metadata describes "
            f"({str(error)[:200]}); retrain it with trap-train"
        ) from error
    return policy.to(device).eval()


@dataclass(frozen=True)
class ModelSpec:
    """What a saved model's metadata says about its network (read as JSON, never unpickled).

    Attributes:
        board_size: N (observations ``(N, N, planes)``, N*N actions).
        planes: the observation's planes.
        channels, num_layers, hidden: the sizes of :mod:`agents.rl.policy`'s network.
        num_timesteps: the learner steps it was trained for; ``counters`` the other step
            counters a resumed run continues (``_n_updates``, ``_episode_num``).
    """

    board_size: int
    planes: int
    channels: int
    num_layers: int
    hidden: int
    num_timesteps: int
    counters: dict[str, int]

    def observation_space(self) -> Any:
        """The env's observation space: ``(N, N, planes)`` int8 planes of 0 and 1."""
        import gymnasium as gym

        shape = (self.board_size, self.board_size, self.planes)
        return gym.spaces.Box(0, 1, shape, dtype=np.int8)

    def action_space(self) -> Any:
        """``Discrete(N * N)``: a cell."""
        import gymnasium as gym

        return gym.spaces.Discrete(self.board_size * self.board_size)


POLICY_CLASS = ("agents.rl.policy", "TrapPolicy")
"""The one policy class the ``ppo`` agent builds (what trap-train saves)."""

_POLICY_KWARGS = {"features_extractor_class", "features_extractor_kwargs", "net_arch"}
_EXTRACTOR = "<class 'agents.rl.policy.TrapCNN'>"
_COUNTERS = ("_n_updates", "_episode_num")


def read_model_spec(path: Path) -> ModelSpec:
    """The network a model zip holds, from its ``data`` member read as JSON only.

    Raises:
        IncompatibleModelError: if the file is not a zip holding MaskablePPO's metadata of
            a ``TrapPolicy`` with board observations, naming what is wrong.
    """
    data = _read_data(path)
    if "policy_class" not in data or "observation_space" not in data:
        raise IncompatibleModelError(
            f"{path} is a zip but not a saved MaskablePPO model (no policy class or "
            "observation space in it)"
        )
    found = _pickled_global(data["policy_class"])
    if found != POLICY_CLASS:
        name = ".".join(found) if found else "unknown"
        raise IncompatibleModelError(
            f"{path} holds a {name} policy, not a MaskablePPO {POLICY_CLASS[1]} (the "
            "network trap-train saves); the ppo agent builds only that one, with masked "
            "predictions"
        )
    try:
        return _spec_of(data)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise IncompatibleModelError(
            f"{path}: its metadata does not describe a Trap! TrapPolicy network ({error!r:.120}); "
            "a Trap! policy has (N, N, planes) observations and Discrete(N*N) actions"
        ) from None


def _spec_of(data: dict[str, Any]) -> ModelSpec:
    shape = data["observation_space"]["_shape"]
    cells = int(data["action_space"]["n"])
    kwargs = data["policy_kwargs"]
    names = set(kwargs) - {":type:", ":serialized:"}
    extractor = kwargs["features_extractor_kwargs"]
    net_arch = kwargs["net_arch"]
    numbers = [*shape, extractor["channels"], extractor["num_layers"], *net_arch["vf"]]
    steps = data["num_timesteps"]
    if (
        len(shape) != 3 or shape[0] != shape[1] or cells != shape[0] * shape[1]
        or names != _POLICY_KWARGS or kwargs["features_extractor_class"] != _EXTRACTOR
        or net_arch["pi"] != [] or len(net_arch["vf"]) != 1
        or not all(isinstance(n, int) and 1 <= n <= 4096 for n in numbers)
        or not (isinstance(steps, int) and steps >= 0)
    ):
        raise ValueError(f"observations {shape}, {cells} actions, policy_kwargs {names}")
    counters = {name: int(data.get(name, 0)) for name in _COUNTERS}
    return ModelSpec(shape[0], shape[2], extractor["channels"], extractor["num_layers"],
                     net_arch["vf"][0], steps, counters)


def _read_data(path: Path) -> dict[str, Any]:
    try:
        with zipfile.ZipFile(path) as archive:
            if "data" not in archive.namelist():
                raise IncompatibleModelError(
                    f"{path} is a zip but not a saved MaskablePPO model (no 'data' in it)"
                )
            text = archive.read("data").decode("utf-8")
        data = json.loads(text)
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise IncompatibleModelError(
            f"{path} is not a model zip saved by MaskablePPO.save ({error})"
        ) from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise IncompatibleModelError(
            f"{path} is damaged: its metadata (data) is not JSON ({error}); save the model "
            "again or use another copy"
        ) from error
    if not isinstance(data, dict):
        raise IncompatibleModelError(f"{path} is damaged: its metadata (data) is not an object")
    return data


def _pickled_global(entry: object) -> tuple[str, str] | None:
    """The ``(module, name)`` that a serialized class reference names, read without
    unpickling it (its opcodes are listed, never run); None if it is anything else."""
    if not isinstance(entry, dict) or not isinstance(entry.get(":serialized:"), str):
        return None
    try:
        operations = list(pickletools.genops(base64.b64decode(entry[":serialized:"])))
    except (ValueError, binascii.Error):
        return None
    texts = [str(arg) for op, arg, _ in operations if op.name in _TEXT_OPS]
    if {op.name for op, _, _ in operations} - _REFERENCE_OPS or len(texts) != 2:
        return None
    return texts[0], texts[1]


_TEXT_OPS = {"SHORT_BINUNICODE", "BINUNICODE", "UNICODE"}
_REFERENCE_OPS = _TEXT_OPS | {"PROTO", "FRAME", "MEMOIZE", "STACK_GLOBAL", "STOP"}


def read_parameters(path: Path) -> dict[str, Any]:
    """The state dicts (``policy``, ``policy.optimizer``) of a model zip, tensors only.

    Raises:
        IncompatibleModelError: if they cannot be read as tensors (damaged, or a crafted
            file holding more than tensors), or there are no policy parameters.
    """
    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        # load_data=False: the pickled "data" is not read; the .pth files are read by
        # torch.load(weights_only=True).
        _, params, _ = load_from_zip_file(path, device="cpu", load_data=False)
    except (zipfile.BadZipFile, ValueError, KeyError) as error:
        raise IncompatibleModelError(
            f"{path} is not a model zip saved by MaskablePPO.save ({error})"
        ) from error
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError) as error:
        # torch.load's own message is a screen of advice (for pickles: to load them unsafely).
        raise IncompatibleModelError(
            f"{path} is damaged: the PyTorch parameters in it (policy.pth) cannot be read "
            f"as tensors ({type(error).__name__}); save the model again or use another copy"
        ) from error
    if not params or "policy" not in params:
        raise IncompatibleModelError(
            f"{path} is a zip but not a saved MaskablePPO model (no policy parameters in it)"
        )
    return params
