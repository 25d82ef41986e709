"""``python -m analysis.methods.keypoint_eval``: the evaluation's command line (see ``cli``)."""

from analysis.methods.keypoint_eval.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
