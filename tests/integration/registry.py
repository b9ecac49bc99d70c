#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""registry.py - an npm registry stand-in for tests/integration/firstrun.sh.

    registry.py ADDR PORT BASE-URL TARBALL LOG READY

Serves one package, the npm pack tarball TARBALL (NAME-VERSION.tgz, its
name and version read from its package/package.json), as a registry does:

    GET /NAME                  the packument (JSON): dist-tags.latest and
                               the version, whose dist.tarball is
                               BASE-URL/NAME/-/NAME-VERSION.tgz and whose
                               dist.shasum and dist.integrity are the
                               tarball's sha1 and sha512
    GET /NAME/-/NAME-VERSION.tgz   the tarball

Anything else is a 404. Each request is one line of LOG, "METHOD PATH
STATUS", written and flushed when it is answered. READY is created once the
socket listens, so the test waits on it instead of sleeping.
"""

import base64
import hashlib
import http.server
import json
import os
import sys
import tarfile


def package_of(tarball):
    """The tarball's bytes, and the packument and tarball paths it serves."""
    with open(tarball, "rb") as f:
        data = f.read()
    with tarfile.open(tarball, "r:gz") as t:
        meta = json.load(t.extractfile("package/package.json"))
    return data, meta["name"], meta["version"]


def main():
    addr, port, base, tarball, log, ready = sys.argv[1:7]
    data, name, version = package_of(tarball)
    tgz_path = "/%s/-/%s-%s.tgz" % (name, name, version)
    manifest = {
        "name": name,
        "version": version,
        "dist": {
            "tarball": base.rstrip("/") + tgz_path,
            "shasum": hashlib.sha1(data).hexdigest(),
            "integrity": "sha512-"
            + base64.b64encode(hashlib.sha512(data).digest()).decode(),
        },
    }
    packument = json.dumps(
        {
            "name": name,
            "dist-tags": {"latest": version},
            "versions": {version: manifest},
        }
    ).encode()
    logf = open(log, "a", buffering=1)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, body, ctype, status=200):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            logf.write("%s %s %d\n" % (self.command, self.path, status))

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path == "/" + name:
                self.answer(packument, "application/json")
            elif path == tgz_path:
                self.answer(data, "application/octet-stream")
            else:
                self.answer(b'{"error":"not found"}', "application/json", 404)

        do_HEAD = do_GET

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(n)
            self.answer(b'{"error":"not found"}', "application/json", 404)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer((addr, int(port)), Handler)
    srv.daemon_threads = True
    with open(ready + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(ready + ".tmp", ready)
    srv.serve_forever()


if __name__ == "__main__":
    main()
