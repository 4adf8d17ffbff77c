"""``study view``: a browsable viewer of session logs, served or written as a static folder.
Layer 10: may import the foundations and layers 1-9 (docs/architecture.md).

Matrix, session, account: served on 127.0.0.1 (``server``) or written as a static folder
(``bundle``); see docs/viewer.md.
"""
