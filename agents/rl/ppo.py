"""The ``ppo`` agent: a MaskablePPO policy of any game, played on CPU.

It plays either seat and every decision: the state is turned into the game's Gymnasium
observation from the acting player's side (``game.observe``, as
:class:`trap_env.gym_env.GameEnv` observes) and the policy always sees the legal-action mask
(``game.legal_action_mask``), so it never picks an illegal action.

A model zip records the game and rules it was trained for (:func:`stamp_model`; trap-train
stamps every zip it saves), and the agent refuses a zip of another game or other rules
(Othello 8x8 and Trap! 8x8 have the same observation shape). A zip that records nothing (a
plain ``MaskablePPO.save``, the bundled Trap! model) is played where its observation and
action spaces fit the game.

Example:
    >>> from agents import make_agent
    >>> agent = make_agent("ppo", game="trap")  # the bundled Trap! 7x7 model
    >>> spec = "ppo:path=runs/x/best/best_model.zip,deterministic=false"
    >>> agent = make_agent(spec, game="trap", seed=1)

torch and sb3-contrib (the ``rl`` extra) are imported only when a ``ppo`` agent is built,
so ``import agents`` works without them.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickletools
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.files import Bundled, bundled_file, deprecated_bundled_table, replace_atomically
from agents.options import require_game, rules_text
from agents.seeded import SeededAgent
from agents.zips import UnreadableZipError, parse_json, read_members
from trap_env.agent import UnsupportedGameError
from trap_env.game import Game, played_params
from trap_env.games import UnknownGameError, game_names, get_game, recorded_game

__all__ = [
    "GAME_MEMBER",
    "IncompatibleModelError",
    "MlpNetwork",
    "ModelSpec",
    "PPOAgent",
    "TrapNetwork",
    "bundled_model",
    "load_policy",
    "read_model_game",
    "read_model_spec",
    "read_parameters",
    "stamp_model",
]

GAME_MEMBER = "trap_env_game.json"
"""The zip member that records a model's game and rules: ``{"game": NAME, "rules": {...}}``
(stable-baselines3's loader ignores it)."""


class IncompatibleModelError(ValueError):
    """A model file that is not a readable MaskablePPO zip of a policy the agent can build."""


def __getattr__(name: str) -> Mapping[str, Path]:
    """``DEFAULT_MODELS``, deprecated: each game's :func:`bundled_model`."""
    if name == "DEFAULT_MODELS":
        return deprecated_bundled_table(name, bundled_model, game_names())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def bundled_model(game: str, rules: Mapping[str, Any] | None = None) -> Path:
    """The model bundled with ``game``'s agents for ``rules``: the zip of
    ``agents/<game>/models/`` that records that game and those rules (:func:`stamp_model`),
    or that records none and whose spaces fit them; its name is for people.

    Args:
        game: the game's registered name.
        rules: its rule parameters; the game's defaults fill the ones left out (all, for
            None: the model the ``ppo`` agent plays without ``path``).

    Raises:
        ValueError: for a game without one, or rules without one (naming those there are).
    """
    found = get_game(game)
    wanted = played_params(found, rules)
    config = found.make_config(**wanted)
    spaces = (tuple(found.observation_shape(config)), found.num_actions(config))

    def read(path: Path) -> Bundled | None:
        try:
            spec, record = read_model_spec(path), read_model_game(path, found)
        except IncompatibleModelError:  # another kind of file: the mcts agent's network
            return None
        if record is None:  # a plain zip in the game's folder: played where its spaces fit
            shape, actions = spec.observation_shape, spec.num_actions
            fits = (tuple(shape), actions) == spaces
            return Bundled(fits, f"any rules with observations {shape} and {actions} actions")
        name, plays = record
        return Bundled(plays == wanted, rules_text(plays)) if name == found.name else None

    return bundled_file(
        found.name, "ppo model", rules_text(wanted), read,
        f"give one with path=ZIP (a MaskablePPO model trained on {found.name}'s Gymnasium env)",
    )  # fmt: skip


class PPOAgent(SeededAgent):
    """A trained MaskablePPO policy behind the agent interface.

    Args:
        path: the model zip saved by MaskablePPO; by default the game's bundled model of
            its default rules (:func:`bundled_model`).
        deterministic: play the most probable legal action (True) or sample one from the
            masked policy with the agent's own seeded generator (False).
        device: the torch device; "cpu" is all a small policy needs.
        seed: seeds the generator used when ``deterministic`` is False.
        game: the game it plays (the runner tells it); a zip that records its game must
            record this one.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleModelError: if the file is not a MaskablePPO model zip of a policy the
            agent builds, or is damaged.
        ValueError: for a game without a bundled model and no ``path``, or a zip that
            records another game.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        deterministic: bool = True,
        device: str = "cpu",
        seed: int | None = None,
        game: str | None = None,
    ) -> None:
        super().__init__(seed)
        self.game: Game[Any, Any] = get_game(require_game(game, "PPOAgent()"))
        self.path = _model_path(path, self.game.name)
        self.deterministic = deterministic
        self.policy = load_policy(self.path, device)
        self.record = read_model_game(self.path, self.game)
        if self.record is not None and self.record[0] != self.game.name:
            raise ValueError(
                f"the ppo model {self.path} plays {_describe(*self.record)}, not "
                f"{self.game.name}; train one for {self.game.name} and give it with path=ZIP"
            )
        self._checked: object = None

    @staticmethod
    def loaded_files(game: str, path: str | Path | None = None, **_: Any) -> list[Path]:
        """The file an agent of ``game`` with these options loads: its model zip (see
        :mod:`agents.spec_files`)."""
        return [_model_path(path, get_game(game).name)]

    def check_game(self, config: object) -> None:
        """Refuse rules the model was not trained for: other rules than the zip records,
        or observations and actions its network does not take.

        Raises:
            UnsupportedGameError: naming what the model plays and what the game is.
        """
        if config == self._checked:
            return
        params = self.game.config_params(config)
        if self.record is not None and params != self.record[1]:
            raise UnsupportedGameError(
                f"the ppo model {self.path} was trained for {_describe(*self.record)}; this "
                f"game is {_describe(self.game.name, params)}; train one for these rules"
            )
        shape = tuple(self.game.observation_shape(config))
        actions = self.game.num_actions(config)
        taken = tuple(self.policy.observation_space.shape), int(self.policy.action_space.n)
        if (shape, actions) != taken:
            raise UnsupportedGameError(
                f"the ppo model {self.path} takes observations {taken[0]} and {taken[1]} "
                f"actions; this game, {_describe(self.game.name, params)}, has {shape} and "
                f"{actions}; train one for these rules"
            )
        self._checked = config

    def batched(self) -> BatchedPolicy:
        """The same policy for many games of the batched env at once: the most probable
        legal action, or one sampled with the batch's random word of each game."""
        return BatchedPolicy(self.policy, self.deterministic)

    def select_action(self, state: Any) -> int:
        """The policy's action for the player to act, among the legal ones.

        Raises:
            UnsupportedGameError: for rules the model does not play.
            ValueError: for a state that is not a decision of a running game.
        """
        probabilities = self.action_probabilities(state)
        if self.deterministic:
            return int(np.argmax(probabilities))
        return int(self.rng.choices(range(len(probabilities)), weights=probabilities.tolist())[0])

    def action_probabilities(self, state: Any) -> np.ndarray:
        """The masked policy's probability of each action (zero on illegal ones)."""
        import torch

        game = self.game
        self.check_game(game.config_of(state))
        if game.outcome(state) is not None or game.is_chance(state):
            raise ValueError(
                "a ppo agent acts at a decision of a running game, got "
                f"{game.to_text(state)}" + (" (game over)" if game.outcome(state) else "")
            )
        observation = game.observe(state, game.current_player(state))
        mask = np.asarray(game.legal_action_mask(state), dtype=bool)
        with torch.no_grad():
            tensor, _ = self.policy.obs_to_tensor(observation)
            distribution = self.policy.get_distribution(tensor, action_masks=mask[None])
            probabilities = distribution.distribution.probs[0].cpu().numpy()
        probabilities = np.where(mask, probabilities, 0.0)
        return np.asarray(probabilities / probabilities.sum(), dtype=np.float64)


def _model_path(path: str | Path | None, game: str) -> Path:
    """The model zip ``path``, or the bundled model of ``game`` (:func:`bundled_model`)."""
    return Path(path) if path is not None else bundled_model(game)


def _describe(game: str, rules: Mapping[str, Any]) -> str:
    """``"othello (board_size=8, end_rule=standard)"``."""
    return f"{game} ({', '.join(f'{name}={value}' for name, value in rules.items())})"


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


def stamp_model(path: str | Path, *, game: str, params: Mapping[str, Any] | None = None) -> None:
    """Record in a model zip the game and rules it was trained for (rewriting it whole).

    The ``ppo`` agent then refuses the zip in any other game or under other rules. trap-train
    stamps every zip it saves; stamp a zip of your own after ``model.save(path)``:

        >>> stamp_model("othello6.zip", game="othello", params={"board_size": 6})  # doctest: +SKIP

    Args:
        path: a model zip saved by MaskablePPO.
        game: the game it plays: a registered name, or a game's path (the zip records the
            game's name, which the ``ppo`` agent of that game reads).
        params: its rule parameters (missing ones: the game's defaults).

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleModelError: if it is not a model zip saved by MaskablePPO.
        ValueError: for an unknown game, or parameters that are not its rules.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no PPO model at {path} to stamp")
    members = _read_zip(path, lambda name: name != GAME_MEMBER)
    _data_of(path, members)
    found = get_game(game)
    rules = played_params(found, params)
    record = json.dumps({"game": found.name, "rules": rules}).encode()

    def write(target: Path) -> None:
        with zipfile.ZipFile(target, "w") as copy:
            for name, content in members.items():
                copy.writestr(name, content)
            copy.writestr(GAME_MEMBER, record)

    replace_atomically(path, write)


def read_model_game(
    path: str | Path, playing: Game[Any, Any] | None = None
) -> tuple[str, dict[str, Any]] | None:
    """The game and rules a model zip records (:func:`stamp_model`), or None if it records none.

    Args:
        path: the zip.
        playing: the game it is read to play: a zip of a game registered nowhere (one named
            by its path, as a runner's worker names it) is read for that game only.

    Returns:
        The game's name and every rule as the game plays it (missing ones: its defaults).

    Raises:
        IncompatibleModelError: if the file is not a readable zip, or the record is not
            ``{"game": NAME, "rules": {...}}`` of a game registered or ``playing`` (a file
            never makes us import a module it names,
            :func:`trap_env.games.recorded_game`) and rules of that game.
    """
    path = Path(path)
    members = _read_zip(path, lambda name: name == GAME_MEMBER)
    if GAME_MEMBER not in members:
        return None
    try:
        record = parse_json(members[GAME_MEMBER])
    except UnreadableZipError as error:
        raise _damaged_record(path, str(error)) from None
    if not (
        isinstance(record, dict) and isinstance(record.get("game"), str)
        and isinstance(record.get("rules"), dict)
    ):
        shown = str(record)[:60]
        raise _damaged_record(path, f'{shown} is not {{"game": NAME, "rules": {{...}}}}')
    name, rules = record["game"], record["rules"]
    try:
        found = recorded_game(name, playing)
    except UnknownGameError as error:
        raise IncompatibleModelError(f"{path} is a model of {error}") from None
    try:
        # Every rule as the game plays it: a rule recorded as text ("6") is refused here,
        # not found unequal to the game's 6 later.
        return name, played_params(found, rules)
    except ValueError as error:
        raise _damaged_record(path, f"no rules of {name}: {str(error)[:200]}") from None


def _damaged_record(path: Path, reason: str) -> IncompatibleModelError:
    """The refusal of a model zip whose record of the game cannot be played."""
    return IncompatibleModelError(
        f"{path}: its record of the game ({GAME_MEMBER}) is damaged ({reason}); stamp it "
        "again with agents.rl.ppo.stamp_model"
    )


def load_policy(path: str | Path, device: str = "cpu") -> Any:
    """The MaskablePPO policy network saved in ``path``, in eval mode, on ``device``.

    Nothing in the file is unpickled: the network, an :class:`agents.rl.policy.TrapPolicy`
    (what trap-train saves) or a ``MaskableActorCriticPolicy`` (MaskablePPO's
    ``"MlpPolicy"``), is built from the zip's JSON metadata (its sizes) and only its weights
    are read, with ``torch.load(weights_only=True)`` (tensors only). A crafted zip therefore
    cannot run code, which stable-baselines3's own loader (``MaskablePPO.load``,
    cloudpickle) can.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IncompatibleModelError: if the file is not a MaskablePPO zip of one of those
            policies, its parameters cannot be read as tensors, or they do not fit the
            network its metadata describes.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"no PPO model at {path}; give the zip that MaskablePPO.save wrote "
            "(ppo:path=...), or omit path for the game's bundled model"
        )
    spec = read_model_spec(path)
    params = read_parameters(path)
    try:
        policy = spec.build()
        policy.load_state_dict(params["policy"])
    except (TypeError, ValueError, RuntimeError) as error:
        raise IncompatibleModelError(
            f"{path}: its weights do not fit the network its metadata describes "
            f"({str(error)[:200]}); save the model again"
        ) from error
    return policy.to(device).eval()


