"""quatro-env: multi-agent RL environments for Quatro, Kwartet and Cuatrola."""

from quatro_env.quatro_v0 import env, parallel_env
from quatro_env.registration import register_envs

register_envs()  # gym.make("quatro_env/QuatroSingleAgent-v0") works after `import quatro_env`

__version__ = "0.1.0"
__all__ = ["env", "parallel_env"]
