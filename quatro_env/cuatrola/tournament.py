"""Bot-vs-bot Cuatrola matches with 95% Wilson intervals, printed as a markdown table.

    python -m quatro_env.cuatrola.tournament --matches 1000

Match ``g`` uses seed ``seed + g`` for the deal and the bots; pair A (the first bot) takes seats
0 and 2 in even matches and 1 and 3 in odd ones, so neither pair keeps a seat advantage (the
first dealer is drawn from the seed as well). Per-hand rewards are used, so an agent's return
is its pair's final match score minus the other pair's, positive exactly for the winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from quatro_env.common.aec_tournament import AECPolicy, play_aec_games
from quatro_env.common.cli import OneLineParser, int_in
from quatro_env.common.stats import wilson_interval
from quatro_env.cuatrola.bots import BOTS
from quatro_env.cuatrola.env import AGENTS, raw_env


@dataclass(frozen=True)
class MatchupResult:
    bot_a: str
    bot_b: str
    matches: int
    wins_a: int
    ci_low: float
    ci_high: float
    mean_margin_a: float  # pair A's final match points minus pair B's, averaged

    @property
    def win_rate_a(self) -> float:
        return self.wins_a / self.matches


def pair_a_seat(match_seed: int) -> int:
    """Seat parity of pair A in the match played with ``match_seed`` (rotates every match)."""
    return match_seed % 2


def run_matchup(bot_a: str, bot_b: str, matches: int, seed: int = 0) -> MatchupResult:
    """Play ``matches`` matches of pair ``bot_a`` against pair ``bot_b``."""
    for name in (bot_a, bot_b):
        if name not in BOTS:
            raise ValueError(f"unknown bot {name!r}; choose from {sorted(BOTS)}")

    def make_policies(match_seed: int) -> dict[str, AECPolicy]:
        a_parity = pair_a_seat(match_seed)
        return {
            agent: BOTS[bot_a if seat % 2 == a_parity else bot_b](match_seed * 4 + seat)
            for seat, agent in enumerate(AGENTS)
        }

    returns = play_aec_games(
        lambda: OrderEnforcingWrapper(raw_env(reward="hand")), make_policies, matches, seed
    )
    margins = [ret[AGENTS[pair_a_seat(seed + g)]] for g, ret in enumerate(returns)]
    wins = sum(m > 0 for m in margins)
    low, high = wilson_interval(wins, matches)
    return MatchupResult(bot_a, bot_b, matches, wins, low, high, sum(margins) / matches)


def format_table(results: Sequence[MatchupResult]) -> str:
    lines = [
        "| pair A | pair B | matches | A wins | A win rate | 95% Wilson CI | mean margin (A - B) |",
        "| --- | --- | ---: | ---: | ---: | --- | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r.bot_a} | {r.bot_b} | {r.matches} | {r.wins_a} | {r.win_rate_a:.3f} | "
            f"[{r.ci_low:.3f}, {r.ci_high:.3f}] | {r.mean_margin_a:+.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = OneLineParser(
        prog="python -m quatro_env.cuatrola.tournament", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--matches", type=int_in(1), default=1000, help="matches per matchup (default 1000)")
    parser.add_argument("--seed", type=int_in(0), default=0, help="seed of the first match (default 0)")
    parser.add_argument(
        "--matchups",
        nargs="+",
        default=["greedy:random", "greedy:greedy", "random:random"],
        help="A:B bot pairs (default: greedy:random greedy:greedy random:random)",
    )
    args = parser.parse_args(argv)
    results = []
    for matchup in args.matchups:
        bot_a, sep, bot_b = matchup.partition(":")
        if not sep or bot_a not in BOTS or bot_b not in BOTS:
            parser.error(f"bad matchup {matchup!r}: use A:B with A, B in {sorted(BOTS)}")
        results.append(run_matchup(bot_a, bot_b, args.matches, args.seed))
    print(format_table(results))


if __name__ == "__main__":
    main()
