"""quatro-env: multi-agent RL environments for Quatro, Kwartet and Cuatrola."""

from quatro_env.quatro_v0 import env, parallel_env

__version__ = "0.1.0"
__all__ = ["env", "parallel_env"]
