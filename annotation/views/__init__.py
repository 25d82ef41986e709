"""Pages of the crowd workflow, one module per area: annotator, marketplace, staff."""
