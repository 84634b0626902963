"""A lock that a thread of the run's process holds while a local cluster starts (test_cluster_worker_start.py)."""

import threading

LOCK = threading.Lock()