@dataclass(frozen=True)
class TrapNetwork:
    """The sizes of :mod:`agents.rl.policy`'s ``TrapPolicy`` (what trap-train saves)."""

    channels: int
    num_layers: int
    hidden: int


@dataclass(frozen=True)
class MlpNetwork:
    """A ``MaskableActorCriticPolicy`` (MaskablePPO's ``"MlpPolicy"``) over flat observations.

    Attributes:
        pi, vf: the hidden layers of the policy and value MLPs (``net_arch``).
        activation: the ``torch.nn`` activation's class name (``activation_fn``).
        share_features_extractor: as the policy's keyword of that name.
    """

    pi: tuple[int, ...]
    vf: tuple[int, ...]
    activation: str
    share_features_extractor: bool


@dataclass(frozen=True)
class ModelSpec:
    """What a saved model's metadata says about its network (read as JSON, never unpickled).

    Attributes:
        observation_shape: the observations' shape (``(N, N, planes)``).
        num_actions: the size of the ``Discrete`` action space.
        network: the policy's class and sizes.
        num_timesteps: the learner steps it was trained for; ``counters`` the other step
            counters a resumed run continues (``_n_updates``, ``_episode_num``).
    """

    observation_shape: tuple[int, ...]
    num_actions: int
    network: TrapNetwork | MlpNetwork
    num_timesteps: int
    counters: dict[str, int]

    def observation_space(self) -> Any:
        """The env's observation space: int8 planes of 0 and 1."""
        import gymnasium as gym

        return gym.spaces.Box(0, 1, self.observation_shape, dtype=np.int8)

    def action_space(self) -> Any:
        """``Discrete(num_actions)``."""
        import gymnasium as gym

        return gym.spaces.Discrete(self.num_actions)

    def build(self) -> Any:
        """The policy with fresh weights (the caller loads the saved ones)."""
        spaces = (self.observation_space(), self.action_space(), lambda _: 0.0)
        network = self.network
        if isinstance(network, TrapNetwork):
            from agents.rl.policy import TrapPolicy, policy_kwargs

            kwargs = policy_kwargs(network.channels, network.num_layers, network.hidden)
            return TrapPolicy(*spaces, **kwargs)
        import torch
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        return MaskableActorCriticPolicy(
            *spaces,
            net_arch={"pi": list(network.pi), "vf": list(network.vf)},
            activation_fn=getattr(torch.nn, network.activation),
            share_features_extractor=network.share_features_extractor,
        )


