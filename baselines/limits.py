"""Upper bounds on a training run's sizes (docs/ppo.md, "Configs"), far above any run, so that a typo
(10**9 tables) is refused by name at start-up and not by the allocator. One place, below every module
that checks them: configs, policy files, trainer checkpoints and league files.
"""

#: the widest layer a network may have, in a config or a policy file (the shipped ones: 256)
MAX_WIDTH = 8192
#: the most tables a trainer runs (the shipped configs: 128; a GPU's batch: thousands), and the most
#: matches an evaluation plays (the batched engine plays them all at once, a table each)
MAX_ENVS = 2**16
#: the longest rollout, in ticks per table (the shipped configs: 64)
MAX_STEPS = 4096
#: the most past snapshots kept as opponents, each a copy of the network (the shipped configs: 5-8)
MAX_POOL = 1024
#: the largest count of agent-steps, updates or episodes (a config's budget, a checkpoint's counters):
#: exact in the float64 that the logs write, and far beyond any run
MAX_COUNT = 2**53
