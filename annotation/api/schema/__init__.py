"""What the API's OpenAPI schema says of each area's answers, as serializers that only describe
(the views build their JSON by hand): the shared error bodies (``errors``), the annotation loop's
requests and answers (``loop``), the staff operations' (``staff``), and the view that serves the
schema (``views``)."""
