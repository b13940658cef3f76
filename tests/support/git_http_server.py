#!/usr/bin/env python3
"""A git smart-HTTP server for tests: serves the bare repositories under ROOT through `git http-backend`
on 127.0.0.1, behind HTTP basic auth, so credential handling is tested against a real server.

Usage: git_http_server.py ROOT USER:PASSWORD [USER:PASSWORD ...]
Binds port 0 and prints the port as the first line of stdout. Each request is appended to
ROOT/requests.log as "METHOD PATH STATUS USER" (USER '-' when none was accepted)."""
import base64
import http.server
import os
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1])
USERS = set(sys.argv[2:])


def read_body(handler):
    if handler.headers.get('Transfer-Encoding', '').lower() == 'chunked':
        data = b''
        while True:
            size = int(handler.rfile.readline().strip().split(b';')[0], 16)
            if size == 0:
                handler.rfile.readline()
                return data
            data += handler.rfile.read(size)
            handler.rfile.readline()
    return handler.rfile.read(int(handler.headers.get('Content-Length') or 0))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.serve()

    def do_POST(self):
        self.serve()

    def note(self, status, user):
        with open(os.path.join(ROOT, 'requests.log'), 'a') as log:
            log.write(f'{self.command} {self.path} {status} {user or "-"}\n')

    def answer(self, status, headers, body):
        # Status line, headers and body in one write, as production servers send a short answer.
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header('Content-Length', str(len(body)))
        self._headers_buffer.append(b'\r\n' + body)
        self.flush_headers()

    def serve(self):
        auth = self.headers.get('Authorization', '')
        given = base64.b64decode(auth[6:]).decode(errors='replace') if auth.startswith('Basic ') else ''
        body = read_body(self)
        if given not in USERS:
            self.note(401, None)
            # With a Content-Type, as real servers send it: without one, libgit2 1.5.1 misread the body of the
            # 401 as the start of the next answer when it replayed the request with credentials.
            return self.answer(401, [('WWW-Authenticate', 'Basic realm="git"'), ('Content-Type', 'text/plain')],
                               b'authentication required\n')
        path, _, query = self.path.partition('?')
        env = dict(os.environ, GIT_PROJECT_ROOT=ROOT, GIT_HTTP_EXPORT_ALL='1', PATH_INFO=path, QUERY_STRING=query,
                   REQUEST_METHOD=self.command, CONTENT_TYPE=self.headers.get('Content-Type', ''),
                   CONTENT_LENGTH=str(len(body)), REMOTE_USER=given.split(':')[0], REMOTE_ADDR='127.0.0.1',
                   GIT_PROTOCOL=self.headers.get('Git-Protocol', ''),
                   HTTP_CONTENT_ENCODING=self.headers.get('Content-Encoding', ''))
        out = subprocess.run(['git', 'http-backend'], input=body, env=env, capture_output=True).stdout
        sep = b'\r\n\r\n' if b'\r\n\r\n' in out else b'\n\n'
        head, _, payload = out.partition(sep)
        status, headers = 200, []
        for line in head.decode(errors='replace').splitlines():
            key, _, value = line.partition(':')
            if key.lower() == 'status':
                status = int(value.split()[0])
            elif key:
                headers.append((key, value.strip()))
        self.note(status, given.split(':')[0])
        self.answer(status, headers, payload)


def main():
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
