"""Can decoy pairs hide a quartet from the card counter? An experiment on the estimate in
docs/evaluation.md, "Where `cover` stands against the card counter" (issues 18, 19).

The card counter (``readers.card_count``) reads a member as a holder when it keeps two public copies of a
value the opponent sees nowhere else. A holder has always taken two copies in public (Q5 deals no
triple, Q12), so the only way to blur it is for non-holders to show the same thing. The docs estimate
that members who build such *decoy pairs* without knowing where the other copies lie bring this reader
to about 0.67-0.79 time-matched at best. ``DecoyCover`` tests that: the keyed split cover
(``cover:split=true``) whose neutral swaps, instead of avoiding pairs, build and keep a public pair of a
value other than the target that the center does not show. It is an experiment, not a shipped bot:
it lives here, with the measurement it was built for.

For each code the script plays ``--matches`` matches against ``counter`` (the card counter's config,
``scripts/card_count.py``; ``--opponent`` names another, e.g. ``idle``, whose rounds only the code's own
calls end, to tell the pace of the rounds from the card layout) and prints: its win rate; the share of
each card count among holding and non-holding rows, and of each public collection count (the count
before visible copies rule a value out); who ends the rounds (each side's calls); the card counter's
time-matched AUC on the yardstick's held-out matches (with the match-bootstrap interval of
``secrecy.measure``) and on every match; and two bounds on any decoy code, on every match: the card
counter if every non-holding row showed a pair, and if only those with a value Eve sees no copy of did
(a decoy can stand nowhere else). With ``--eve`` the fitted Eve and Bob of ``secrecy.measure`` are
fitted on the same matches too (minutes a code). Results: ``docs/results/secrecy/decoy_pairs.json``
(``--out DIR``: ``DIR/decoy_pairs.json``); each row keeps the settings (matches, seed, opponent, players,
``--eve``) and the command it was measured with.

    OMP_NUM_THREADS=1 python scripts/decoy_pairs.py --matches 200 [--eve] [--opponent idle] [--players 8]
"""

from __future__ import annotations

import argparse
import json
import shlex
import time
from pathlib import Path

import numpy as np

from baselines.exploit import EVAL_CONFIG, EVAL_MAX_ROUNDS
from quatro_env.bots import CoverBot
from quatro_env.common.cli import OneLineParser, int_in, one_line_error, output_dir_problem
from quatro_env.eval import readers as R
from quatro_env.eval import secrecy as S
from quatro_env.eval.policies import PolicySpec, as_policy
from quatro_env.eval.runner import MatchRunner
from quatro_env.quatro import QuatroConfig

ROOT = Path(__file__).resolve().parents[1]
#: the committed results file; ``--out DIR`` writes ``DIR/decoy_pairs.json`` instead
OUT = ROOT / "docs" / "results" / "secrecy" / "decoy_pairs.json"


#: per member and round, the exchanges it tried (refused ones included); filled by :class:`CountsTries`
TRIES: list[list[int]] = []


class CountsTries:
    """Mixed into a code: counts each member's exchange tries per round into :data:`TRIES` (the rounds
    leave a member about two: the reason the decoys barely form)."""

    def new_round(self, obs: np.ndarray) -> None:
        self._tries = [0]
        TRIES.append(self._tries)
        super().new_round(obs)

    def play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        action = super().play(obs, mask)
        self._tries[0] += self.A_EXCHANGE0 <= action < self.A_EXCHANGE0 + 16  # exchange(h, c): 4 x 4
        return action


class CountedCover(CountsTries, CoverBot):
    """``cover`` (the scale's reference code), counted."""


class SplitCover(CountedCover):
    """``cover:split=true``, counted."""

    split = True


class DecoyCover(SplitCover):
    """``cover:split=true`` whose neutral swaps build a *decoy pair*: two public copies of a value other
    than the target, kept while the real collection goes on in the other two slots."""

    def _neutral_exchange(self, obs: np.ndarray) -> int:
        hand, center = self.view.hand(obs), self.view.center(obs)
        if len(hand) != 4 or len(center) != 4:
            return 0
        counts = np.bincount(hand, minlength=self.view.v)
        in_center = np.bincount(center, minlength=self.view.v)
        target = self.target if self.target is not None else int(np.argmax(counts))
        mine = self.kept[0]  # values I took less those I placed this round (what the counter counts)
        half = self._my_half(obs)
        takes = [c for c in range(4) if center[c] != target]
        if not takes:
            return 0

        def take_rank(c: int) -> tuple[bool, bool, bool, bool]:
            x = center[c]
            # a second public copy of a value I still keep; then a value the center shows once only (so
            # the pair it starts is one the opponent cannot rule out); then my half; then one I hold none of
            second = mine[x] >= 1 and counts[x] >= 1
            return not second, in_center[x] > 1, c not in half, bool(counts[x] > 0)

        take = min(takes, key=take_rank)
        decoy = center[take]
        gives = [h for h in range(4) if hand[h] not in (target, decoy)]
        if not gives:
            return 0
        # give what I keep least of in public, then what I hold fewest of
        give = min(gives, key=lambda h: (mine[hand[h]] > 0, counts[hand[h]], h))
        return self.exchange_action(give, take)


