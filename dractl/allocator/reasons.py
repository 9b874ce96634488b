"""Reason codes: why a device was not used for a request (for explanations)."""

POOL_INCOMPLETE = "pool-incomplete"          # the device's pool is being updated (not all slices seen)
POOL_INVALID = "pool-invalid"                # the device's pool is invalid (duplicate names, bad counters)
IN_USE = "in-use"                            # allocated to another claim in the cluster
ALLOCATING = "allocating"                    # picked for another claim or request in this attempt
BINDING_CONDITIONS = "binding-conditions"    # needs binding conditions, DRADeviceBindingConditions is off
CLASS_SELECTOR = "class-selector"            # a selector of the device class is false
REQUEST_SELECTOR = "request-selector"        # a selector of the request is false
SELECTOR_ERROR = "selector-error"            # a selector failed to compile or evaluate
NODE_MISMATCH = "node-mismatch"              # per-device node selection excludes this node
CAPACITY = "capacity"                        # consumable capacity missing, insufficient or against policy
COUNTERS_DISABLED = "counters-disabled"      # consumes counters, DRAPartitionableDevices is off
COUNTERS = "counters-exhausted"              # not enough shared counters left
TAINTED = "tainted"                          # an untolerated NoSchedule/NoExecute taint
CONSTRAINT = "constraint-conflict"           # a matchAttribute/distinctAttribute constraint rejects it
# 1.37: recorded by the search (not entries of checks.DEVICE_CHECKS)
COMPATIBILITY_GROUPS = "compatibility-groups"  # incompatible with devices on the same counter set
NODE_OPERATIONS = "node-operations"          # slice skips node operations the node/scheduler does not support
NOT_SELECTABLE = "not-selectable"            # internal: refined into one of the selector reasons

ALL = (POOL_INCOMPLETE, POOL_INVALID, IN_USE, ALLOCATING, BINDING_CONDITIONS, CLASS_SELECTOR,
       REQUEST_SELECTOR, SELECTOR_ERROR, NODE_MISMATCH, CAPACITY, COUNTERS_DISABLED, COUNTERS, TAINTED,
       CONSTRAINT, COMPATIBILITY_GROUPS, NODE_OPERATIONS)

DESCRIPTIONS = {
    POOL_INCOMPLETE: "pool is incomplete (being updated)",
    POOL_INVALID: "pool is invalid",
    IN_USE: "already allocated",
    ALLOCATING: "taken by another request or claim of this pod",
    BINDING_CONDITIONS: "needs binding conditions (DRADeviceBindingConditions off)",
    CLASS_SELECTOR: "device class selector is false",
    REQUEST_SELECTOR: "request selector is false",
    SELECTOR_ERROR: "selector failed to evaluate",
    NODE_MISMATCH: "not available on this node",
    CAPACITY: "not enough consumable capacity",
    COUNTERS_DISABLED: "consumes counters (DRAPartitionableDevices off)",
    COUNTERS: "shared counters exhausted",
    TAINTED: "tainted, not tolerated",
    CONSTRAINT: "violates a claim constraint",
    COMPATIBILITY_GROUPS: "compatibility groups do not match devices on the same counter set",
    NODE_OPERATIONS: "slice sets skipNodeOperations; the node does not declare DRAOptionalNodeOperations "
                     "(or the gate is off)",
}
