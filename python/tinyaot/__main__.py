"""``python -m tinyaot``: the ``tinyaot`` command."""

from ._cli import main

main()
