"""Session I/O: the one owner of what a session folder holds and how it is read and written.

See ``vocabulary`` for the closed sets of statuses, limits, void reasons and event kinds.
"""
