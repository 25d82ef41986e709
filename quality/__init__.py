"""Quality control above the crowd engine and the analysis: its pages, API and rules, the worker
page, gold and training settings, adjudication and flags (docs/development.md, "Layers")."""
