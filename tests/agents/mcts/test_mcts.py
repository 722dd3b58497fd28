"""The mcts agent: PUCT with chance nodes against plain expectimax, the clock, the network."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents import files
from agents.arena.match import play_game
from agents.mcts.agent import MCTSAgent
from agents.mcts.network import (
    IncompatibleNetworkError,
    Network,
    bundled_network,
    encode,
    load_network,
)
from agents.mcts.search import ChanceNode, Tree, masked_priors
from agents.registry import make_agent
from agents.trap.evaluation import Weights
from tests.support import crafted_files, toy_game
from tests.support.game_runs import random_decision_states
from tests.support.games import STRANGERS, forget_strangers
from tests.support.search_oracle import expectimax
from trap_env.agent import SpecError, UnsupportedGameError
from trap_env.games import get_game
from trap_env.trap import core
from trap_env.trap.core import GameConfig, Phase, State, from_text
from trap_env.trap.game import GAME as TRAP

ZERO_WEIGHTS = Weights(mobility=0, room=0, voronoi=0)
"""Weights under which the oracle scores every unfinished position 0, like the dummy net."""


def uniform_zero(states: list[State]) -> tuple[np.ndarray, np.ndarray]:
    """A dummy network: uniform priors, value 0 everywhere."""
    n = states[0].board_size
    return np.zeros((len(states), n * n)), np.zeros(len(states))


def root_value(tree: Tree) -> float:
    """The mean value of the root's most visited action."""
    root = tree.root
    index = root.best_index()
    return float(root.totals[index] / root.visits[index])


