"""gunicorn settings read from the working directory (`gunicorn bizmemory.wsgi` started in the
repository root picks this file up; elsewhere pass `-c /path/to/gunicorn.conf.py`).

limit_request_line: gunicorn refuses a longer request line itself, before Django, with a
plain-text 400 ("Request Line is too large"), and its bounded range stops at 8190 bytes — below
a legitimate read (a 2000-character `query` of CJK text is ~18 KB percent-encoded). 0 lets every
request line reach Django, where `bizmemory.http_errors.ApiQueryStringLimitMiddleware` answers a
query string over 32 KiB under /api/ with a JSON 414. Bound the line in the reverse proxy in
front (nginx `large_client_header_buffers 4 64k`, for instance), which the worker timeout backs.
Command-line flags still override this file.
"""

limit_request_line = 0
