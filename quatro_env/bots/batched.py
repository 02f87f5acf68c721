"""The scripted bot ladder, vectorised: many bot seats decided in one compiled call.

:class:`BatchedBots` plays the same rules as the numpy bots of :mod:`quatro_env.bots` (``idle``,
``random``, ``random_caller``, ``collector``, ``honest``, ``decoy``, ``eavesdropper``, ``counter``,
``listener``, and the secrecy scale's reference codes: ``cover``, in its default options and in two more
(:data:`VARIANTS`), and ``shout``),
one row per bot seat, from the seat's egocentric observation and mask alone (Q26, Q27), so bot tables
in training cost next to nothing and the ladder can be played at batch scale.
Field positions come from :class:`~quatro_env.quatro.encoding.ObservationEncoder` (by name, as
:class:`~quatro_env.bots.base.ObservationView` reads them); nothing depends on the engine's insides.

Randomness: every row gets ``NUM_DRAWS`` uniform numbers in ``[0, 1)`` per tick, one *slot* per
kind of random choice (the sign, the swap slot, the decoy's cover coin and cover emoji, the random
bot's action, the collector's per-round tie-break order). :class:`SlotRng` turns the same numbers
into the ``numpy.random.Generator`` calls the numpy bots make, so a numpy bot given a ``SlotRng``
takes exactly the decisions of its batched row (``tests/baselines/test_fast_bots.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # torch only for checkpoints: the bot names and kernels need numpy alone
    import torch

from quatro_env.bots.basic import CollectorBot
from quatro_env.bots.cover import CoverBot
from quatro_env.bots.cover_rows import (
    C_CALL_DUE,
    C_LAST_AGE,
    C_LOWER,
    C_SHOWN,
    C_SPLIT,
    NUM_COVER_COLUMNS,
    cover_row,
)
from quatro_env.bots.listening import CounterBot, EavesdropperBot, all_unknown_are
from quatro_env.bots.rows import (
    A_CONTRA1,
    A_QUATRO,
    A_READY,
    A_RELEASE,
    A_SHOW0,
    A_SIGN0,
    A_START,
    A_TAKE,
    D_CHOICE,
    D_COVER_E,
    D_COVER_P,
    D_ORDER,
    D_SIGN,
    D_SWAP,
    F_CENTER,
    F_EMOJI,
    F_HAND,
    F_PHASE,
    F_RESHUFFLED,
    F_SIGN,
    NO_CARD,
    P_COVER_RATE,
    P_KEEP,
    P_PATIENCE,
    P_SILENCE,
    P_STEADY,
    P_THRESHOLD,
    S_AGE,
    S_EXCHANGED,
    S_FLOOR,
    S_PLACED,
    S_PULSE,
    S_TAKEN,
    S_TOOK,
    E,
    argmax_at,
    cards_of,
    collect,
    first_set,
    holds_quartet,
    layout,
    njit,
)
from quatro_env.bots.signalling import DecoyBot
from quatro_env.quatro.cards import NUM_EMOJIS, num_values
from quatro_env.quatro.engine import Phase

#: bot names, in kernel order (the registry's names: ``quatro_env.quatro.bots.BOT_POLICIES``, then the
#: options of :data:`VARIANTS`, named as a line-up names them)
KINDS = (
    "idle",
    "random",
    "random_caller",
    "collector",
    "honest",
    "decoy",
    "eavesdropper",
    "counter",
    "listener",
    "cover",  # the ids above were in checkpoints before it
    "shout",  # after cover: each new bot takes the next id, so a checkpoint's ids keep their meaning
    "cover:beat=false",
    "cover:split=true",
)
(IDLE, RANDOM, RANDOM_CALLER, COLLECTOR, HONEST, DECOY, EAVESDROPPER, COUNTER, LISTENER) = range(9)
(COVER, SHOUT, COVER_CHANNEL, COVER_SPLIT) = range(9, len(KINDS))
#: the bots of :data:`KINDS` played in other options than their defaults: name -> (bot, options)
VARIANTS = {"cover:beat=false": ("cover", {"beat": False}), "cover:split=true": ("cover", {"split": True})}
NO_BOT = -1  # a row that no bot plays (a learner's or a snapshot's seat)


def num_draws(num_players: int) -> int:
    return D_ORDER + num_values(num_players)


class SlotRng:
    """The ``Generator`` calls the numpy bots make, answered from one row's draws of this tick.

    Each call kind reads its own slot (a second call of a kind in one tick is a design error and
    raises, but for the swap slot: the split cover's neutral swap may follow a collector's swap that it
    discarded whichever slot it drew, and reads the same number, as its row does); ``integers(k)`` is
    ``floor(u * k)``, ``choice(a)`` is ``a[floor(u * len(a))]`` and
    ``permutation(v)`` the stable argsort of the ``v`` order draws — the batched kernel's mapping.
    """

    def __init__(self) -> None:
        self.u = np.zeros(0)
        self._used: set[int] = set()

    def set(self, draws: np.ndarray) -> None:
        self.u, self._used = np.asarray(draws, dtype=np.float64), set()

    def _take(self, slot: int) -> float:
        if slot in self._used and slot != D_SWAP:
            raise RuntimeError(f"draw slot {slot} used twice in one tick")
        self._used.add(slot)
        return float(self.u[slot])

    def integers(self, k: int) -> int:
        slot = D_SIGN if k == NUM_EMOJIS else D_COVER_E if k == NUM_EMOJIS - 1 else D_SWAP
        return int(self._take(slot) * k)

    def random(self) -> float:
        return self._take(D_COVER_P)

    def choice(self, a: np.ndarray) -> int:
        return a[int(self._take(D_CHOICE) * len(a))]

    def permutation(self, v: int) -> np.ndarray:
        if D_ORDER in self._used:
            raise RuntimeError("order draws used twice in one tick")
        self._used.add(D_ORDER)
        return np.argsort(self.u[D_ORDER : D_ORDER + v], kind="stable")


@njit(cache=True)
def _eavesdrop(o, seats, act, teams, quiet, run_emoji, run_len, silence_ticks, steady_pulses):
    """EavesdropperBot.listen: a «Contra» action or -1; updates the row's quiet/run counters."""
    suspect = -1
    for k in range(1, teams):
        activity = False
        trigger = False
        for j in range(2):
            r = k + j * teams
            emoji = first_set(o, seats[r, S_PULSE], E)
            pulsed = o[seats[r, S_AGE]] == 0 and emoji >= 0
            took = o[seats[r, S_TOOK]] != 0
            if o[seats[r, S_FLOOR]] != 0 or took or pulsed:
                activity = True
            if (took or pulsed) and quiet[k] >= silence_ticks:
                trigger = True
            if pulsed:
                if emoji == run_emoji[r]:
                    run_len[r] += 1
                else:
                    if run_emoji[r] >= 0 and run_len[r] >= steady_pulses:
                        trigger = True
                    run_emoji[r] = emoji
                    run_len[r] = 1
        quiet[k] = 0 if activity else quiet[k] + 1
        if trigger and suspect < 0:
            suspect = k
    return -1 if suspect < 0 else act[A_CONTRA1] + suspect - 1


