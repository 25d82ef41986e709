"""Reads of the crowd workflow, one module per concern. Import them from their modules."""
