"""Pages of the analysis side: the agreement dashboard and the generic report pages."""
