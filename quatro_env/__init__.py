"""quatro-env: multi-agent RL environments for Quatro, Kwartet and Cuatrola."""

__version__ = "0.1.0"
