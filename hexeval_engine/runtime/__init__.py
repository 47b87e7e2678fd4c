"""The concurrency runtime: the helper process, work stealing, lock-step searches, BLAS threads, GC freezing.

Modules
-------
``explain``          ``explain_instances``: explain rows with the chosen methods through the runner
``parallel``         ``ExplainRunner`` (sequential / helper process / dask) and ``ExplainJob``
``helper_pool``      the long-lived helper process and what runs inside it
``forkserver_start`` the forkserver the helper is forked from, started early
``lockstep``         many explainer searches side by side in threads, batched model calls
``blas_threads``     one BLAS thread while explainers run side by side
``gc_freeze``        full garbage collections skip what was alive before a run
``counted_switch``   a reference-counted on/off switch the above share

This ``__init__`` imports nothing (the explainers import ``lockstep`` and ``counted_switch`` from here).
"""
