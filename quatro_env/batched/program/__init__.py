"""The batched rules, written once as scalar programs over one table, for the CPU and the GPU.

Every rule function plays one table ``b`` (deal, a tick resolved in its order, the end of a round,
clocks, connections, rewards, masks, the observation rows, sampling), exactly as the reference engine
``quatro/engine.py`` does for its one table. No rule loops over tables or allocates. The caller hands
in the work space (``layout.Scratch``), with one row per table played at once: one row on the CPU,
one per table on the GPU.

* ``layout``: ``prm`` indices, observation offsets, the work space (not compiled);
* ``target``: what the rules are compiled for (``rule``: numba on the CPU);
* ``draws``: counter-based randomness (Q30) and card tests;
* ``round``: deal, reshuffle, end of round, sign phase, connections, a fresh match;
* ``tick``: the legality check and one tick (Q9);
* ``view``: observations (Q26–Q28), masks and sampling;
* ``loops``: the CPU loops over the tables. ``cuda.py`` instead compiles the rule files again for the
  GPU, one thread per table.

The tensors arrive as the namedtuples of ``schema.py`` (``S``: State, ``V``: Events, ``R``: Results,
``REC``: Draws), so every field is read by its declared name (``S.hands[b, s, j]``). Phases, action
kinds, call kinds and the host seat are the reference's (``constants.py``). The rule files read the
constants as ``C.PLAY``, ``C.K_EXCHANGE`` (``from quatro_env.batched import constants as C``) and the
layout as ``L.I_N``, ``L.O_HAND`` (``layout as L``): where each name comes from shows where it is used,
and numba reads a module's attributes as compile-time constants, like plain globals.
"""
