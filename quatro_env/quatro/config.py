"""The one validated configuration object of a Quatro table.

Every duration of the rules is given in seconds (Q6) and converted once to ticks by
:func:`to_ticks`; bad values raise a ``ValueError`` (pydantic's ``ValidationError``) naming the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator, model_validator

#: a duration: a finite number > 0 (booleans are refused rather than read as 1.0 s)
Seconds = Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)]
Probability = Annotated[float, Field(strict=True, ge=0, le=1, allow_inf_nan=False)]
Count = Annotated[int, Field(strict=True, gt=0)]
TABLE_SIZES = (4, 6, 8)  # Q1
#: ticks beyond this are shown as 255 in the observations (uint8 features, clipped as documented in
#: ``encoding.py``); the reference engine itself counts any duration exactly
OBSERVED_TICKS_MAX = 255


#: the built-in bot policies (Q22), bottom of the ladder up; ``quatro.bots.BOT_POLICIES`` builds them.
#: Named here, not imported from there, so that the rules layer never imports the bots above it.
BOT_POLICY_NAMES = (
    "idle", "random", "random_caller", "collector", "honest", "decoy", "eavesdropper", "counter", "listener",
    "cover", "shout",
)  # fmt: skip


class QuatroConfig(BaseModel):
    """Configuration of a Quatro table; defaults are the source's values (Q6).

    Types are strict (docs/quatro.md, decision 16): ``4.0`` is not 4 players, ``"no"`` is not
    False, ``True`` is not seat 1. A duration may exceed what the uint8 observation shows: its
    tick count is then shown as ``OBSERVED_TICKS_MAX`` (255) until fewer ticks remain (e.g.
    ``round_seconds=2e9``), while the engine plays it exactly.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    num_players: StrictInt = Field(4, description="Q1: 4, 6 or 8 players")
    tick_seconds: Seconds = Field(0.5, description="Q6: length of one tick")
    sign_phase_seconds: Seconds = Field(30.0, description="Q8: longest sign phase")
    round_seconds: Seconds = Field(180.0, description="Q10: play time before a blank round")
    pause_seconds: Seconds = Field(30.0, description="Q11: pause between rounds")
    exchange_cooldown_seconds: Seconds = Field(2.0, description="Q13")
    floor_cooldown_seconds: Seconds = Field(2.0, description="Q17")
    pulse_seconds: Seconds = Field(5.0, description="Q15: emoji pulse period")
    reminder_window_seconds: Seconds = Field(2.0, description="Q18: own-quartet confirm window")
    vote_window_seconds: Seconds = Field(20.0, description="Q20")
    vote_interval_seconds: Seconds = Field(30.0, description="Q21: between two proposals")
    points_to_win: Count = Field(5, description="Q24")
    own_quartet_guard: Literal["confirm", "off"] = Field("confirm", description="Q18 reminder")
    reveal_signs: StrictBool = Field(False, description="Q7: show every team's sign at the reveal")
    bot_seats: tuple[StrictInt, ...] = Field((), description="Q22: seats driven by a built-in bot")
    bot_policy: str = Field(
        "idle", strict=True, description="Q22: the built-in bot (options after a colon: cover:split=true)"
    )
    disconnect_prob: Probability = Field(0.0, lt=1, description="Q23: per tick, per connected seat")
    reconnect_prob: Probability = Field(0.1, description="Q23: per tick, per disconnected seat")
    disconnect_schedule: tuple[tuple[StrictInt, StrictInt, StrictBool], ...] = Field(
        (), description="Q23: (tick, seat, connected) applied just before that tick"
    )
    episode: Literal["match", "round"] = Field("match", description="episode = a match or one round")
    reward_mode: Literal["zero_sum", "team_points"] = Field("zero_sum", description="see docs/quatro.md")
    max_rounds: Count = Field(100, description="truncate a match after this many rounds")
    illegal_action: Literal["raise", "noop"] = Field("raise", description="Q29")

    @field_validator("num_players")
    @classmethod
    def _check_players(cls, n: int) -> int:
        # a Literal would take 4.0 for 4 (pydantic cannot make a Literal strict)
        if n not in TABLE_SIZES:
            raise ValueError(f"num_players: must be one of {TABLE_SIZES} (Q1), got {n}")
        return n

    @model_validator(mode="after")
    def _check_seats(self) -> QuatroConfig:
        n = self.num_players
        if len(set(self.bot_seats)) != len(self.bot_seats):
            raise ValueError(f"bot_seats: duplicate seat in {self.bot_seats}")
        for seat in self.bot_seats:
            if not 0 <= seat < n:
                raise ValueError(f"bot_seats: seat {seat} is outside 0..{n - 1}")
        if len(self.bot_seats) == n:
            raise ValueError("bot_seats: at least one seat must be played through the API")
        for tick, seat, _ in self.disconnect_schedule:
            if tick < 0 or not 0 <= seat < n:
                raise ValueError(
                    f"disconnect_schedule: entry ({tick}, {seat}) needs tick >= 0 and seat in 0..{n - 1}"
                )
        if self.bot_policy.partition(":")[0] not in BOT_POLICY_NAMES:  # options: checked by the env
            raise ValueError(
                f"bot_policy: unknown policy {self.bot_policy!r}; known: {sorted(BOT_POLICY_NAMES)} "
                "(options after a colon: 'cover:split=true')"
            )
        return self


def seconds_to_ticks(seconds: float, tick_seconds: float) -> int:
    """Round up, computed exactly on the decimal values (Q6: 2.1 s at 0.3 s is 7 ticks, not 8)."""
    return math.ceil(Fraction(str(seconds)) / Fraction(str(tick_seconds)))


@dataclass(frozen=True)
class TickDurations:
    """Every duration of the rules, in ticks."""

    sign_phase: int
    round: int
    pause: int
    exchange_cooldown: int
    floor_cooldown: int
    pulse: int
    reminder_window: int
    vote_window: int
    vote_interval: int


def to_ticks(config: QuatroConfig) -> TickDurations:
    dt = config.tick_seconds
    return TickDurations(
        sign_phase=seconds_to_ticks(config.sign_phase_seconds, dt),
        round=seconds_to_ticks(config.round_seconds, dt),
        pause=seconds_to_ticks(config.pause_seconds, dt),
        exchange_cooldown=seconds_to_ticks(config.exchange_cooldown_seconds, dt),
        floor_cooldown=seconds_to_ticks(config.floor_cooldown_seconds, dt),
        pulse=seconds_to_ticks(config.pulse_seconds, dt),
        reminder_window=seconds_to_ticks(config.reminder_window_seconds, dt),
        vote_window=seconds_to_ticks(config.vote_window_seconds, dt),
        vote_interval=seconds_to_ticks(config.vote_interval_seconds, dt),
    )
