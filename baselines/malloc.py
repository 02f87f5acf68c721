"""Keep freed memory in the process for reuse, so the PPO update stops page-faulting (issue 17).

An update allocates and frees the same few-MB tensors (the encoder's ``[rows, 516]`` input, the
parsed features, their gradients) hundreds of times. With glibc's defaults each such block is
``mmap``-ed and unmapped again, or trimmed off the heap's top, so every reuse faults its pages in
anew: ~100–150k minor faults and 12–15 % of an update's CPU, measured on the ppo_4p recipe. Raising
the two thresholds (``mallopt``, glibc's documented knobs) keeps freed blocks on the heap; numerics
are untouched. Linux with glibc only: anywhere else it is a no-op that says so.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>
#: blocks up to this size come from the heap, and this much free heap top is kept
KEEP_BYTES = 256 << 20


def keep_freed_memory(keep_bytes: int = KEEP_BYTES) -> bool:
    """Raise glibc's mmap and trim thresholds to ``keep_bytes``; True if both were set."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    return all(libc.mallopt(option, keep_bytes) == 1 for option in (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD))
