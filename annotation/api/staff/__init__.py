"""The staff's actions in the API, the twins of the admin's pages: creating annotators
(``accounts``), restarting an import (``imports``), creating a project and changing its settings
(``projects``), reviewing chosen assignments (``reviews``), and the site-wide block, unblock,
account deletion and audit log (``site``)."""
