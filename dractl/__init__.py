"""dractl: validate Kubernetes DRA manifests and dry-run their scheduling offline."""

__version__ = "0.1.0"
