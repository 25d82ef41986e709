"""The error every write of the crowd workflow raises for a request it refuses."""


class WorkflowError(Exception):
    """A request the workflow refuses, with a message fit for the person who made it."""


class NotYours(WorkflowError):
    """The request names an assignment of another worker."""