#: the counter's odds, the reference bot's own function compiled
_all_unknown_are = njit(cache=True)(all_unknown_are)


@njit(cache=True)
def _count(o, fields, seats, act, n, v, known, unknown, erratic, threshold, keep_weight):
    """CounterBot.listen (``record_quatro`` off): observe the exchanges, then «Contra» or -1."""
    for r in range(1, n):
        if o[fields[F_RESHUFFLED]] or not o[seats[r, S_EXCHANGED]]:  # a re-deal came after them
            continue
        taken = argmax_at(o, seats[r, S_TAKEN], v)
        placed = argmax_at(o, seats[r, S_PLACED], v)
        if known[r, placed] > 0:
            known[r, placed] -= 1
            erratic[r] = True
        elif unknown[r] > 0:
            unknown[r] -= 1
        else:
            known[r, :] = 0
            unknown[r] = 3
        known[r, taken] += 1
    unaccounted = np.full(v, 4, np.int64)
    cards = np.empty(4, np.int64)
    for start in (fields[F_HAND], fields[F_CENTER]):
        for i in range(cards_of(o, start, v, cards)):
            unaccounted[cards[i]] -= 1
    for r in range(1, n):
        for x in range(v):
            unaccounted[x] -= known[r, x]
    total = 0
    for r in range(n):
        total += unknown[r]
    probs = np.zeros(n)
    for r in range(1, n):
        held, only = 0, -1
        for x in range(v):
            if known[r, x]:
                held += 1
                only = x
        if held > 1:
            continue
        w = keep_weight if held and not erratic[r] else 1.0
        p = 0.0
        if held:
            p += _all_unknown_are(unaccounted[only], total, unknown[r], w)
        else:
            for x in range(v):
                p += _all_unknown_are(unaccounted[x], total, unknown[r], w)
        probs[r] = min(1.0, p)
    teams = n // 2
    best, best_p = -1, 0.0
    for k in range(1, teams):
        p = 1.0 - (1.0 - probs[k]) * (1.0 - probs[k + teams])
        if p > best_p:
            best, best_p = k, p
    if best >= 0 and best_p >= threshold:
        return act[A_CONTRA1] + best - 1
    return -1


