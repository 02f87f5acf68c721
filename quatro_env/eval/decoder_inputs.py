"""What each decoder of the secrecy yardstick (``secrecy.py``) is shown, per member and round of play.

Eve reads an opponent's observation vector (the seat one place clockwise, ``eve_seat``) with the fixed
readers of ``readers.py`` (each seat's public collection and card count); Bob reads the same and the
partner's private block, with the key applied (``keyed_features``). ``without`` zeroes groups of Eve's
inputs (the views the yardstick chooses among, ``VIEWS``), ``without_key`` takes the key out of Bob's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from quatro_env.eval.readers import card_count_features, keyed_features, ledger_features


def eve_seat(seat: int, num_players: int) -> int:
    """The opponent whose view Eve reads for member ``seat``: the next seat clockwise (another team)."""
    return (seat + 1) % num_players


def partner_seat(seat: int, num_players: int) -> int:
    return (seat + num_players // 2) % num_players  # Q2


def private_size(num_players: int) -> int:
    """Length of the private block that opens every egocentric observation (``encoding.py``)."""
    from quatro_env.quatro.encoding import make_blocks

    return make_blocks(num_players)[0].size


@dataclass
class DecoderData:
    """One sequence per (match, member, round): Eve's inputs, Bob's extra, labels and round ticks."""

    eve: list[np.ndarray]  # [ticks, obs_dim] uint8: the opponent's observations
    extra: list[np.ndarray]  # [ticks, private] uint8: the partner's private block
    y: list[np.ndarray]  # [ticks] bool: the member holds a quartet
    tick: list[np.ndarray]  # [ticks] play tick of the round
    sign: list[np.ndarray]  # [ticks] bool: the member shows the team sign
    match: np.ndarray  # [sequences] match index (the unit of the split and of the bootstrap)

    keyed: list[np.ndarray]  # [ticks, seats] uint8: seat r's last pulse (Eve's view) is the sign
    ledger: list[np.ndarray]  # [ticks, seats * 5] uint8: public collections (:func:`ledger_features`)
    counted: list[np.ndarray]  # [ticks, (seats - 1) * 5] uint8: card counts (``readers``)

    @property
    def num_players(self) -> int:
        return self.keyed[0].shape[1]  # one key column per seat

    def eve_input(self, k: int) -> np.ndarray:
        """What Eve's decoder reads of sequence ``k``: the opponent's observation, its ledger and its
        card counts."""
        return np.concatenate([self.eve[k], self.ledger[k], self.counted[k]], axis=1)

    def bob(self, k: int) -> np.ndarray:
        return np.concatenate([self.eve_input(k), self.extra[k], self.keyed[k]], axis=1)


def decoder_data(records: Sequence[dict[str, Any]], slot: int, num_players: int) -> DecoderData:
    """The decoder sequences of every team that ``slot`` played, from records made with views."""
    n, nt, p = num_players, num_players // 2, private_size(num_players)
    data = DecoderData([], [], [], [], [], np.zeros(0, np.int64), [], [], [])
    matches: list[int] = []
    for r in records:
        v = r.get("views")
        if v is None:
            continue
        for team, s_ in enumerate(r["team_slot"]):
            if s_ != slot:
                continue
            for seat in (team, team + nt):
                for rnd in np.unique(v["round"]):
                    at = v["round"] == rnd
                    data.eve.append(v["obs"][at, eve_seat(seat, n)])
                    data.extra.append(v["obs"][at, partner_seat(seat, n), :p])
                    data.y.append(v["holds"][at, seat])
                    data.tick.append(v["tick"][at])
                    data.sign.append(v["sign"][at, seat])
                    matches.append(int(r["match"]))
                    data.keyed.append(keyed_features(data.eve[-1], data.extra[-1], n))
                    data.ledger.append(ledger_features(data.eve[-1], n))
                    data.counted.append(card_count_features(data.eve[-1], n))
    data.match = np.asarray(matches, np.int64)
    return data


#: Eve's input groups for ablations (:func:`without`): the fields of the egocentric observation
#: that carry the channel, the exchanges (cards, cooldowns, the center, Eve's own hand), and the
#: resolution position of each seat's action (public after the tick, Q9: it shows *that* a seat acted)
INPUT_GROUPS = {
    "channel": (
        "floor",
        "floor_wait",
        "pulse_emoji",
        "pulse_age",
        "took_floor",
        "released_floor",
        "self.emoji",
    ),
    "exchanges": (
        "exchanged",
        "exchange_slot",
        "taken",
        "placed",
        "exchange_wait",
        "table.center",
        "self.hand",
        "self.rejected_slot",
    ),
    "order": ("order",),
}


def input_columns(num_players: int, group: str) -> np.ndarray:
    """Boolean mask over Eve's input columns of one of :data:`INPUT_GROUPS`."""
    from quatro_env.quatro.encoding import ObservationEncoder

    if group not in INPUT_GROUPS:
        raise ValueError(f"group: one of {sorted(INPUT_GROUPS)}, got {group!r}")
    enc = ObservationEncoder(num_players)
    starts = sorted(enc.offsets.items(), key=lambda kv: kv[1])
    mask = np.zeros(enc.obs_dim, bool)
    for i, (name, at) in enumerate(starts):
        end = starts[i + 1][1] if i + 1 < len(starts) else enc.obs_dim
        field = name.split(".", 1)[1]
        if any(name == f or field == f for f in INPUT_GROUPS[group]):
            mask[at:end] = True
    return mask


