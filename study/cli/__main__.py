"""``python -m study.cli``: the ``study`` command."""

from study.cli import main

main()
