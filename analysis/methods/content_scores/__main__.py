"""``python -m analysis.methods.content_scores``: content scores of a responses CSV file."""

from analysis.methods.content_scores.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
