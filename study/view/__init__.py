"""``study view``: a browsable viewer of session logs (matrix, session, account), served on
127.0.0.1 (``server``) or written as a static folder (``bundle``); see docs/viewer.md."""