TRAP_POLICY = ("agents.rl.policy", "TrapPolicy")
MLP_POLICY = ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy")
_POLICY_CLASSES = (TRAP_POLICY, MLP_POLICY)
"""The policy classes the ``ppo`` agent builds: trap-train's and MaskablePPO's "MlpPolicy"."""

_TRAP_KWARGS = {"features_extractor_class", "features_extractor_kwargs", "net_arch"}
_MLP_KWARGS = {"net_arch", "activation_fn", "share_features_extractor", "ortho_init"}
_EXTRACTOR = "<class 'agents.rl.policy.TrapCNN'>"
_ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid")
_COUNTERS = ("_n_updates", "_episode_num")


def read_model_spec(path: Path) -> ModelSpec:
    """The network a model zip holds, from its ``data`` member read as JSON only.

    Raises:
        IncompatibleModelError: if the file is not a zip holding MaskablePPO's metadata of
            a ``TrapPolicy`` or ``"MlpPolicy"`` with ``Box`` observations and ``Discrete``
            actions, naming what is wrong.
    """
    data = _read_data(path)
    if "policy_class" not in data or "observation_space" not in data:
        raise IncompatibleModelError(
            f"{path} is a zip but not a saved MaskablePPO model (no policy class or "
            "observation space in it)"
        )
    found = _pickled_global(data["policy_class"])
    if found not in _POLICY_CLASSES:
        name = ".".join(found) if found else "unknown"
        raise IncompatibleModelError(
            f"{path} holds a {name} policy, not a MaskablePPO TrapPolicy (what trap-train "
            'saves) or MaskableActorCriticPolicy ("MlpPolicy"); the ppo agent builds only '
            "those, with masked predictions"
        )
    try:
        return _spec_of(data, found == TRAP_POLICY)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
        raise IncompatibleModelError(
            f"{path}: its metadata does not describe a network the ppo agent builds "
            f"({error!r:.160}); it takes Box observations, Discrete actions and, for a "
            "TrapPolicy, (N, N, planes) boards with N*N actions"
        ) from None


