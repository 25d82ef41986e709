"""``python -m analysis.methods.agreement``: the agreement figures of a long CSV file."""

from analysis.methods.agreement.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
