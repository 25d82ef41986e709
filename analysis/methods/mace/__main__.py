"""``python -m analysis.methods.mace``: the original MACE command line (see ``cli``)."""

from analysis.methods.mace.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