@njit(cache=True)
def _play(kind, o, m, u, fields, seats, act, n, v, st_i, order, quiet, runs, known, erratic, cov, params):
    """HonestBot.play and its subclasses' hooks, for one row in the play phase."""
    if kind in (COVER, COVER_SPLIT, COVER_CHANNEL):
        beat, split = kind != COVER_CHANNEL, kind == COVER_SPLIT
        return cover_row(o, m, u, fields, seats, act, n, v, st_i, order, cov, known, params, beat, split)
    sign = first_set(o, fields[F_SIGN], E)
    partner = n // 2
    if kind == COLLECTOR:
        return collect(o, m, u, fields, act, v, st_i[2:3], st_i[3:4], order, int(params[P_PATIENCE]))
    listened = -1
    if kind == EAVESDROPPER:
        listened = _eavesdrop(
            o, seats, act, n // 2, quiet, runs[0], runs[1], int(params[P_SILENCE]), int(params[P_STEADY])
        )
    elif kind == COUNTER:
        listened = _count(
            o, fields, seats, act, n, v, known, runs[1], erratic, params[P_THRESHOLD], params[P_KEEP]
        )
    partner_sign = (
        sign >= 0 and first_set(o, seats[partner, S_PULSE], E) == sign and o[seats[partner, S_FLOOR]] != 0
    )
    if partner_sign and m[act[A_QUATRO]]:
        return act[A_QUATRO]
    if kind == LISTENER:
        return 0
    if listened >= 0:
        return listened
    if sign < 0:
        return collect(o, m, u, fields, act, v, st_i[2:3], st_i[3:4], order, int(params[P_PATIENCE]))
    floor = o[seats[0, S_FLOOR]] != 0
    mine = first_set(o, fields[F_EMOJI], E)
    decoy_like = kind in (DECOY, COUNTER)
    if holds_quartet(o, fields, v):
        if not floor:
            return act[A_TAKE] if m[act[A_TAKE]] else 0
        if not decoy_like:
            return act[A_SHOW0] + sign if mine != sign else 0
        if mine < 0:
            return act[A_SHOW0] + sign
        if mine == sign:
            return 0
        return act[A_RELEASE] if m[act[A_RELEASE]] else 0
    if kind == SHOUT and not floor and m[act[A_TAKE]]:  # ShoutBot: the floor held armed (Q16) ...
        return act[A_TAKE]
    action = collect(o, m, u, fields, act, v, st_i[2:3], st_i[3:4], order, int(params[P_PATIENCE]))
    if action or kind == SHOUT:  # ... and otherwise only collecting: no channel housekeeping
        return action
    if not decoy_like:
        return act[A_RELEASE] if floor and m[act[A_RELEASE]] else 0
    if not floor:
        return act[A_TAKE] if m[act[A_TAKE]] else 0
    if mine < 0:
        if u[D_COVER_P] < params[P_COVER_RATE]:
            e = int(u[D_COVER_E] * (E - 1))
            return act[A_SHOW0] + (e + 1 if e >= sign else e)
        return 0
    return act[A_RELEASE] if m[act[A_RELEASE]] else 0