def without(data: DecoderData, groups: Sequence[str], num_players: int) -> DecoderData:
    """``data`` with Eve's columns of ``groups`` zeroed (Bob's extra and key unchanged): what Eve
    reads from the rest."""
    drop = np.zeros(data.eve[0].shape[1] if data.eve else 0, bool)
    for g in groups:
        drop |= input_columns(num_players, g)
    keep = (~drop).astype(np.uint8)
    # the ledger and the card counts read the exchanges (and the center, the own hand): they go with them
    cut = "exchanges" in groups
    ledger = [np.zeros_like(g) for g in data.ledger] if cut else data.ledger
    counted = [np.zeros_like(c) for c in data.counted] if cut else data.counted
    return DecoderData(
        [e * keep for e in data.eve],
        *(data.extra, data.y, data.tick, data.sign, data.match, data.keyed, ledger, counted),
    )


def without_key(data: DecoderData) -> DecoderData:
    """``data`` with the key taken out of Bob's extra (the partner's sign field and the keyed features
    zeroed; its hand kept): Bob fitted on it is the partner without the key, and Bob minus him what the
    key adds (the hand alone rules out values Eve's card count cannot)."""
    from quatro_env.quatro.encoding import make_blocks

    private = make_blocks(data.num_players)[0]
    keep = np.ones(private.size, np.uint8)
    at, size = private.offset("sign"), dict(private.fields)["sign"]
    keep[at : at + size] = 0
    return DecoderData(
        data.eve,
        [x * keep for x in data.extra],
        *(data.y, data.tick, data.sign, data.match, [np.zeros_like(k) for k in data.keyed]),
        *(data.ledger, data.counted),
    )


#: Eve's candidate input views: the groups of :data:`INPUT_GROUPS` each one zeroes. Any view is a
#: subset of an opponent's observation, so the best of them is still an opponent's read; the yardstick
#: fits all and keeps the one that reads most on the selection matches (:func:`measure`). Why: on 600
#: matches an Eve without the channel read more than the all-input one (docs/evaluation.md).
VIEWS: dict[str, tuple[str, ...]] = {
    "all": (),
    "no channel": ("channel",),
    "no exchanges": ("exchanges",),
    "neither": ("channel", "exchanges"),
}


def in_view(data: DecoderData, name: str) -> DecoderData:
    """``data`` as the view ``name`` of :data:`VIEWS` leaves it to Eve (``all``: ``data`` itself)."""
    return without(data, VIEWS[name], data.num_players) if VIEWS[name] else data
