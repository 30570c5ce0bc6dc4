"""
WSGI config for bizmemory project.

It exposes the WSGI callable as a module-level variable named ``application``.

For more information on this file, see
https://docs.djangoproject.com/en/5.2/howto/deployment/wsgi/
"""

import os

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

from bizmemory.conf import secret_key_problem

os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'bizmemory.settings')

# A web server signs sessions, CSRF tokens and password-reset links: with DEBUG off it refuses to
# start on the development key (bizmemory.conf.secret_key_problem). Commands and workers do not
# load this module.
if problem := secret_key_problem(debug=settings.DEBUG, secret_key=settings.SECRET_KEY):
    raise ImproperlyConfigured(problem)

application = get_wsgi_application()
