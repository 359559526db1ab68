"""RQ job functions: resolving moves (and, later, deadlines and notifications)."""
