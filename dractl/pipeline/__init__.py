"""dractl as a library: `check` and `dry_run` return one Result that every reporter renders.

Importing this package is cheap: the stages load their modules when first used.
"""

from dractl.pipeline.errors import UsageError
from dractl.pipeline.result import ALLOCATE, ENV, METADATA, VALIDATE, DocInfo, Result
from dractl.pipeline.run import CheckOptions, DryRunOptions, check, check_with_inventory, dry_run

__all__ = ["ALLOCATE", "ENV", "METADATA", "VALIDATE", "CheckOptions", "DocInfo", "DryRunOptions",
           "Result", "UsageError", "check", "check_with_inventory", "dry_run"]