def _spec_of(data: dict[str, Any], is_trap: bool) -> ModelSpec:
    shape = tuple(data["observation_space"]["_shape"])
    cells = int(data["action_space"]["n"])
    steps = data["num_timesteps"]
    spaces = data["observation_space"][":type:"], data["action_space"][":type:"]
    if spaces != ("<class 'gymnasium.spaces.box.Box'>",
                  "<class 'gymnasium.spaces.discrete.Discrete'>"):
        raise ValueError(f"spaces {spaces}")
    kwargs = data.get("policy_kwargs", {})
    network = _trap_network(shape, cells, kwargs) if is_trap else _mlp_network(kwargs)
    if not (
        shape and all(isinstance(n, int) and 1 <= n <= 4096 for n in (*shape, cells))
        and isinstance(steps, int) and steps >= 0
    ):
        raise ValueError(f"observations {shape}, {cells} actions, {steps} steps")
    counters = {name: int(data.get(name, 0)) for name in _COUNTERS}
    return ModelSpec(shape, cells, network, steps, counters)


def _trap_network(shape: tuple[int, ...], cells: int, kwargs: dict[str, Any]) -> TrapNetwork:
    """The sizes of a TrapPolicy's metadata (``policy_kwargs``)."""
    names = set(kwargs) - {":type:", ":serialized:"}
    extractor = kwargs["features_extractor_kwargs"]
    net_arch = kwargs["net_arch"]
    numbers = [extractor["channels"], extractor["num_layers"], *net_arch["vf"]]
    if (
        len(shape) != 3 or shape[0] != shape[1] or cells != shape[0] * shape[1]
        or names != _TRAP_KWARGS or kwargs["features_extractor_class"] != _EXTRACTOR
        or net_arch["pi"] != [] or len(net_arch["vf"]) != 1
        or not all(isinstance(n, int) and 1 <= n <= 4096 for n in numbers)
    ):
        raise ValueError(f"observations {shape}, {cells} actions, policy_kwargs {names}")
    return TrapNetwork(extractor["channels"], extractor["num_layers"], net_arch["vf"][0])


