"""The ``tinyaot`` console command: the Rust command line, run in this process."""

from __future__ import annotations

import sys
from typing import NoReturn

from . import _native


def main() -> NoReturn:
    """Run ``tinyaot`` on ``sys.argv[1:]`` and exit with its status, as the Rust binary does."""
    args = sys.argv[1:]
    for arg in args:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            # Python keeps undecodable bytes of argv as lone surrogates, which no Rust String holds.
            sys.stderr.write("error: an argument is not valid UTF-8: {!r}\n".format(arg))
            sys.exit(2)
    # The process is the command's: SIGINT and SIGTERM remove a write's staging files, then kill
    # it, exactly as they do the binary.
    _native.install_signal_handlers()
    sys.exit(_native.run(args))
