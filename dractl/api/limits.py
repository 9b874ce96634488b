"""The API's limits, in one place: the sizes upstream's types declare for resource.k8s.io,
scheduling.k8s.io and the names they use (k8s.io/api and pkg/apis/resource/types.go constants,
named after them in the comments). Code that checks or relies on a limit imports it from here.

A limit that differs between releases has one constant per value; the release switch that picks
one lives in dractl/api/releases.py (e.g. `device_taints_135` picks DEVICE_TAINTS_MAX over
DEVICE_TAINTS_MAX_134).
"""

from __future__ import annotations

# -- names (apimachinery validation and resource.k8s.io name types) -------------------------------
DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
LABEL_VALUE_MAX = 63
QUALIFIED_NAME_MAX = 63
C_IDENTIFIER_MAX = 32               # resource.DeviceMaxIDLength
DOMAIN_MAX = 63                     # resource.DeviceMaxDomainLength
DRIVER_NAME_MAX = 63                # driver names
POOL_NAME_MAX = 253                 # resource.PoolNameMaxLength
RAW_JSON_MAX = 10 * 1024            # opaque config parameters (bytes)
ANNOTATIONS_MAX_BYTES = 256 * 1024  # apimachinery: total size of metadata.annotations
CONDITION_REASON_MAX = 1024         # metav1.Condition reason
CONDITION_MESSAGE_MAX = 32 * 1024   # metav1.Condition message

# -- CEL selectors ------------------------------------------------------------------------------
CEL_MAX_LENGTH = 10 * 1024          # resource.CELSelectorExpressionMaxLength (bytes)
CEL_MAX_COST = 1_000_000            # resource.CELSelectorExpressionMaxCost

# -- ResourceClaim and DeviceClass --------------------------------------------------------------
REQUESTS_MAX = 32                   # resource.DeviceRequestsMaxSize
SUBREQUESTS_MAX = 8                 # firstAvailable subrequests
CONSTRAINTS_MAX = 32                # resource.DeviceConstraintsMaxSize
CONFIG_MAX = 32                     # claim / class config entries
SELECTORS_MAX = 32                  # selectors of a request / class
TOLERATIONS_MAX = 16                # tolerations of a request
DERIVED_ATTRIBUTES_MAX = 32         # 1.37 exactly/firstAvailable derivedAttributes
RESERVED_FOR_MAX = 256              # resource.ResourceClaimReservedForMaxSize
RESULTS_MAX = 32                    # resource.AllocationResultsMaxSize (devices per claim)
ALLOCATION_CONFIG_MAX = 64          # allocation config (class + claim configs)
DEVICE_STATUS_CONDITIONS_MAX = 8    # status.devices[].conditions
INTERFACE_NAME_MAX = 256            # networkData.interfaceName
HARDWARE_ADDRESS_MAX = 128          # networkData.hardwareAddress
IPS_MAX = 16                        # status.devices[].networkData.ips
BINDING_CONDITIONS_MAX = 4          # bindingConditions, bindingFailureConditions

# -- ResourceSlice ------------------------------------------------------------------------------
DEVICES_MAX = 128                   # resource.ResourceSliceMaxDevices
DEVICES_MAX_ADVANCED = 64           # resource.ResourceSliceMaxDevicesWithAdvancedFeatures (1.35+)
ATTRS_AND_CAPACITY_MAX = 32         # resource.ResourceSliceMaxAttributesAndCapacitiesPerDevice
ATTR_VALUES_MAX = 48                # resource.ResourceSliceMaxAttributeValues (1.36+)
ATTR_VALUE_MAX_LENGTH = 64          # resource.DeviceAttributeMaxValueLength
DEVICE_TAINTS_MAX = 16              # resource.DeviceTaintsMaxLength (1.35+)
DEVICE_TAINTS_MAX_134 = 4           # the same in 1.34
COUNTER_SETS_MAX = 8                # sharedCounters sets of a slice (1.35+)
COUNTERS_PER_SET_MAX = 32           # counters of one set (1.35+)
CONSUMES_PER_DEVICE_MAX = 2         # consumesCounters of a device (1.35+)
COUNTERS_PER_CONSUMPTION_MAX = 32   # counters of one consumption (1.35+)
SHARED_COUNTERS_MAX_134 = 32        # 1.34: counters summed over a slice's sharedCounters
DEVICE_COUNTERS_MAX_134 = 32        # 1.34: counters one device consumes
SLICE_DEVICE_COUNTERS_MAX_134 = 1024  # 1.34: counters consumed by all devices of a slice
VALID_VALUES_MAX = 10               # capacity requestPolicy.validValues
COMPATIBILITY_GROUPS_MAX = 2        # 1.37 consumesCounters[].compatibilityGroups

# -- DeviceTaintRule ------------------------------------------------------------------------------
TAINT_RULE_STATUS_CONDITIONS_MAX = 8

# -- scheduling.k8s.io ----------------------------------------------------------------------------
POD_GROUPS_MAX = 8                  # Workload podGroupTemplates / podGroups
POD_GROUP_CLAIMS_MAX = 4            # PodGroup / template resourceClaims

# -- ResourcePoolStatusRequest (KEP-5677) ---------------------------------------------------------
POOL_STATUS_LIST_ITEMS_MAX = 32     # +k8s:maxItems on partitionSummary, shareableSummary.capacity
