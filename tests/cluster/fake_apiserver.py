"""A read-only fake Kubernetes API server for the real kubectl: version, discovery (the legacy
APIGroupList/APIResourceList form, which kubectl falls back to when the aggregated form is not
offered) and list endpoints for the resources a test declares. A resource that is not declared
is not in discovery, so kubectl refuses it as it refuses it on a real cluster that does not
serve it ("the server doesn't have a resource type").

Listens on 127.0.0.1 only; plain HTTP (the kubeconfig names an http:// server)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass
class Resource:
    group: str            # "" for the core group
    version: str
    name: str             # plural, e.g. resourceslices
    kind: str
    namespaced: bool
    items: list[dict] = field(default_factory=list)

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def list_path(self) -> str:
        prefix = f"/apis/{self.group_version}" if self.group else f"/api/{self.version}"
        return f"{prefix}/{self.name}"


@dataclass
class FakeCluster:
    minor: int
    resources: list[Resource]
    requests: list[str] = field(default_factory=list)

    def routes(self) -> dict[str, dict]:
        out: dict[str, dict] = {
            "/version": {"major": "1", "minor": str(self.minor), "gitVersion": f"v1.{self.minor}.0",
                         "platform": "linux/amd64"},
            "/api": {"kind": "APIVersions", "versions": ["v1"],
                     "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]},
        }
        groups: dict[str, list[str]] = {}
        lists: dict[str, list[Resource]] = {}
        for r in self.resources:
            if r.group:
                versions = groups.setdefault(r.group, [])
                if r.version not in versions:
                    versions.append(r.version)
            lists.setdefault(r.group_version, []).append(r)
            out[r.list_path()] = {"kind": f"{r.kind}List", "apiVersion": r.group_version,
                                  "metadata": {"resourceVersion": "1"},
                                  "items": [{"apiVersion": r.group_version, "kind": r.kind, **i} for i in r.items]}
        out["/apis"] = {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in vs],
             "preferredVersion": {"groupVersion": f"{g}/{vs[0]}", "version": vs[0]}} for g, vs in groups.items()]}
        for gv, resources in lists.items():
            path = f"/apis/{gv}" if "/" in gv else f"/api/{gv}"
            out[path] = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": [
                {"name": r.name, "singularName": r.kind.lower(), "namespaced": r.namespaced, "kind": r.kind,
                 "verbs": ["get", "list", "watch"]} for r in resources]}
        return out


def _handler(cluster: FakeCluster, routes: dict[str, dict]):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server interface
            path = self.path.split("?", 1)[0]
            cluster.requests.append(path)
            body = routes.get(path)
            status = 200
            if body is None:
                status = 404
                body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
                        "message": "the server could not find the requested resource", "code": 404}
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    return Handler


class Serving:
    """`with Serving(cluster, tmp) as kubeconfig:` a running server and a kubeconfig for it."""

    def __init__(self, cluster: FakeCluster, directory: Path) -> None:
        self.cluster, self.directory = cluster, directory
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(cluster, cluster.routes()))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Path:
        self.thread.start()
        port = self.server.server_address[1]
        config = self.directory / "kubeconfig"
        config.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
            "users": [{"name": "fake", "user": {}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}]}))
        return config

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
