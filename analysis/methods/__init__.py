"""Pure analysis methods: numpy/pandas/networkx in, frozen dataclasses out. No Django here."""
