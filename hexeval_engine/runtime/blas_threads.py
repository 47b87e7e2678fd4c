"""One BLAS thread while an evaluation computes.

The explainers and metrics make thousands of small matrix products (a LogisticRegression's scores, LIME's
weighted ridge, distances); OpenBLAS runs the larger ones on as many threads as there are cores, and its
idle workers then spin-wait for the next call. On the 2-core reference machine that spinning was ~0.6 CPU
seconds of a 2.6 s heart upload run (two worker threads, per ``/proc/<pid>/task``), with no wall-clock gain:
the explainers already run side by side in threads (``runtime/lockstep.py``). OpenBLAS splits a product
over its output elements, each computed the same way on any thread, so the results do not change (the
whole-run tables of heart, credit risk and the heart upload are hash-identical with one and two threads;
``benchmarks/TARGETS.md``).

:data:`one_blas_thread` limits every loaded BLAS library to one thread while at least one ``with`` block
is open, and restores the previous limits when the last one closes, so overlapping evaluations in one
process (two dashboard sessions) do not undo each other's limit halfway. When the last block closes in
another thread than the first opened (two sessions), OpenBLAS 0.3.31 may keep showing the one-thread limit
to the first thread: the results are the same either way, only later BLAS work outside an evaluation may
stay on one thread.
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits

from .counted_switch import CountedSwitch


#: ``with one_blas_thread():`` computes with one BLAS thread (see the module docstring).
one_blas_thread = CountedSwitch(lambda: threadpool_limits(limits=1, user_api="blas"),
                                lambda limiter: limiter.restore_original_limits())