@njit(cache=True)
def _act_rows(
    kinds,
    obs,
    masks,
    draws,
    fields,
    seats,
    act,
    calls,
    n,
    v,
    st_i,
    order,
    quiet,
    runs,
    known,
    erratic,
    cover,
    params,
    out,
):
    """Decide every row: ScriptedBot.act (phases, round starts, reshuffles) or the random bots."""
    for i in range(kinds.shape[0]):
        kind, o, m, u = kinds[i], obs[i], masks[i], draws[i]
        if kind == IDLE:
            out[i] = 0
            continue
        if kind in (RANDOM, RANDOM_CALLER):
            legal = 0
            for a in range(m.shape[0]):
                if m[a] and (kind == RANDOM_CALLER or not calls[a]):
                    legal += 1
            out[i] = 0
            if legal:
                pick = int(u[D_CHOICE] * legal)
                for a in range(m.shape[0]):
                    if m[a] and (kind == RANDOM_CALLER or not calls[a]):
                        if pick == 0:
                            out[i] = a
                            break
                        pick -= 1
            continue
        phase = argmax_at(o, fields[F_PHASE], 4)
        if phase == 1:  # Phase.PLAY
            if not st_i[i, 0]:
                st_i[i, 0] = 1
                st_i[i, 1] = 0
                st_i[i, 2] = NO_CARD  # new_round: no target, no wait, a fresh tie-break order
                st_i[i, 3] = 0
                order[i, :] = np.argsort(u[D_ORDER : D_ORDER + v], kind="mergesort")
                quiet[i, :] = 0
                runs[i, 0, :] = -1
                runs[i, 1, :] = 0
                known[i, :, :] = 0  # the counter's record, or the split cover's kept values
                if kind == COUNTER:
                    runs[i, 1, :] = 4  # the counter's unknown cards per seat (row 0: me)
                    runs[i, 1, 0] = 0
                    erratic[i, :] = False
                cover[i, C_SHOWN] = 1  # the cover's new_round (its period is kept)
                cover[i, C_LAST_AGE] = -1
                cover[i, C_CALL_DUE] = -1
                cover[i, C_SPLIT] = -1
                cover[i, C_LOWER] = 0
            else:
                st_i[i, 1] += 1
            if o[fields[F_RESHUFFLED]] and kind in (COUNTER, COVER_SPLIT):  # on_reshuffle: re-dealt
                known[i, :, :] = 0  # the counter's record, or the split cover's kept values
                if kind == COUNTER:
                    runs[i, 1, :] = 4
                    runs[i, 1, 0] = 0
                    erratic[i, :] = False
            action = _play(
                kind,
                o,
                m,
                u,
                fields,
                seats,
                act,
                n,
                v,
                st_i[i],
                order[i],
                quiet[i],
                runs[i],
                known[i],
                erratic[i],
                cover[i],
                params,
            )
        else:
            st_i[i, 0] = 0
            if phase == 0:  # Phase.SIGN
                action = act[A_SIGN0] + int(u[D_SIGN] * E) if m[act[A_SIGN0]] else act[A_READY]
            elif phase == 2:  # Phase.PAUSE
                action = act[A_START]
            else:
                action = 0
        out[i] = action if m[action] else 0


