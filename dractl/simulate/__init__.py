"""The dry run: `simulate(documents, gates, options)` -> Plan (dractl.simulate.scheduler).

Imported lazily, so that readers of the data model (dractl.simulate.state) do not load the
scheduler and the allocator."""


def __getattr__(name: str):
    if name in ("simulate", "Options", "Simulation"):
        from dractl.simulate import scheduler

        return getattr(scheduler, name)
    raise AttributeError(f"module 'dractl.simulate' has no attribute {name!r}")
