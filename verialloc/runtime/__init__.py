"""Where work runs: pools of processes or a Dask cluster for independent tasks (executor), and one call in a
child process with a time limit (child)."""
