"""What the preregistered study is, by name: its task and its development seed.

A foundation: it imports nothing, so every layer may read it, the session log's own rules
(``study.session_io.record``: a log that names no task ran the preregistered one; a session of
the development seed is left out unless exploratory sessions are asked for) as much as the task
registry (``sopbench_tools.tasks``) and the orders (``sopbench_tools.orders``).
"""

#: The task of the preregistered study (SOP-Bench's referral-abuse detection, v2, 200 accounts).
PREREGISTERED_TASK = "referral_abuse_detection_v2"

#: The development seed: its sessions are for development only (the main seeds are 2-9).
DEVELOPMENT_SEED = 1
