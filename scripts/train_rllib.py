#!/usr/bin/env python
"""Kept for old command lines: the RLlib trainer is the console script ``quatro-train-rllib``
(``quatro_env.integrations.train_rllib``); this file runs the same ``main``."""

from __future__ import annotations

import sys

from quatro_env.integrations.train_rllib import load_config, main

__all__ = ["load_config", "main"]

if __name__ == "__main__":
    sys.exit(main())