def _mlp_network(kwargs: dict[str, Any]) -> MlpNetwork:
    """The layers of a ``MaskableActorCriticPolicy``'s metadata (``policy_kwargs``, whose
    classes are read from their JSON names, never unpickled)."""
    names = set(kwargs) - {":type:", ":serialized:"}
    if names - _MLP_KWARGS:
        raise ValueError(f"policy_kwargs {sorted(names - _MLP_KWARGS)} (allowed: "
                         f"{sorted(_MLP_KWARGS)})")
    net_arch = kwargs.get("net_arch", {"pi": [64, 64], "vf": [64, 64]})
    if isinstance(net_arch, list):
        net_arch = {"pi": net_arch, "vf": net_arch}
    pi, vf = tuple(net_arch["pi"]), tuple(net_arch["vf"])
    activation = kwargs.get("activation_fn", "<class 'torch.nn.modules.activation.Tanh'>")
    name = str(activation).removeprefix("<class 'torch.nn.modules.activation.")[:-2]
    share = kwargs.get("share_features_extractor", True)
    if (
        activation != f"<class 'torch.nn.modules.activation.{name}'>"
        or name not in _ACTIVATIONS or not isinstance(share, bool)
        or not all(isinstance(n, int) and 1 <= n <= 4096 for n in (*pi, *vf))
    ):
        raise ValueError(f"net_arch {net_arch!r:.60}, activation_fn {activation!r:.60}")
    return MlpNetwork(pi, vf, name, share)