def _bot_ids(kinds: np.ndarray, where: str) -> np.ndarray:
    """``kinds`` if every id is a bot of :data:`KINDS` or :data:`NO_BOT` (the rows dispatch on it)."""
    if kinds.size and (kinds.min() < NO_BOT or kinds.max() >= len(KINDS)):
        raise ValueError(
            f"{where}: bot ids lie in [{NO_BOT}, {len(KINDS) - 1}], got {kinds.min()}..{kinds.max()}"
        )
    return kinds


class BatchedBots:
    """Bot seats as rows: ``reset_rows`` gives rows a bot (a fresh one, as at a match start), ``act``
    decides all rows from their observations, masks and this tick's draws.

    State lives in numpy arrays, one row per seat (round flags, the collector's target and
    tie-break order, the eavesdropper's silence and pulse-run counters, the counter's record), and
    is plain data: :meth:`state_dict` / :meth:`load_state_dict` carry it through a checkpoint.
    """

    def __init__(self, num_players: int, rows: int) -> None:
        assert Phase.SIGN == 0 and Phase.PLAY == 1 and Phase.PAUSE == 2  # the kernel's phase codes
        self.n, self.v, self.rows = num_players, num_values(num_players), int(rows)
        at = layout(num_players)
        self._fields, self._seats = at["fields"], at["seats"]
        self._act, self._calls = at["actions"], at["calls"]
        self.params = np.array(
            [
                CollectorBot.patience,
                EavesdropperBot.silence_ticks,
                EavesdropperBot.steady_pulses,
                CounterBot.threshold,
                CounterBot.keep_weight,
                DecoyBot.cover_rate,
                CoverBot.partner_delay,
                CoverBot.beats,
            ],
            np.float64,
        )
        assert not CounterBot.record_quatro  # the kernel plays the default counter
        assert CoverBot.beat and not CoverBot.split and not CoverBot.pulse_timing  # the cover's defaults
        # the cover's period until two own pulses show the table's: the rules' default (it is told no config)
        default_period = CoverBot(num_players).default_period
        self._fresh_cover = np.array((1, default_period, -1, -1, -1, 0), np.int64)  # a new cover's memory
        assert len(self._fresh_cover) == NUM_COVER_COLUMNS
        n, v = self.n, self.v
        self.kinds = np.full(self.rows, NO_BOT, np.int64)
        self.st_i = np.zeros((self.rows, 4), np.int64)  # in play, tick in round, target, waited
        self.order = np.zeros((self.rows, v), np.int64)
        self.quiet = np.zeros((self.rows, n // 2), np.int64)
        self.runs = np.zeros((self.rows, 2, n), np.int64)  # run emoji / run length (counter: unknown)
        self.known = np.zeros((self.rows, n, v), np.int64)  # counter: cards known; split cover: kept values
        self.erratic = np.zeros((self.rows, n), np.bool_)
        self.cover = np.zeros((self.rows, NUM_COVER_COLUMNS), np.int64)  # columns C_SHOWN .. C_LOWER
        self.num_draws = num_draws(num_players)

    @staticmethod
    def kind_ids(names: Sequence[str]) -> np.ndarray:
        unknown = sorted(set(names) - set(KINDS))
        if unknown:
            raise ValueError(f"bot: no batched version of {unknown}; known: {list(KINDS)}")
        return np.array([KINDS.index(name) for name in names], np.int64)

    def reset_rows(self, rows: np.ndarray, kinds: np.ndarray) -> None:
        """A new bot in each of ``rows`` (kind ids, :data:`KINDS`, or :data:`NO_BOT`): not in a round yet."""
        kinds = _bot_ids(np.asarray(kinds, np.int64), "kinds")
        self.kinds[rows] = kinds
        self.st_i[rows] = 0
        self.cover[rows] = self._fresh_cover

    def active_rows(self) -> np.ndarray:
        """The rows a bot plays."""
        return np.flatnonzero(self.kinds != NO_BOT)

    def name(self, row: int) -> str | None:
        """The bot playing ``row`` (None: no bot)."""
        kind = int(self.kinds[row])
        return None if kind == NO_BOT else KINDS[kind]

    def act(
        self, obs: np.ndarray, masks: np.ndarray, draws: np.ndarray, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """Actions of ``rows`` (default: all) from their ``[R, obs_dim]`` observations, masks and
        ``[R, num_draws]`` uniform draws in [0, 1).

        A draw of 1 or more would pick one past the end (``int(u * k) == k``): the compiled rows do not
        check bounds, so such draws are refused here rather than read as a silent no-op or out of range."""
        sel = np.arange(self.rows) if rows is None else np.asarray(rows, np.int64)
        if (self.kinds[sel] == NO_BOT).any():
            raise ValueError("rows: a row no bot plays was asked to act")
        draws = np.ascontiguousarray(draws, dtype=np.float64)
        if draws.shape != (len(sel), self.num_draws):
            raise ValueError(f"draws: need shape [{len(sel)}, {self.num_draws}], got {list(draws.shape)}")
        if not ((draws >= 0) & (draws < 1)).all():
            raise ValueError("draws: uniform draws must lie in [0, 1)")
        out = np.zeros(len(sel), np.int64)
        st = [a[sel] for a in self._memory()]
        _act_rows(
            self.kinds[sel],
            np.ascontiguousarray(obs),
            np.ascontiguousarray(masks),
            draws,
            self._fields,
            self._seats,
            self._act,
            self._calls,
            self.n,
            self.v,
            *st,
            self.params,
            out,
        )
        for array, new in zip(self._memory(), st, strict=True):
            array[sel] = new
        return out

    #: the bots' memory, as a checkpoint holds it (``kinds`` first, then the rows' arrays in kernel order)
    STATE = ("kinds", "st_i", "order", "quiet", "runs", "known", "erratic", "cover")

    def _memory(self) -> tuple[np.ndarray, ...]:
        """The arrays the compiled rows read and write, in their argument order."""
        return tuple(getattr(self, name) for name in self.STATE[1:])

    def state_dict(self) -> dict[str, torch.Tensor]:
        import torch

        return {name: torch.from_numpy(getattr(self, name).copy()) for name in self.STATE}

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        """Restore :meth:`state_dict`. Every entry is checked before anything changes: the names (a
        file names no other attribute), shapes, dtypes, and the bot ids the compiled rows dispatch on."""
        import torch

        if not isinstance(state, dict):
            raise ValueError(f"bots: a dict of tensors, got {type(state).__name__}")
        if "cover" not in state and set(state) == set(self.STATE) - {"cover"}:
            # written before the cover row: no row plays it (its id came last), its memory starts fresh
            state = {**state, "cover": torch.from_numpy(np.tile(self._fresh_cover, (self.rows, 1)))}
        old_cover = state.get("cover")
        if (
            isinstance(old_cover, torch.Tensor)
            and old_cover.dtype == torch.int64
            and old_cover.shape == (self.rows, 4)
        ):
            # written before the split cover's row: its two columns (no split seen yet) are added
            fresh = torch.from_numpy(np.tile(self._fresh_cover[4:], (self.rows, 1)))
            state = {**state, "cover": torch.cat([old_cover, fresh], dim=1)}
        missing, unknown = sorted(set(self.STATE) - set(state)), sorted(set(state) - set(self.STATE))
        if missing or unknown:
            raise ValueError(f"bots: missing {missing}, unknown {unknown}")
        values = {}
        for name in self.STATE:
            current, tensor = getattr(self, name), state[name]
            if not isinstance(tensor, torch.Tensor):
                raise ValueError(f"bots.{name}: a tensor, got {type(tensor).__name__}")
            value = tensor.numpy()
            if value.shape != current.shape or value.dtype != current.dtype:
                want, got = f"{current.dtype}{list(current.shape)}", f"{value.dtype}{list(value.shape)}"
                raise ValueError(f"bots.{name}: expected {want}, got {got}")
            values[name] = value
        _bot_ids(values["kinds"], "bots.kinds")
        for name, value in values.items():
            getattr(self, name)[...] = value
