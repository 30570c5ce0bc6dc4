"""The WSGI application (``bizmemory.wsgi:application``; gunicorn serves the WSGI one).

With DEBUG off it refuses to start on the development SECRET_KEY
(:func:`bizmemory.conf.web_server_secret_key_check`).
"""

import os

from django.core.wsgi import get_wsgi_application

from bizmemory.conf import web_server_secret_key_check

os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'bizmemory.settings')

web_server_secret_key_check()

application = get_wsgi_application()