@pytest.fixture(scope="module")
def small_network(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 5x5 network saved to a file."""
    path = tmp_path_factory.mktemp("nets") / "net5.npz"
    Network.initial(GameConfig(5), channels=8, blocks=1, hidden=8, seed=0, game=TRAP).save(path)
    return path


# --- Search against the oracle ---------------------------------------------------------

# Two-turn endgames on 3x3 (the search's turn limit stops it where the oracle's depth does),
# with the oracle's expectimax value for the player to act: wins and losses that hinge on a
# throw's landing.
ENDGAMES = [
    ("..x/xx0/x1. 1 move - 5", 4),
    ("0.x/..x/x.1 1 throw - 5", 3),
    (".../.x1/0x. 0 throw - 2", 3),
    ("x.0/xxx/1.x 1 throw - 5", 3),
    ("..x/.x./0x1 1 move - 3", 4),
]


@pytest.mark.parametrize(("text", "depth"), ENDGAMES)
def test_root_value_converges_to_expectimax(text: str, depth: int) -> None:
    state = from_text(text)
    exact = expectimax(state, depth, ZERO_WEIGHTS)
    errors = []
    for simulations in (200, 2000, 20000):
        tree = Tree(state, max_turns=state.turn + 2, game=TRAP)
        tree.run(uniform_zero, simulations, lambda: False)
        errors.append(abs(root_value(tree) - exact))
    assert errors[2] < 0.06
    assert errors[2] <= errors[1] + 1e-9 and errors[1] <= errors[0] + 1e-9


def test_sampled_chance_nodes_converge_too() -> None:
    state = from_text("0.x/..x/x.1 1 throw - 5")
    exact = expectimax(state, 3, ZERO_WEIGHTS)
    tree = Tree(state, chance="sample", max_turns=state.turn + 2, game=TRAP)
    tree.run(uniform_zero, 20000, lambda: False)
    assert abs(root_value(tree) - exact) < 0.06


def test_one_turn_endgame_on_4x4() -> None:
    state = from_text("0x../.x1./x..x/x... 1 throw - 5")
    tree = Tree(state, max_turns=state.turn + 1, game=TRAP)
    tree.run(uniform_zero, 3000, lambda: False)
    assert root_value(tree) == pytest.approx(expectimax(state, 1, ZERO_WEIGHTS), abs=0.01)


def test_expect_mode_follows_landings_in_proportion() -> None:
    throw = from_text("0.../..../..../...1 0 throw - 0")
    landing = core.apply(throw, 14)  # (3, 2): five steps away: the target and 4 neighbours
    node = ChanceNode(landing, 0, core.chance_outcomes(landing))
    for _ in range(400):
        index = node.select("expect", random.Random(0))
        node.visits[index] += 1
        node.count += 1
    assert len(node.cells) == 5
    assert np.allclose(node.visits / 400, node.probabilities, atol=1 / 400 + 1e-9)


def test_masked_priors_ignore_illegal_cells() -> None:
    logits = np.array([5.0, 0.0, 100.0, 0.0])
    priors = masked_priors(logits, [1, 3])
    assert priors.tolist() == [0.5, 0.5]


def test_tree_refuses_a_landing_or_finished_root() -> None:
    state = core.apply(core.apply(core.initial_state(GameConfig(4)), 1), 10)
    with pytest.raises(ValueError, match="starts at a decision of a game in progress"):
        Tree(state, game=TRAP)
    with pytest.raises(ValueError, match="chance must be one of"):
        Tree(core.initial_state(), chance="average", game=TRAP)


# --- The agent ---------------------------------------------------------------------------


def test_never_plays_an_illegal_action(small_network: Path) -> None:
    for seed in range(6):
        agents = [
            MCTSAgent(
                time_limit=None, simulations=24, path=small_network, chance=chance, game="trap"
            )
            for chance in ("expect", "sample")
        ]
        result = play_game(agents, seed=seed, board_size=5, time_budget=None, game="trap")
        assert result.reason in ("trapped", "truncated"), result.detail


def test_against_random_every_action_is_legal(small_network: Path) -> None:
    agent = MCTSAgent(time_limit=None, simulations=16, path=small_network, game="trap")
    for seed in range(6):
        result = play_game(
            [agent, make_agent("random", game="trap")][:: 1 if seed % 2 else -1],
            seed=seed,
            game="trap",
            board_size=5,
            time_budget=None,
        )
        assert result.reason in ("trapped", "truncated"), result.detail


def test_deterministic_under_a_seed(small_network: Path) -> None:
    def actions(seed: int) -> list[int]:
        agents = [
            MCTSAgent(
                time_limit=None, simulations=30, path=small_network, chance="sample", game="trap"
            )
            for _ in range(2)
        ]
        return play_game(agents, seed=seed, board_size=5, time_budget=None, game="trap").actions

    assert actions(3) == actions(3)


def test_refuses_another_board_size(small_network: Path) -> None:
    agent = MCTSAgent(time_limit=0.1, path=small_network, game="trap")
    agent.check_game(GameConfig(5))
    with pytest.raises(UnsupportedGameError, match=r"board_size=5, decay=50.*--board-size 7"):
        agent.check_game(GameConfig(7))
    with pytest.raises(UnsupportedGameError):
        agent.select_action(core.initial_state(GameConfig(7)))
    with pytest.raises(UnsupportedGameError, match=r"decay=80.*--decay 80"):
        agent.check_game(GameConfig(5, decay=80))


def test_a_network_records_its_rule_variant(tmp_path: Path) -> None:
    Network.initial(GameConfig(4, decay=80), channels=2, blocks=1, hidden=2, game=TRAP).save(
        tmp_path / "d80.npz"
    )
    agent = MCTSAgent(simulations=5, path=tmp_path / "d80.npz", game="trap")
    agent.check_game(GameConfig(4, decay=80))
    with pytest.raises(UnsupportedGameError, match="decay=80"):
        agent.check_game(GameConfig(4))


def test_bad_options_are_refused(small_network: Path) -> None:
    with pytest.raises(ValueError, match="time_limit, simulations"):
        MCTSAgent(time_limit=None, simulations=None, path=small_network, game="trap")
    with pytest.raises(ValueError, match="simulations must be"):
        MCTSAgent(simulations=0, path=small_network, game="trap")
    with pytest.raises(ValueError, match="chance must be"):
        MCTSAgent(chance="mean", path=small_network, game="trap")
    with pytest.raises(ValueError, match="at most 86400 seconds"):
        MCTSAgent(time_limit=2_000_000, path=small_network, game="trap")
    with pytest.raises(ValueError, match="c_puct must be"):
        MCTSAgent(c_puct=0.0, path=small_network, game="trap")
    with pytest.raises(ValueError, match="max_turns must be"):
        MCTSAgent(max_turns=0, path=small_network, game="trap")


def test_default_network_plays_7x7() -> None:
    agent = make_agent("mcts:simulations=20,time_limit=none", seed=0, game="trap")
    assert isinstance(agent, MCTSAgent) and agent.path == bundled_network("trap")
    agent.check_game(GameConfig(7))
    state = core.initial_state()
    assert agent.select_action(state) in core.legal_actions(state)
    assert agent.last_search is not None and agent.last_search.simulations == 20


class FakeClock:
    """A clock that moves ``step`` seconds forward each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_budget_shared_by_move_and_throw_on_a_fake_clock(small_network: Path) -> None:
    """The move's share is the game's even one, ``1 / decisions_per_turn``."""
    agent = MCTSAgent(time_limit=1.0, path=small_network, game="trap")
    agent.clock = FakeClock(0.001)
    state = core.initial_state(GameConfig(5))
    move = agent.select_action(state)
    stats = agent.last_search
    assert stats is not None and stats.budget == 0.5
    assert 0.35 <= stats.seconds <= 0.5 and stats.simulations > 0
    agent.select_action(core.apply(state, move))
    throw_stats = agent.last_search
    assert throw_stats is not None
    assert throw_stats.budget == pytest.approx(1.0 - stats.seconds)
    assert stats.seconds + throw_stats.seconds <= 1.0


def test_the_first_decisions_share_of_a_turn_comes_from_the_game(
    small_network: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(type(TRAP), "decisions_per_turn", 4)
    agent = MCTSAgent(time_limit=1.0, simulations=2, path=small_network, game="trap")
    agent.select_action(core.initial_state(GameConfig(5)))
    assert agent.last_search is not None and agent.last_search.budget == 0.25


def test_move_share_is_deprecated_and_still_shares_the_turn(small_network: Path) -> None:
    with pytest.warns(DeprecationWarning, match="mcts's move_share is deprecated") as caught:
        agent = MCTSAgent(time_limit=1.0, simulations=2, path=small_network, move_share=0.3,
                          game="trap")  # fmt: skip
    assert caught[0].filename == __file__  # the warning names the caller's line
    agent.select_action(core.initial_state(GameConfig(5)))
    assert agent.last_search is not None and agent.last_search.budget == 0.3


def test_static_fallback_when_the_clock_is_out(small_network: Path) -> None:
    agent = MCTSAgent(time_limit=0.01, path=small_network, game="trap")
    agent.clock = FakeClock(1.0)  # every reading is past any deadline
    state = core.initial_state(GameConfig(5))
    action = agent.select_action(state)
    assert action in core.legal_actions(state)
    # The root's own evaluation gives the priors; no search beyond it.
    assert agent.last_search is not None and agent.last_search.simulations <= 1


def test_turns_stay_within_the_real_cpu_budget(small_network: Path) -> None:
    agent = MCTSAgent(time_limit=0.2, path=small_network, game="trap")
    state = core.initial_state(GameConfig(5))
    for _ in range(3):
        started = time.process_time()
        state = core.apply(state, agent.select_action(state))
        state = core.apply(state, agent.select_action(state))
        assert time.process_time() - started < 0.2
        state = core.apply(state, core.chance_outcomes(state)[0][0])
        if core.is_terminal(state):
            break


def test_a_forced_move_is_played_without_search(small_network: Path) -> None:
    agent = MCTSAgent(time_limit=1.0, path=small_network, game="trap")
    state = from_text("0x.../x..../...../...../....1 0 move - 0")
    assert agent.select_action(state) == 6
    assert agent.last_search is not None and agent.last_search.simulations <= 1
    assert agent.last_search.seconds < 0.1


def test_tree_is_kept_from_the_move_to_the_throw(small_network: Path) -> None:
    agent = MCTSAgent(time_limit=None, simulations=50, path=small_network, game="trap")
    state = core.initial_state(GameConfig(5))
    move = agent.select_action(state)
    tree = agent._tree
    assert tree is not None
    kept = tree.root.children[tree.root.actions.index(move)]
    agent.select_action(core.apply(state, move))
    assert agent._tree is tree and tree.root is kept


# --- The network ---------------------------------------------------------------------------


def test_network_round_trip(tmp_path: Path) -> None:
    network = Network.initial(GameConfig(4), channels=4, blocks=2, hidden=3, seed=1, game=TRAP)
    network.save(tmp_path / "n.npz")
    loaded = load_network(tmp_path / "n.npz")
    states = [core.initial_state(GameConfig(4))]
    assert np.array_equal(loaded.evaluate(states)[0], network.evaluate(states)[0])
    assert loaded.rules["board_size"] == 4 and loaded.blocks == 2


def test_negligible_weights_are_multiplied_as_zero_and_move_no_output() -> None:
    network = Network.initial(GameConfig(5), channels=8, blocks=2, hidden=4, seed=3, game=TRAP)
    tiny = dict(network.weights)
    for index, (name, weight) in enumerate(sorted(tiny.items())):
        flat = weight.copy().reshape(-1)
        flat[:: 2 + index % 3] = (1e-39, -3e-38, 1e-31)[index % 3]  # subnormal, or close
        tiny[name] = flat.reshape(weight.shape)
    zeroed = {
        name: np.where(np.abs(w) < 1e-30, 0, w).astype(np.float32) for name, w in tiny.items()
    }
    with_tiny = Network(tiny, network.blocks, network.game_name, network.rules)
    without = Network(zeroed, network.blocks, network.game_name, network.rules)
    states = [core.initial_state(GameConfig(5))]
    for got, expected in zip(with_tiny.evaluate(states), without.evaluate(states), strict=True):
        assert np.array_equal(got, expected)
    assert np.array_equal(with_tiny.weights["stem.weight"], tiny["stem.weight"])  # kept as read
    in_use = with_tiny._conv_matrices.values()
    assert not any(np.any((w != 0) & (np.abs(w) < 1e-30)) for w in in_use)


def test_network_files_that_are_not_networks(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no mcts network"):
        load_network(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(IncompatibleNetworkError, match=r"not an \.npz"):
        load_network(tmp_path / "junk.npz")
    np.savez(tmp_path / "other.npz", weights=np.zeros(3))
    with pytest.raises(IncompatibleNetworkError, match="format version"):
        load_network(tmp_path / "other.npz")


def saved_network(path: Path, **changes: np.ndarray) -> Path:
    """A small network saved to ``path`` with the arrays of ``changes`` put in."""
    network = Network.initial(GameConfig(4), channels=4, blocks=1, hidden=3, seed=1, game=TRAP)
    network.save(path)
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    np.savez(path, **{**arrays, **changes})
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "not a zip archive"), (b"\x80\x04N.", "not a zip archive"),
     (b"PK\x03\x04" + b"x" * 40, "not a zip archive"),
     (None, "its array 'stem.weight' is damaged")],
    ids=["empty", "a-pickle", "broken-zip", "garbage-array"],
)
def test_a_file_that_is_not_an_npz_is_named(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    import zipfile

    path = tmp_path / "n.npz"
    if content is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("stem.weight.npy", b"garbage")  # no .npy header
    else:
        path.write_bytes(content)
    with pytest.raises(IncompatibleNetworkError, match=f"{re.escape(str(path))}.*{message}"):
        load_network(path)


@pytest.fixture(scope="module")
def network_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A small network's ``.npz``, every member deflated (a deflate stream to damage)."""
    path = saved_network(tmp_path_factory.mktemp("npz") / "n.npz")
    return crafted_files.deflated(crafted_files.members_of(path.read_bytes()))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_npz_is_loaded_or_refused_in_one_line(
    network_bytes: bytes, tmp_path: Path, data: st.DataObject
) -> None:
    """Garbage, cut or deeply nested members, a member declaring gigabytes, a damaged
    deflate stream: loaded, or refused naming the file, never zlib's or json's error."""
    path = tmp_path / "n.npz"
    path.write_bytes(data.draw(crafted_files.mutated_zips(network_bytes)))
    try:
        load_network(path)
    except IncompatibleNetworkError as error:
        message = str(error)
        assert len(message.splitlines()) == 1 and message.startswith(str(path)), message


def test_a_damaged_deflate_stream_in_an_npz_is_named(network_bytes: bytes, tmp_path: Path) -> None:
    start, _ = crafted_files.data_span(network_bytes, "stem.weight.npy")
    damaged = bytearray(network_bytes)
    damaged[start:start + 8] = b"\xff" * 8  # an invalid deflate block
    path = tmp_path / "n.npz"
    path.write_bytes(bytes(damaged))
    with pytest.raises(IncompatibleNetworkError, match=r"its member 'stem.weight.npy' is "
                                                       r"damaged: zlib.error"):
        load_network(path)


def test_weights_must_be_finite_and_metadata_in_range(tmp_path: Path) -> None:
    weights = np.zeros((4, 5, 3, 3), np.float32)
    weights[0, 0, 0, 0] = np.nan  # a diverged network
    with pytest.raises(IncompatibleNetworkError, match=r"'stem\.weight' is not finite"):
        load_network(saved_network(tmp_path / "nan.npz", **{"stem.weight": weights}))
    absurd = np.array([1, 4, 10**12, 50], np.int64)  # would allocate until memory runs out
    with pytest.raises(IncompatibleNetworkError, match="says 1000000000000 blocks"):
        load_network(saved_network(tmp_path / "blocks.npz", __meta__=absurd))
    with pytest.raises(IncompatibleNetworkError, match="not numbers"):
        load_network(saved_network(tmp_path / "text.npz", **{"stem.bias": np.array(["a"])}))


def test_numpy_forward_equals_torch_forward() -> None:
    torch = pytest.importorskip("torch")
    from agents.rl.alphazero import AlphaZeroNet

    torch.manual_seed(0)
    net = AlphaZeroNet(TRAP, GameConfig(5), channels=8, blocks=2, hidden=6).eval()
    rng = np.random.default_rng(0)
    states = []
    state = core.initial_state(GameConfig(5))
    while not core.is_terminal(state) and len(states) < 12:
        states.append(state)
        state = core.apply(state, int(rng.choice(core.legal_actions(state))))
        if state.phase is Phase.LANDING:
            state = core.apply(state, core.chance_outcomes(state)[0][0])
    planes = encode(states, TRAP)
    with torch.no_grad():
        logits, values = net(torch.from_numpy(planes))
    np_logits, np_values = net.to_network().forward(planes)
    assert np.allclose(np_logits, logits.numpy(), atol=1e-5)
    assert np.allclose(np_values, values.numpy(), atol=1e-5)


# --- Othello: the same agent on another game -------------------------------------------


def othello_values(state: object) -> dict[int, float]:
    """Plain minimax by brute force: each action's result (+1, 0, -1) for the player to act."""
    from trap_env.othello.game import GAME

    player, values = GAME.current_player(state), {}
    for action in GAME.legal_actions(state):
        child = GAME.apply(state, action)
        ended = GAME.outcome(child)
        value = ended.returns()[player] if ended else max(othello_values(child).values())
        same_side = ended is not None or GAME.current_player(child) == player
        values[action] = value if same_side else -value
    return values


def random_othello_endgames(count: int, empties: int, seed: int) -> list[object]:
    """Positions of random 4x4 games with ``empties`` empty cells, game in progress."""
    from trap_env.othello.game import GAME

    rng, found = random.Random(seed), []
    config = GAME.make_config(board_size=4)
    while len(found) < count:
        state = GAME.initial_state(config)
        while GAME.outcome(state) is None and (state.dark | state.light).bit_count() < 16 - empties:
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        if GAME.outcome(state) is None and len(GAME.legal_actions(state)) > 1:
            found.append(state)
    return found


@pytest.mark.parametrize("seed", range(4))
def test_othello_mcts_plays_a_winning_move_where_brute_force_finds_one(seed: int) -> None:
    from trap_env.othello.game import GAME

    for state in random_othello_endgames(3, 6, seed):
        values = othello_values(state)
        tree = Tree(state, c_puct=1.5, game=GAME)

        def uniform(states: list[object]) -> tuple[np.ndarray, np.ndarray]:
            return np.zeros((len(states), 17)), np.zeros(len(states))

        tree.run(uniform, 3000, lambda: False)
        chosen = tree.root.actions[tree.root.best_index()]
        assert values[chosen] == max(values.values()), (GAME.to_text(state), values, chosen)


LAYOUTS = [
    ("othello", {"board_size": 6}, (1, 1)),  # a logit per cell, and the pass
    ("colosseum", {"board_size": 4}, (4, 0)),  # a cell and a side: four logits per cell
    ("race", {"goal": 4}, (0, 3)),  # fewer actions than cells: none of them a cell
]
"""Games whose actions are not one per cell, and the policy head they get."""


@pytest.mark.parametrize(("game_name", "rules", "layout"), LAYOUTS, ids=[g for g, *_ in LAYOUTS])
def test_a_network_gives_one_logit_per_action_in_numpy_as_in_torch(
    tmp_path: Path, game_name: str, rules: dict[str, int], layout: tuple[int, int]
) -> None:
    """The head is sized from the game's actions, whatever they mean; a train step runs."""
    torch = pytest.importorskip("torch")
    from agents.rl.alphazero import AlphaZeroNet, Samples, train_step

    game = get_game(game_name)
    config = game.make_config(**rules)
    torch.manual_seed(0)
    net = AlphaZeroNet(game, config, channels=6, blocks=2, hidden=5).eval()
    states = random_decision_states(game, config, seed=0, count=12)
    planes = encode(states, game)
    with torch.no_grad():
        logits, values = net(torch.from_numpy(planes))
    network = net.to_network()
    assert logits.shape == (len(states), game.num_actions(config)) and network.layout == layout
    np_logits, np_values = network.forward(planes)
    assert np.allclose(np_logits, logits.numpy(), atol=1e-5)
    assert np.allclose(np_values, values.numpy(), atol=1e-5)
    network.save(tmp_path / "net.npz")
    loaded = load_network(tmp_path / "net.npz")
    assert (loaded.game_name, dict(loaded.rules)) == (game.name, game.config_params(config))
    assert np.array_equal(loaded.evaluate(states)[0], network.evaluate(states)[0])
    masks = np.array([game.legal_action_mask(state) for state in states], np.bool_)
    observations = np.array([game.observe(s, game.current_player(s)) for s in states], np.int8)
    batch = Samples(observations, masks, masks / masks.sum(1, keepdims=True),
                    np.zeros(len(states), np.float32))  # fmt: skip
    losses = train_step(net.train(), torch.optim.SGD(net.parameters(), lr=0.1), batch)
    assert all(np.isfinite(losses))


def test_mcts_plays_a_game_of_fewer_actions_than_cells(tmp_path: Path) -> None:
    """Race's 3 actions on a track of 5 cells: a network once sized for -2 extra actions."""
    race = toy_game.GAME
    network = Network.initial(race.make_config(goal=4), 4, 1, 4, seed=0, game=race)
    network.save(tmp_path / "race.npz")
    agent = MCTSAgent(time_limit=None, simulations=8, path=tmp_path / "race.npz", game="race",
                      seed=0)  # fmt: skip
    for seed in range(2):
        racer = toy_game.RandomRacer(seed=seed)
        players = [agent, racer] if seed == 0 else [racer, agent]
        result = play_game(players, seed=seed, game="race", params={"goal": 4},
                           time_budget=None)  # fmt: skip
        assert result.reason in ("finished", "truncated"), result.detail


@pytest.mark.parametrize(("name", "path"), STRANGERS, ids=[name for name, _ in STRANGERS])
def test_a_network_of_a_game_named_by_its_path_plays_that_game_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, path: str
) -> None:
    """A game registered nowhere (given by its path, as a runner's worker is): its network
    records its name, which its own agent reads back and no other game's does."""
    forget_strangers(monkeypatch)
    game = get_game(path)
    network = Network.initial(game.make_config(), 4, 1, 4, seed=0, game=game)
    network.save(tmp_path / "n.npz")
    spec = f"mcts:path={tmp_path / 'n.npz'},simulations=4,time_limit=none"
    players = [make_agent(spec, game=path, seed=0), make_agent("random", game=path, seed=0)]
    result = play_game(players, seed=0, game=path, time_budget=None)
    assert result.reason in (*game.end_reasons, "truncated"), result.detail
    refusal = rf"is a network of the game '{name}', which is not one of colosseum, othello, trap"
    with pytest.raises(SpecError, match=refusal + "$"):
        make_agent(spec, game="othello")
    with pytest.raises(IncompatibleNetworkError, match=refusal + "$"):
        load_network(tmp_path / "n.npz")  # a file names no module to import


@pytest.mark.parametrize(
    ("game", "message"),
    [(b'{"game": "chess", "rules": {}}', "the game 'chess', which is not one of"),
     (b'{"game": "os:system", "rules": {}}', "which is not one of"),
     (b"not json", "does not say which game"),
     (b'{"game": "othello"}', "does not say which game"),
     (b'{"game": "othello", "rules": {"board_size": 5}}', "are not rules of the game"),
     (b'{"game": "trap", "rules": {"board_size": 4, "decay": 50}}', "weights do not match")],
    ids=["unknown", "a-module-path", "not-json", "no-rules", "bad-rules", "other-game"],
)
def test_a_networks_game_record_is_read_strictly(tmp_path: Path, game: bytes, message: str) -> None:
    from trap_env.othello.game import GAME

    network = Network.initial(GAME.make_config(board_size=4), 4, 1, 3, game=GAME)
    network.save(tmp_path / "n.npz")
    with np.load(tmp_path / "n.npz") as data:
        arrays = {name: data[name] for name in data.files}
    np.savez(tmp_path / "n.npz", **{**arrays, "__game__": np.frombuffer(game, np.uint8)})
    with pytest.raises(IncompatibleNetworkError, match=message):
        load_network(tmp_path / "n.npz")


def test_a_network_of_format_1_is_read_as_trap(tmp_path: Path) -> None:
    network = Network.initial(GameConfig(4, decay=60), 4, 1, 3, game=TRAP)
    np.savez(tmp_path / "v1.npz", __meta__=np.array([1, 4, 1, 60]), **network.weights)
    loaded = load_network(tmp_path / "v1.npz")
    assert (loaded.game_name, dict(loaded.rules)) == ("trap", {"board_size": 4, "decay": 60})


def test_the_bundled_othello_network_plays_8x8_and_refuses_other_rules() -> None:
    from trap_env.othello.game import GAME

    agent = make_agent("mcts:simulations=20,time_limit=none", game="othello", seed=0)
    assert isinstance(agent, MCTSAgent) and agent.path == bundled_network("othello")
    assert agent.path.stat().st_size <= 2_000_000
    state = GAME.initial_state(GAME.make_config())
    assert agent.select_action(state) in GAME.legal_actions(state)
    with pytest.raises(UnsupportedGameError, match="--board-size 6"):
        agent.check_game(GAME.make_config(board_size=6))
    with pytest.raises(UnsupportedGameError, match="--rule end_rule=course"):
        agent.check_game(GAME.make_config(end_rule="course"))


@pytest.mark.parametrize(("network", "game"), [("trap", "othello"), ("othello", "trap")])
def test_a_bundled_network_is_refused_in_the_other_game_in_one_line(
    network: str, game: str
) -> None:
    """Trap! 8x8 and Othello 8x8 observe the same shape: the file's record tells them apart."""
    with pytest.raises(SpecError, match=rf"plays {network} \(board_size=.*\), not {game};") as e:
        make_agent(f"mcts:path={bundled_network(network)}", game=game)
    assert "\n" not in str(e.value)


def test_a_bundled_network_is_found_by_its_record_not_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's networks are the files of agents/<game>/models/ that record it and its rules."""
    from trap_env.othello.game import GAME

    models = tmp_path / "othello" / "models"
    models.mkdir(parents=True)
    Network.initial(GAME.make_config(board_size=4), 4, 1, 3, game=GAME).save(models / "any.npz")
    Network.initial(GameConfig(4), 4, 1, 3, game=TRAP).save(models / "othello_8x8.npz")
    (models / "notes.txt").write_text("not a network")
    monkeypatch.setattr(files, "AGENTS", tmp_path)
    assert bundled_network("othello", {"board_size": 4}) == models / "any.npz"
    wanted = r"othello under board_size=8, end_rule=standard \(the bundled ones play " \
             r"board_size=4, end_rule=standard\); give one with path=FILE"  # fmt: skip
    with pytest.raises(ValueError, match=f"^no bundled mcts network for {wanted}"):
        bundled_network("othello")
    with pytest.raises(SpecError, match=wanted) as error:
        make_agent("mcts", game="othello")
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match=r"^no bundled mcts network for trap; give one"):
        bundled_network("trap")


def test_default_networks_is_a_deprecated_table_of_the_lookup() -> None:
    from agents.mcts import agent

    with pytest.deprecated_call(match="call agents.mcts.network.bundled_network"):
        table = agent.DEFAULT_NETWORKS
    assert table == {game: bundled_network(game) for game in ("othello", "trap")}
