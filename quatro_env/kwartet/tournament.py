"""Memory-vs-random Kwartet tournaments with 95% Wilson intervals; ``python -m`` prints a table.

One "focus" bot plays against ``num_players - 1`` copies of another bot. The focus seat rotates
with the game seed (seat ``seed % num_players``), so over a multiple of ``num_players`` games every
seat is used equally often. Games use ``reward_mode="win_loss"``: a seat with a positive return is
a winner (K8: most families; tied leaders share the win). Ties are reported two ways:

* **sole wins**: the focus bot has strictly the most families;
* **wins incl. shared**: the focus bot is among the leaders (a game where everyone ties, i.e.
  every return is 0, counts as shared by all; a truncated game would also read as all-zero
  returns and is counted the same way, but K8 truncation never happens with these bots).

The control row "random vs random" shows what an equally-skilled seat gets under the same tie
rules (sole wins below 1/num_players, wins incl. shared above it, since leaders often tie).
"""

from __future__ import annotations

from dataclasses import dataclass

from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from quatro_env.common.aec_tournament import play_aec_games
from quatro_env.common.cli import OneLineParser, int_in, one_line_error
from quatro_env.common.stats import wilson_interval
from quatro_env.kwartet.bots import make_bot
from quatro_env.kwartet.config import KwartetConfig
from quatro_env.kwartet.env import raw_env

MATCHUPS = (("memory", "random"), ("random", "random"), ("random", "memory"))


@dataclass(frozen=True)
class MatchupResult:
    focus: str
    opponent: str
    games: int
    sole_wins: int
    shared_wins: int  # includes sole wins

    def row(self, num_players: int) -> str:
        sole_lo, sole_hi = wilson_interval(self.sole_wins, self.games)
        any_lo, any_hi = wilson_interval(self.shared_wins, self.games)
        return (
            f"| {self.focus} vs {num_players - 1}x {self.opponent} | {self.games} "
            f"| {self.sole_wins} | {self.sole_wins / self.games:.3f} [{sole_lo:.3f}, {sole_hi:.3f}] "
            f"| {self.shared_wins} | {self.shared_wins / self.games:.3f} [{any_lo:.3f}, {any_hi:.3f}] |"
        )


def classify(returns: dict[str, float], agent: str) -> tuple[bool, bool]:
    """(sole win, win incl. shared) for ``agent`` from a game's win/loss returns."""
    winners = [a for a, r in returns.items() if r > 0]
    if not winners:  # everyone tied: all are leaders
        return False, True
    return winners == [agent], agent in winners


def play_matchup(
    focus: str, opponent: str, num_games: int, config: KwartetConfig, seed: int = 0
) -> MatchupResult:
    """Play ``num_games`` games of one ``focus`` bot against ``opponent`` bots, rotating seats."""
    config = KwartetConfig(**{**config.model_dump(), "reward_mode": "win_loss", "render_mode": None})
    n = config.num_players
    agents = [f"player_{seat}" for seat in range(n)]

    def make_policies(game_seed: int):
        focus_seat = game_seed % n
        return {
            agent: make_bot(focus if seat == focus_seat else opponent, game_seed * n + seat, config)
            for seat, agent in enumerate(agents)
        }

    results = play_aec_games(
        lambda: OrderEnforcingWrapper(raw_env(**config.model_dump())), make_policies, num_games, seed
    )
    sole = shared = 0
    for g, returns in enumerate(results):
        is_sole, is_shared = classify(returns, agents[(seed + g) % n])
        sole += is_sole
        shared += is_shared
    return MatchupResult(focus, opponent, num_games, sole, shared)


def markdown_table(results: list[MatchupResult], num_players: int) -> str:
    header = (
        "| matchup | games | sole wins | sole-win rate [95% CI] | wins incl. shared "
        "| win-or-shared rate [95% CI] |\n|---|---:|---:|---|---:|---|"
    )
    return "\n".join([header, *(r.row(num_players) for r in results)])


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(
        prog="python -m quatro_env.kwartet.tournament", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--games", type=int_in(1), default=1000, help="games per matchup")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--families", type=int, default=8)
    parser.add_argument("--seed", type=int_in(0), default=0)
    args = parser.parse_args(argv)
    try:
        config = KwartetConfig(num_players=args.players, num_families=args.families, reward_mode="win_loss")
    except ValueError as err:
        parser.error(one_line_error(err))
    results = [play_matchup(f, o, args.games, config, args.seed) for f, o in MATCHUPS]
    print(
        f"Kwartet tournament: {args.players} players, {args.families} families, "
        f"{args.games} games per matchup, seeds {args.seed}..{args.seed + args.games - 1}, seats rotated\n"
    )
    print(markdown_table(results, args.players))


if __name__ == "__main__":
    main()