class GuardedDecoyCover(DecoyCover):
    """:class:`DecoyCover` whose collecting exchanges also spare the decoy copies: a collector gives away
    what it holds fewest of, which is often a decoy copy."""

    def collect(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return self._spare_decoy(obs, super().collect(obs, mask))

    def _spare_decoy(self, obs: np.ndarray, action: int) -> int:
        """``action`` (an exchange or 0) giving another card if it gives a copy I keep in public and a
        card of neither the target nor a kept value can go instead."""
        if not action or not hasattr(self, "kept"):  # before the first round: nothing kept
            return action
        give, take = divmod(action - self.A_EXCHANGE0, 4)
        hand, mine = self.view.hand(obs), self.kept[0]
        if mine[hand[give]] <= 0:
            return action
        spare = [h for h in range(4) if hand[h] != self.target and mine[hand[h]] <= 0]
        return self.exchange_action(spare[0], take) if spare else action


def _code(label: str, bot: type, **options: int) -> PolicySpec:
    return PolicySpec(label, "factory", bot, tuple(options.items()))


#: the keyed split cover and its decoy variants, each at the default beat (two exchanges a pulse) and at
#: six (more exchanges, so more chances to build a pair before a quartet forms)
CODES = {
    "cover": _code("cover", CountedCover),
    "cover:split=true": _code("cover:split=true", SplitCover),
    "cover:split=true,beats=6": _code("cover:split=true,beats=6", SplitCover, beats=6),
    "decoy_cover": _code("decoy_cover", DecoyCover),
    "decoy_cover:beats=6": _code("decoy_cover:beats=6", DecoyCover, beats=6),
    "decoy_cover:guarded": _code("decoy_cover:guarded", GuardedDecoyCover),
    "decoy_cover:guarded,beats=6": _code("decoy_cover:guarded,beats=6", GuardedDecoyCover, beats=6),
}


def measure_code(
    name: str, matches: int, seed: int, eve: bool, opponent: str = "counter", players: int = 4
) -> dict:
    """Win rate, card-count shares, the card counter's time-matched AUC and the decoy bounds of one code
    against ``opponent`` (every other team of a ``players`` table)."""
    lineup = [CODES[name]] + [as_policy(opponent)] * (players // 2 - 1)
    runner = MatchRunner(QuatroConfig(num_players=players, **EVAL_CONFIG), lineup, max_rounds=EVAL_MAX_ROUNDS)
    t0 = time.perf_counter()
    TRIES.clear()
    records = [runner.play(m, seed, record_views=True) for m in range(matches)]
    wins = [any(r["team_slot"][t] == 0 for t in r["winners"]) for r in records]  # a draw is not a win
    data = S.decoder_data(records, 0, players)
    holds = np.concatenate(data.y).astype(bool)
    counted = [R.card_count(e, players) for e in data.eve]
    flat = np.concatenate(counted)
    collected = np.concatenate([R.collection_count(R.ledger_features(e, players)) for e in data.eve])
    row: dict = {"code": name, "opponent": opponent, "players": players, "matches": matches}
    row["win_rate"] = round(float(np.mean(wins)), 3)
    row["rows"], row["quartet_rows"] = int(holds.size), int(holds.sum())
    # who ends the rounds: per side, [«Quatro» made, right, «Contra» made, right] over every match
    calls = {side: np.zeros(4, np.int64) for side in ("code", opponent)}
    for r in records:
        for team, slot in enumerate(r["team_slot"]):
            calls["code" if slot == 0 else opponent] += np.asarray(r["calls"][team])
    row["rounds"] = int(sum(r["rounds"] for r in records))
    tries = np.array([t[0] for t in TRIES])  # every member-round the team's bots began
    row["member_rounds"], row["tries_per_round"] = int(tries.size), round(float(tries.mean()), 2)
    row["share_two_tries_or_fewer"] = round(float((tries <= 2).mean()), 3)
    row.update({f"calls_{side}": c.tolist() for side, c in calls.items()})
    for label, keep in (("holding", holds), ("not_holding", ~holds)):
        for reader, counts in (("card_count", flat), ("collection", collected)):
            share = np.bincount(counts[keep], minlength=R.LEDGER_CLIP + 1) / max(int(keep.sum()), 1)
            row[f"{reader}_share_{label}"] = [round(float(x), 3) for x in share]
    # Bounds on any decoy, whatever the code: the card counter if every non-holding row showed a pair
    # (count 2), and if those showed one where a value is unseen, the only place a decoy can stand
    unseen = np.concatenate([R.unseen_values(e, players)[:, -1].any(axis=1) for e in data.eve])
    row["share_not_holding_with_an_unseen_value"] = round(float(unseen[~holds].mean()), 3)
    tick_all = np.concatenate(data.tick)
    for label, can in (("every_non_holder_paired", ~holds), ("paired_where_unseen", ~holds & unseen)):
        bound = np.where(can, np.maximum(flat, 2), flat)
        auc = S.weighted_time_matched_auc(holds, bound, tick_all, np.ones((1, holds.size)))[0]
        row[f"card_counter_if_{label}"] = round(float(auc), 3)
    test = np.isin(data.match, S.held_out_matches(np.unique(data.match), seed, 0.3))
    for part, keep in (("held_out", test), ("all", np.ones_like(test))):
        idx = np.flatnonzero(keep)
        y = np.concatenate([data.y[i] for i in idx]).astype(bool)
        tick = np.concatenate([data.tick[i] for i in idx])
        s = np.concatenate([counted[i] for i in idx])
        row[f"{part}_card_counter"] = round(
            float(S.weighted_time_matched_auc(y, s, tick, np.ones((1, y.size)))[0]), 3
        )
        if part == "held_out":
            group = np.concatenate([np.full(len(data.y[i]), data.match[i]) for i in idx])
            aucs = S.weighted_time_matched_auc(y, s, tick, S.bootstrap_weights(group, S.BOOTSTRAP, seed + 1))
            row["held_out_card_counter_ci95"] = S.percentile_ci95(aucs, 3)
    if eve:
        keys = ("eve_tm_auc", "eve_tm_ci95", "bob_tm_auc", "gap", "eve_cm_auc", "eve_cm_ci95", "bob_cm_auc",
                "cm_gap", "cm_gap_ci95", "card_count_tm_auc", "eve_view", "epochs")  # fmt: skip
        report = S.measure(data, seed)
        row["secrecy"] = {k: report.get(k) for k in keys}
    row["wall_seconds"] = round(time.perf_counter() - t0, 1)
    return row


def _key(row: dict) -> tuple:
    """A result's identity: the code, its opponent (the rows before ``--opponent`` played counter), the
    players (4 before ``--players``), the matches, whether Eve and Bob were fitted, and the seed (0 before
    rows kept it)."""
    code, matches, fitted = row["code"], row["matches"], "secrecy" in row
    return code, row.get("opponent", "counter"), row.get("players", 4), matches, fitted, row.get("seed", 0)


def row_command(name: str, matches: int, seed: int, eve: bool, opponent: str, players: int, out: Path) -> str:
    """The command that measures one row again, from the repository's root."""
    command = f"OMP_NUM_THREADS=1 python scripts/decoy_pairs.py {shlex.quote(name)} --matches {matches}"
    command += f" --seed {seed}" if seed else ""
    command += " --eve" if eve else ""
    command += f" --opponent {shlex.quote(opponent)}" if opponent != "counter" else ""
    command += f" --players {players}" if players != 4 else ""
    if out.resolve() != OUT.parent.resolve():
        full = out.resolve()
        command += f" --out {shlex.quote(str(full.relative_to(ROOT) if full.is_relative_to(ROOT) else full))}"
    return command


def _code_name(text: str) -> str:
    """An argparse type: a name of :data:`CODES` (``choices`` would also check the list default)."""
    if text not in CODES:
        raise argparse.ArgumentTypeError(f"unknown code {text!r}; known: {list(CODES)}")
    return text


def build_parser() -> OneLineParser:
    """The command line: bad input is one line naming the argument, exit code 2, before any match."""
    p = OneLineParser(prog="decoy_pairs.py", description=__doc__.splitlines()[0])
    p.add_argument(
        "codes", nargs="*", type=_code_name, default=list(CODES), help=f"default: all of {list(CODES)}"
    )
    p.add_argument("--matches", type=int_in(1), default=200)
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument("--eve", action="store_true", help="also fit Eve and Bob (secrecy.measure) on the matches")
    p.add_argument("--opponent", default="counter", help="the team the code plays (default: counter)")
    p.add_argument("--players", type=int, default=4, choices=(4, 6, 8), help="table size (default: 4)")
    p.add_argument(
        "--out",
        type=Path,
        default=OUT.parent,
        metavar="DIR",
        help="folder of decoy_pairs.json (default docs/results/secrecy)",
    )
    return p


def main(argv: list[str] | None = None) -> None:
    p = build_parser()
    args = p.parse_args(argv)
    try:  # the opponent must sit at this table: a bot, or a checkpoint of this size
        as_policy(args.opponent).build(args.players, 0)
    except (ValueError, OSError) as exc:
        p.error(f"argument --opponent: {one_line_error(exc)}")
    problem = output_dir_problem(args.out, (OUT.name,))
    if problem:
        p.error(f"--out: {problem}")
    path = args.out / OUT.name
    done = json.loads(path.read_text()) if path.exists() else {"rows": []}
    rows = {_key(r): r for r in done["rows"]}
    for name in args.codes:
        row = measure_code(name, args.matches, args.seed, args.eve, args.opponent, args.players)
        row["seed"] = args.seed
        row["command"] = row_command(
            name, args.matches, args.seed, args.eve, args.opponent, args.players, args.out
        )
        rows[_key(row)] = row
        print(json.dumps(row))
        command = "OMP_NUM_THREADS=1 python scripts/decoy_pairs.py"
        command += " --matches N [--eve] [--opponent NAME] [--players P]"
        done = {"command": command, "rows": list(rows.values())}
        path.write_text(json.dumps(done, indent=1) + "\n")


if __name__ == "__main__":
    main()
