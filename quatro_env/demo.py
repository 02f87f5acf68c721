"""``quatro-demo``: one short Quatro match of scripted bots, told as it happens.

Seat 0 is the *API seat*: the seat an agent plays through PettingZoo (here the built-in ``honest``
bot plays it through ``env.step``); the other seats are the env's own bot seats (``--opponents``,
default ``honest``). The demo says what the game is, narrates the moments that matter (signs
picked, quartets collected, signs shown on the channel, the call and whether it was right), shows
the whole table at the deal and at the reveal, and ends with where to go next. It needs nothing
beyond the core install.

    quatro-demo                      # 4 players, one round
    quatro-demo --players 6 --rounds 2 --opponents counter
    quatro-demo --every 1            # also the full table every tick
"""

from __future__ import annotations

from collections.abc import Sequence

from quatro_env import parallel_env
from quatro_env.common.cli import OneLineParser, int_in
from quatro_env.quatro.bots import BOT_POLICIES
from quatro_env.quatro.cards import EMOJIS, card_label, is_quartet
from quatro_env.quatro.engine import Phase

API_SEAT = 0

NEXT_STEPS = """\
Where to go next:
  * the rules, complete:          docs/rules/quatro.md (also Kwartet, Cuatrola)
  * the environment and spaces:   docs/quatro.md; in Python: quatro_env.parallel_env(num_players=4)
  * pit scripted bots:            quatro-eval honest decoy --matches 50 (needs the [eval] extra)
  * train PPO in seconds:         quatro-train --config smoke          (needs the [train] extra)
  * RLlib, TorchRL, SB3, CleanRL:  docs/integrations/index.md"""


def intro(num_players: int, points_to_win: int, opponents: str) -> str:
    teams = num_players // 2
    pairs = ", ".join(f"{t} & {t + teams}" for t in range(teams))
    return (
        f"Quatro: a real-time team card game of secret signals. {num_players} players in {teams} teams; "
        f"partners sit opposite (seats {pairs}).\n"
        "There are no turns: every tick, everyone may swap a card of their hand with one of the four "
        "face-up center cards.\n"
        "Whoever collects four of a kind (a quartet) cannot say so: they must show their team's secret "
        "sign, one of 24 emojis,\non the slow public emoji channel, and the partner calls «Quatro!» (right "
        "if the caller's PARTNER holds the quartet).\nOpponents who read the sign call «Contra!» on that "
        f"team instead. A call ends the round; first team to {points_to_win} points wins.\n\n"
        f"Seat {API_SEAT} (player_{API_SEAT}) is the API seat: your agent would play it through "
        f"env.step(); here the built-in 'honest' bot plays it.\nThe other seats are the env's own bot "
        f"seats ('{opponents}').\n"
    )


def _seat(seat: int, team_of) -> str:
    label = f"seat {seat} (T{team_of(seat)})"
    return f"{label} [API seat]" if seat == API_SEAT else label


def narrate(engine, events: Sequence, seconds: float, had_quartet: list[bool]) -> list[str]:
    """One line per event worth telling, in resolution order, plus newly collected quartets."""
    lines, who = [], lambda s: _seat(s, engine.team_of)
    at = f"{seconds:6.1f}s"
    for ev in events:
        if ev.kind == "sign_fixed":
            members = " & ".join(map(str, engine.team_members(ev.data["team"])))
            lines.append(
                f"{at}  team {ev.data['team']} picks its secret sign {EMOJIS[ev.data['sign']]} "
                f"(only seats {members} know it)"
            )
        elif ev.kind == "round_started":
            lines.append(f"{at}  round {ev.data['round']} starts: the cards are dealt")
        elif ev.kind == "pulse":
            sign = engine.team_sign[engine.team_of(ev.seat)]
            truth = (
                "its team's sign: a real signal"
                if ev.data["emoji"] == sign
                else "not its team's sign: a decoy"
            )
            lines.append(f"{at}  {who(ev.seat)} shows {EMOJIS[ev.data['emoji']]} on its channel ({truth})")
        elif ev.kind == "call":
            lines.append(f"{at}  {who(ev.seat)} {_call_text(engine, ev)}")
        elif ev.kind == "blank_round":
            lines.append(f"{at}  nobody called in time: a blank round, nobody scores")
        elif ev.kind == "match_over":
            winners = " and ".join(f"team {t}" for t in ev.data["winners"])
            lines.append(f"{at}  match over: {winners} won; scores {ev.data['scores']}")
    for seat in range(engine.n):
        quartet = engine.phase is Phase.PLAY and is_quartet(engine.hands[seat])
        if quartet and not had_quartet[seat]:
            value = card_label(engine.hands[seat][0]).rstrip("♠♥♦♣")
            partner = engine.partner_of(seat)
            lines.append(
                f"{at}  {who(seat)} now holds a quartet (four {value}s): it must get seat {partner}, its "
                "partner, to call «Quatro!»"
            )
        had_quartet[seat] = quartet
    return lines


