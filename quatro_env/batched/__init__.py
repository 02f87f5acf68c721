"""Batched Quatro: many tables stepped at once as torch tensors (CPU or GPU)."""

from quatro_env.batched.engine import BatchedQuatroEngine, StepResult
from quatro_env.batched.vector import QuatroVectorEnv

__all__ = ["BatchedQuatroEngine", "QuatroVectorEnv", "StepResult"]
