"""What the table programs are compiled for: the CPU (this module) or a GPU (``cuda.py``'s stand-in).

Every rule module decorates its functions with ``rule`` from here. For the CPU that is numba's ``njit``,
without reference counting (it costs more than the rules themselves when a table unpacks ~60 arrays)
and inlined into the table loops of ``loops.py``. ``cuda.py`` builds the GPU copy by executing the
same rule files again while a module of the same name, whose ``rule`` is numba-cuda's device
decorator, stands in for this one. So both devices run one source.
"""

from __future__ import annotations

from numba import njit

rule = njit(cache=True, _nrt=False, inline="always")
