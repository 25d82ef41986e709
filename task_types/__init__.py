"""Task types: one Django app per kind of annotation work.

Each app registers its task type (and its reports) when Django loads it, in its
``AppConfig.ready``; generic code reaches a type only through the registry
(``annotation.task_types``). Adding a type is a new folder here plus one line in
``INSTALLED_APPS``.
"""
