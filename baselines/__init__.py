"""Baselines: PPO agents for Quatro (see docs/ppo.md)."""
