"""What `dractl env` shows, as plain data: per pod with env references, per container, the
values, the devices they came from, and the errors."""

from __future__ import annotations

from dractl.downward import env_refs


def env_pods(plan) -> list[dict]:
    pods = []
    for p in plan.pods:
        refs = env_refs(p.pod.spec)
        if not refs:
            continue
        containers = []
        for name in dict.fromkeys(r.container for r in refs):
            containers.append({
                "name": name,
                "env": p.env.get(name, {}),
                "sources": {k: list(v) for k, v in p.env_sources.get(name, {}).items()},
                "errors": [e.to_json() for e in p.env_errors.get(name, [])],
            })
        pods.append({"namespace": p.namespace, "name": p.name, "node": p.node or None,
                     "status": p.status, "containers": containers})
    return pods