def _read_zip(path: Path, wanted: Callable[[str], bool]) -> dict[str, bytes]:
    """The members of a model zip that ``wanted`` names, read within
    :data:`agents.zips.MAX_READ_BYTES`.

    Raises:
        IncompatibleModelError: for a file that is no zip, a damaged one or one too large.
    """
    try:
        return read_members(path, wanted)
    except UnreadableZipError as error:
        raise IncompatibleModelError(
            f"{path} is not a model zip saved by MaskablePPO.save ({error})"
        ) from None


def _read_data(path: Path) -> dict[str, Any]:
    """A model zip's metadata (its ``data`` member), read as JSON only."""
    return _data_of(path, _read_zip(path, lambda name: name == "data"))


def _data_of(path: Path, members: Mapping[str, bytes]) -> dict[str, Any]:
    """The metadata among a model zip's ``members``, read as JSON only.

    Raises:
        IncompatibleModelError: if there is none, or it is not a JSON object.
    """
    if "data" not in members:
        raise IncompatibleModelError(
            f"{path} is a zip but not a saved MaskablePPO model (no 'data' in it)"
        )
    try:
        data = parse_json(members["data"])
    except UnreadableZipError as error:
        raise IncompatibleModelError(
            f"{path} is damaged: its metadata (data) is {error}; save the model again or use "
            "another copy"
        ) from None
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
    import torch

    # As stable-baselines3's loader: every .pth member but the variables is a state dict.
    members = _read_zip(path, lambda name: name.endswith(".pth") and name not in _VARIABLES)
    params = {}
    for name, content in members.items():
        try:
            params[name.removesuffix(".pth")] = torch.load(
                io.BytesIO(content), map_location="cpu", weights_only=True
            )
        except Exception as error:  # torch.load raises what its parsers do (many kinds)
            # torch.load's own message is a screen of advice (for pickles: to load them
            # unsafely): the type says enough.
            raise IncompatibleModelError(
                f"{path} is damaged: the PyTorch parameters in it ({name:.60}) cannot be "
                f"read as tensors ({type(error).__name__}); save the model again or use "
                "another copy"
            ) from None
    if not isinstance(params.get("policy"), dict):
        raise IncompatibleModelError(
            f"{path} is a zip but not a saved MaskablePPO model (no policy parameters in it)"
        )
    return params


_VARIABLES = ("pytorch_variables.pth", "tensors.pth")
"""The ``.pth`` members that hold a model's other torch variables, not a state dict."""
