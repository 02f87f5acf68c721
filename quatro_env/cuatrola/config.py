"""The environment's one configuration object, validated by pydantic.

Every knob of ``cuatrola_v0.env(**config)`` lives here so that a bad value fails at
construction, with pydantic's error naming the field, instead of misbehaving mid-match.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from quatro_env.cuatrola.scoring import MATCH_TARGET


class CuatrolaConfig(BaseModel):
    """Options of the Cuatrola environment (immutable; unknown keys and lax types are rejected)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    target_score: int = Field(
        MATCH_TARGET,
        ge=1,
        le=100,
        strict=True,
        description="Match points that win the match, exactly (C11); the rules use 11.",
    )
    reward: Literal["hand", "match"] = Field(
        "hand",
        description=(
            "'hand': after each hand, +/- its match points to every agent of the winning/losing pair "
            "(zero-sum). 'match': +1 / -1 to the winning / losing pair when the match ends, 0 otherwise."
        ),
    )
    cantes: bool = Field(
        True, strict=True, description="Offer cante (C10) windows; False plays without them."
    )
    render_mode: Literal["ansi", "human", "rgb_array"] | None = Field(
        None,
        description="'ansi' makes render() return a string; 'rgb_array' a picture (Pillow); "
        "'human' shows it after each step (a window where a display exists, else text).",
    )