def _call_text(engine, ev) -> str:
    scorers = " and ".join(f"team {t}" for t in ev.data["scoring_teams"])
    if ev.data["kind"] == "quatro":
        partner = engine.partner_of(ev.seat)
        verdict = (
            f"right: its partner, seat {partner}, holds a quartet; {scorers} scores"
            if ev.data["correct"]
            else f"wrong: its partner, seat {partner}, holds no quartet; {scorers} score"
        )
        return f"calls «Quatro!» on its partner's hand: {verdict}"
    target = ev.data["target_team"]
    verdict = (
        f"right: a member of team {target} holds a quartet; {scorers} scores"
        if ev.data["correct"]
        else f"wrong: nobody of team {target} holds a quartet; {scorers} scores"
    )
    return f"calls «Contra!» on team {target}: {verdict}"


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="quatro-demo", description="Watch a short Quatro match of scripted bots.")
    parser.add_argument("--players", type=int, default=4, choices=(4, 6, 8))
    parser.add_argument("--rounds", type=int_in(1), default=1, help="rounds to play (at most)")
    parser.add_argument(
        "--every", type=int_in(0), default=0, help="also show the full table every N-th tick (0: never)"
    )
    parser.add_argument(
        "--opponents", default="honest", choices=sorted(BOT_POLICIES), help="bot seats' policy"
    )
    parser.add_argument("--seed", type=int_in(0), default=0)
    args = parser.parse_args(argv)

    env = parallel_env(
        num_players=args.players,
        render_mode="ansi",
        max_rounds=args.rounds,
        bot_seats=tuple(range(1, args.players)),
        bot_policy=args.opponents,
    )
    engine = env.engine
    print(intro(args.players, env.config.points_to_win, args.opponents))
    me = BOT_POLICIES["honest"](args.players, args.seed)
    obs, infos = env.reset(seed=args.seed)
    had_quartet = [False] * args.players
    tick, total, dealt_shown = 0, 0.0, False
    dt = env.config.tick_seconds
    for line in narrate(engine, env.last_tick.events, 0.0, had_quartet):
        print(line)
    while env.agents:
        o = obs[f"player_{API_SEAT}"]
        obs, rewards, _, _, infos = env.step(
            {f"player_{API_SEAT}": me.act(o["observation"], o["action_mask"])}
        )
        total += rewards[f"player_{API_SEAT}"]
        tick += 1
        events = env.last_tick.events
        for line in narrate(engine, events, tick * dt, had_quartet):
            print(line)
        if not dealt_shown and engine.phase is Phase.PLAY:
            dealt_shown = True
            print("\nThe table after the deal (the demo sees every hand; a player sees only its own):")
            print(env.render(), end="\n\n")
        elif any(ev.kind == "reveal" for ev in events):
            print("\nThe reveal: every hand face up.")
            print(env.render(), end="\n\n")
        elif args.every and tick % args.every == 0:
            print(env.render(), end="\n\n")
    print(
        f"Episode over after {tick} ticks ({tick * dt:.1f} s of game time); team scores {engine.scores}; "
        f"the API seat's return {total:+.1f}.\n"
    )
    print(NEXT_STEPS)


if __name__ == "__main__":
    main()
