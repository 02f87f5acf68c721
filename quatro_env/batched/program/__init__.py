"""The batched rules, written once as scalar programs over one table, for the CPU and the GPU.

Every rule function plays one table ``b`` exactly as the reference engine ``quatro/engine.py`` plays
its one table; none loops over tables or allocates (the work space ``W`` is handed in, a row per table
played at once). Arguments: ``S``, ``V``, ``R``, ``REC``, ``W`` the namedtuples of ``schema.py`` (state,
events, results, recorded draws, work space), ``prm``, ``offs`` and ``K`` those of ``layout.py``
(parameters, observation offsets, constant tables); constants come from ``constants.py`` as ``C.PLAY``.

* ``layout``: what the programs are handed besides the state (not compiled);
* ``target``: what the program is compiled for (``rule``, ``loop``: numba on the CPU);
* ``draws``: counter-based randomness (Q30) and card tests;
* ``round``: deal, reshuffle, end of round, sign phase, connections, a fresh match;
* ``tick``: the legality check and one tick (Q9);
* ``view``: observations (Q26–Q28), masks and sampling;
* ``loops``: the loops over the tables, the engine's entry points (on the CPU a loop over every table;
  ``cuda.py`` compiles every file but ``layout`` again for the GPU, where a loop is a kernel).
"""
