"""The emit stage, the only writer: what generated/ holds (build), how it is written (write, outdir, staging, journal)
and compared (compare), what an incremental render reuses (reuse, manifest, intact), and the worker processes (workers,
crew)."""
