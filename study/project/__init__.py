"""A researcher's own study project: ``study new --task T DIR`` makes one, ready to be frozen;
``study task list|check`` says which tasks it can study and checks one, with a trial session of
the simulator's oracle in a scratch project (``trial.py``).
"""
