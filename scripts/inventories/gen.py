"""Generates dractl/inventories/*.yaml. Not shipped; kept with the working notes."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import gorand  # noqa: E402
from emit import (b, det_hex, det_uuid, device_class, document_stream, i, k8s_suffix,  # noqa: E402
                  node, q, resource_slice, s, ver)

OUT = "/work/main/dractl/inventories"


def write(name, header, docs):
    text = document_stream(header, docs)
    with open(os.path.join(OUT, name + ".yaml"), "w") as f:
        f.write(text)
    print(name, len(text.splitlines()), "lines")


def slice_name(node_name, driver, idx=0):
    return f"{node_name}-{driver}-{k8s_suffix(f'{node_name}/{driver}/{idx}')}"


# =======================================================================================
# example-gpu: kubernetes-sigs/dra-example-driver, "gpu" profile, helm defaults
# =======================================================================================

def example_gpu():
    nodes = ["dra-example-driver-cluster-worker", "dra-example-driver-cluster-worker2"]
    docs = []
    cp = "dra-example-driver-cluster-control-plane"
    docs.append((["kind control-plane node: no DRA driver pod, NoSchedule taint."], node(
        cp,
        {"node-role.kubernetes.io/control-plane": "",
         "node.kubernetes.io/exclude-from-external-load-balancers": ""},
        {"cpu": "8", "memory": "32863564Ki", "ephemeral-storage": "485536052Ki", "pods": "110"},
        taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
        provider_id=f"kind://docker/dra-example-driver-cluster/{cp}")))
    for n in nodes:
        docs.append(([], node(n, {}, {"cpu": "8", "memory": "32863564Ki",
                                      "ephemeral-storage": "485536052Ki", "pods": "110"},
                              provider_id=f"kind://docker/dra-example-driver-cluster/{n}")))
    docs.append((["deployments/helm/dra-example-driver/templates/deviceclass.yaml (driverName gpu.example.com,",
                  "deviceClass.extendedResourceName unset = chart default)."],
                 device_class("gpu.example.com", "device.driver == 'gpu.example.com'")))
    for n in nodes:
        uuids = gorand.uuids(n, 8)
        devices = []
        for idx, u in enumerate(uuids):
            devices.append({
                "name": f"gpu-{idx}",
                "attributes": {"index": i(idx), "uuid": s(u), "model": s("LATEST-GPU-MODEL"),
                               "driverVersion": ver("1.0.0")},
                "capacity": {"memory": q("80Gi"), "compute": q("100")},
            })
        docs.append(([f"Pool {n}: 8 GPUs, uuids = generateUUIDs(seed={n})."],
                     resource_slice(slice_name(n, "gpu.example.com"), "gpu.example.com", n, n, 1, devices,
                                    generate_name=f"{n}-gpu.example.com-")))
    header = [
        "dractl builtin inventory example-gpu: dra-example-driver (gpu.example.com): 2 kind workers x 8 GPUs gpu-0..7, memory 80Gi, compute 100",
        "",
        "Two kind worker nodes running kubernetes-sigs/dra-example-driver with the Helm chart defaults",
        "(deviceProfile gpu, kubeletPlugin.numDevices 8, gpuPartitions 0, gpuAllowMultipleAllocations false),",
        "plus the kind control-plane node. Modeled on:",
        "  - kubernetes-sigs/dra-example-driver@31914ceacda29bbc55208ef75e68c0991e1c9568",
        "      internal/profiles/gpu/gpu.go  (EnumerateDevices: attributes index/uuid/model/driverVersion,",
        "                                     capacity memory 80Gi + compute 100, devices gpu-0..gpu-7,",
        "                                     one pool per node named after the node, one slice)",
        "      deployments/helm/dra-example-driver/templates/deviceclass.yaml, values.yaml",
        "      README.md lines 189-320 (a real `kubectl get resourceslice -o yaml`; it predates the",
        "      compute capacity but its uuids are exactly what generateUUIDs() yields for the node",
        "      name dra-example-driver-cluster-worker, which is how the uuids below were computed).",
        "The example driver publishes no productName and no resource.kubernetes.io/pcieRoot.",
        "The driver sets allowMultipleAllocations: false explicitly; it is omitted here (same meaning).",
        "Use with examples/gpu-pod.yaml, examples/shared-claim.yaml and the upstream",
        "demo/examples/* manifests of the example driver.",
    ]
    write("example-gpu", header, docs)


def example_gpu_partitioned():
    n = "dra-example-driver-cluster-worker"
    cp = "dra-example-driver-cluster-control-plane"
    docs = [(["kind control-plane node: no DRA driver pod, NoSchedule taint."], node(
        cp, {"node-role.kubernetes.io/control-plane": "",
             "node.kubernetes.io/exclude-from-external-load-balancers": ""},
        {"cpu": "8", "memory": "32863564Ki", "ephemeral-storage": "485536052Ki", "pods": "110"},
        taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
        provider_id=f"kind://docker/dra-example-driver-cluster/{cp}")),
        ([], node(n, {}, {"cpu": "8", "memory": "32863564Ki", "ephemeral-storage": "485536052Ki", "pods": "110"},
                  provider_id=f"kind://docker/dra-example-driver-cluster/{n}"))]
    docs.append((["deployments/helm/dra-example-driver/templates/deviceclass.yaml"],
                 device_class("gpu.example.com", "device.driver == 'gpu.example.com'")))
    parts, mem_gi, compute = 4, 80, 100

    def cap(value, minimum):
        return {"value": value, "requestPolicy": {"default": value, "validRange": {
            "min": minimum, "step": minimum, "max": value}}}

    counter_sets, devices = [], []
    for idx, u in enumerate(gorand.uuids(n, 2)):
        cs = f"gpu-{idx}-counters"
        counter_sets.append({"name": cs, "counters": {"memory": q(f"{mem_gi}Gi"), "compute": q(str(compute))}})
        base = {"index": i(idx), "uuid": s(u), "model": s("LATEST-GPU-MODEL"), "driverVersion": ver("1.0.0")}
        pm, pc = f"{mem_gi // parts}Gi", str(compute // parts)
        for j in range(parts):
            devices.append({"name": f"gpu-{idx}-partition-{j}", "allowMultipleAllocations": True,
                            "attributes": dict(base, partition=i(j), partitionable=b(True)),
                            "capacity": {"memory": cap(pm, "1Gi"), "compute": cap(pc, "1")},
                            "consumesCounters": [{"counterSet": cs, "counters": {"memory": q(pm), "compute": q(pc)}}]})
        devices.append({"name": f"gpu-{idx}-full", "allowMultipleAllocations": True,
                        "attributes": dict(base, partitionable=b(True), full=b(True)),
                        "capacity": {"memory": cap(f"{mem_gi}Gi", "1Gi"), "compute": cap(str(compute), "1")},
                        "consumesCounters": [{"counterSet": cs, "counters": {"memory": q(f"{mem_gi}Gi"),
                                                                             "compute": q(str(compute))}}]})
    docs.append((["Slice 1 of 2: the shared counters, one counter set per physical GPU."],
                 resource_slice(slice_name(n, "gpu.example.com", 0), "gpu.example.com", n, n, 2,
                                shared_counters=counter_sets, generate_name=f"{n}-gpu.example.com-")))
    docs.append((["Slice 2 of 2: per GPU, partitions 0..3 (20Gi / 25 compute each) and the full GPU."],
                 resource_slice(slice_name(n, "gpu.example.com", 1), "gpu.example.com", n, n, 2, devices,
                                generate_name=f"{n}-gpu.example.com-")))
    header = [
        "dractl builtin inventory example-gpu-partitioned: dra-example-driver, gpuPartitions=4 + "
        "gpuAllowMultipleAllocations: 1 kind worker x 2 GPUs as shareable partitions + full devices",
        "",
        "One kind worker running kubernetes-sigs/dra-example-driver installed with",
        "kubeletPlugin.numDevices=2, kubeletPlugin.gpuPartitions=4 and gpuAllowMultipleAllocations=true",
        "(plus the kind control-plane node). Needs DRAPartitionableDevices and DRAConsumableCapacity",
        "(both on from Kubernetes 1.36). Each GPU has a counter set gpu-N-counters (memory 80Gi,",
        "compute 100) consumed by its four partitions gpu-N-partition-0..3 (20Gi / 25 each) and by",
        "gpu-N-full; every device is shareable (allowMultipleAllocations) with a requestPolicy that",
        "lets claims take any 1Gi / 1-compute step of it, the whole device by default.",
        "Modeled on:",
        "  - kubernetes-sigs/dra-example-driver@31914ceacda29bbc55208ef75e68c0991e1c9568",
        "      internal/profiles/gpu/gpu.go (EnumerateDevices with partitionsPerGPU > 0: split slices,",
        "        attributes partition/partitionable/full, memoryCapacity/computeCapacity request policies)",
        "      deployments/helm/dra-example-driver/values.yaml, templates/deviceclass.yaml",
        "      demo/examples/partitionable-devices, demo/examples/gpu-allow-multiple-allocations-partitionable",
        "uuids = generateUUIDs(seed=node name), as the driver computes them.",
    ]
    write("example-gpu-partitioned", header, docs)


# =======================================================================================
# NVIDIA: shared attribute builder (kubernetes-sigs/dra-driver-nvidia-gpu)
# =======================================================================================

NV_DRIVER = "gpu.nvidia.com"
A100 = {
    "productName": "NVIDIA A100-SXM4-40GB", "brand": "Nvidia", "architecture": "Ampere",
    "cudaComputeCapability": "8.0.0", "driverVersion": "580.126.9", "cudaDriverVersion": "13.0.0",
    "addressingMode": "HMM",
}

# From the p4d.24xlarge dump (kubernetes-sigs/dranet examples/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml)
P4D_GPUS = [
    ("0000:10:1c.0", "pci0000:10", "GPU-8a10b6f7-077c-d51f-48f0-eba64feb5e9f"),
    ("0000:10:1d.0", "pci0000:10", "GPU-a498ba79-aa87-d951-24e9-fae585d4eb6c"),
    ("0000:20:1c.0", "pci0000:20", "GPU-f3aac87a-a8f2-dd37-c30c-4f299fe25b48"),
    ("0000:20:1d.0", "pci0000:20", "GPU-55d5f6e7-e985-54f9-c142-71e22fe042f3"),
    ("0000:90:1c.0", "pci0000:90", "GPU-bea92d99-f944-a6b8-42d8-bbf035386a98"),
    ("0000:90:1d.0", "pci0000:90", "GPU-4a6c805f-f918-bd23-bcde-71e7cddcf75b"),
    ("0000:a0:1c.0", "pci0000:a0", "GPU-b1b289f2-00c9-116c-cd34-c4f99e316a22"),
    ("0000:a0:1d.0", "pci0000:a0", "GPU-65978bba-bde7-3884-01ab-9a27152d2f43"),
]


def nv_gpu_attrs(uuid, bus, root, numa=None, with_addressing=True):
    a = {
        "type": s("gpu"), "uuid": s(uuid), "productName": s(A100["productName"]), "brand": s(A100["brand"]),
        "architecture": s(A100["architecture"]), "cudaComputeCapability": ver(A100["cudaComputeCapability"]),
        "driverVersion": ver(A100["driverVersion"]), "cudaDriverVersion": ver(A100["cudaDriverVersion"]),
        "resource.kubernetes.io/pciBusID": s(bus), "resource.kubernetes.io/pcieRoot": s(root),
    }
    if with_addressing:
        a["addressingMode"] = s(A100["addressingMode"])
    if numa is not None:
        a["resource.kubernetes.io/numaNode"] = i(numa)
    return a


def nv_classes():
    src = "deployments/helm/dra-driver-nvidia-gpu/templates/"
    return [
        ([src + "deviceclass-gpu.yaml",
          "(the chart sets extendedResourceName whenever it renders resource.k8s.io/v1;",
          "the field needs DRAExtendedResource, beta and on since 1.36)."],
         device_class("gpu.nvidia.com",
                      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
                      extended_resource_name="nvidia.com/gpu")),
        ([src + "deviceclass-mig.yaml"],
         device_class("mig.nvidia.com",
                      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'")),
        ([src + "deviceclass-vfio-gpu.yaml"],
         device_class("vfio.gpu.nvidia.com",
                      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'vfio'")),
    ]


def gpu_node(name, instance_type, cpu, mem, pods, extra_labels=None):
    labels = {"node.kubernetes.io/instance-type": instance_type,
              "nvidia.com/gpu.present": "true"}
    labels.update(extra_labels or {})
    return node(name, labels, {"cpu": cpu, "memory": mem, "ephemeral-storage": "1845213184Ki", "pods": pods})


def nvidia_gpu():
    nodes = [("hgx-a100-node-1", P4D_GPUS[0:4]), ("hgx-a100-node-2", P4D_GPUS[4:8])]
    docs = []
    for n, _ in nodes:
        docs.append(([], gpu_node(n, "hgx-a100-4gpu", "64", "528174396Ki", "110",
                                  {"topology.kubernetes.io/zone": "rack-a"})))
    docs += nv_classes()
    for n, gpus in nodes:
        devices = []
        for idx, (bus, root, uuid) in enumerate(gpus):
            # Keep the real bus ids/roots of the dump but renumber per node: 4 GPUs on 2 roots.
            local_bus, local_root = P4D_GPUS[idx][0], P4D_GPUS[idx][1]
            devices.append({"name": f"gpu-{idx}",
                            "attributes": nv_gpu_attrs(uuid, local_bus, local_root, numa=0),
                            "capacity": {"memory": q("40Gi")}})
        docs.append(([f"Pool {n}: gpu-0..gpu-3, two GPUs per PCIe root (pci0000:10, pci0000:20)."],
                     resource_slice(slice_name(n, NV_DRIVER), NV_DRIVER, n, n, 1, devices,
                                    generate_name=f"{n}-{NV_DRIVER}-")))
    header = [
        "dractl builtin inventory nvidia-gpu: NVIDIA DRA driver (gpu.nvidia.com): 2 nodes x 4 A100-SXM4-40GB full GPUs on 2 PCIe roots",
        "",
        "Two nodes with 4 x NVIDIA A100-SXM4-40GB each (MIG disabled), driver gpu.nvidia.com, one pool",
        "per node named after the node, devices gpu-<minor>. Modeled on:",
        "  - kubernetes-sigs/dra-driver-nvidia-gpu@95932046683719c43b6a0dd9613c2e5aad5d6703",
        "      cmd/gpu-kubelet-plugin/deviceinfo.go (GpuInfo.Attributes/GetDevice: type, uuid, productName,",
        "      brand, architecture, cudaComputeCapability, driverVersion, cudaDriverVersion, addressingMode,",
        "      resource.kubernetes.io/pciBusID, resource.kubernetes.io/pcieRoot,",
        "      resource.kubernetes.io/numaNode (scalar unless DRAListTypeAttributes); capacity memory)",
        "      deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-{gpu,mig,vfio-gpu}.yaml",
        "  - kubernetes-sigs/dranet@f258477cbea0551b7ad239e3873a997a7a3d116b",
        "      examples/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml (real p4d.24xlarge dump: the",
        "      attribute values, PCI bus ids, PCIe roots and GPU uuids below are taken from it; node 1",
        "      has its gpu-0..3 uuids, node 2 its gpu-4..7 uuids).",
        "The driver no longer publishes an `index` attribute (demo/specs/quickstart/v1/gpu-test6.yaml",
        "still selects on it and gets a CEL no-such-key error here, as it would in a real cluster).",
        "Node names, labels and capacities are illustrative.",
    ]
    write("nvidia-gpu", header, docs)


# =======================================================================================
# nvidia-mig: KEP-4815 partitionable A100 (DynamicMIG), split slices (1.35+ layout)
# =======================================================================================

# A100 40GB MIG profiles: KEP-4815 README table (name, GI profile id, memory MiB, SMs, CE, DEC, ENC, JPEG, OFA,
# placements (start list), size in memory slices). GI profile ids as NVML / `nvidia-smi mig -lgip` report them.
A100_MIG = [
    ("7g.40gb", 0, 40192, 98, 7, 5, 0, 1, 1, [0], 8),
    ("4g.20gb", 5, 19968, 56, 4, 2, 0, 0, 0, [0], 4),
    ("3g.20gb", 9, 19968, 42, 3, 2, 0, 0, 0, [0, 4], 4),
    ("2g.10gb", 14, 9856, 28, 2, 1, 0, 0, 0, [0, 2, 4], 2),
    ("1g.10gb", 15, 9856, 14, 1, 1, 0, 0, 0, [0, 2, 4, 6], 2),
    ("1g.5gb+me", 20, 4864, 14, 1, 1, 0, 1, 1, [0, 1, 2, 3, 4, 5, 6], 1),
    ("1g.5gb", 19, 4864, 14, 1, 0, 0, 0, 0, [0, 1, 2, 3, 4, 5, 6], 1),
]


def mig_caps(mem, sm, ce, dec, enc, jpeg, ofa):
    return {"multiprocessors": str(sm), "copyEngines": str(ce), "decoders": str(dec), "encoders": str(enc),
            "jpegEngines": str(jpeg), "ofaEngines": str(ofa), "memory": f"{mem}Mi"}


CAP_TO_COUNTER = {"multiprocessors": "multiprocessors", "copyEngines": "copy-engines", "decoders": "decoders",
                  "encoders": "encoders", "jpegEngines": "jpeg-engines", "ofaEngines": "ofa-engines",
                  "memory": "memory"}


def counters(caps, start, size):
    c = {CAP_TO_COUNTER[k]: q(v) for k, v in caps.items()}
    for m in range(start, start + size):
        c[f"memory-slice-{m}"] = q("1")
    return c


def rfc1123(name):
    import re
    name = name.lower()
    name = re.sub(r"[^a-z0-9-.]", "-", name).strip("-")
    return name.rstrip(".")


def nvidia_mig():
    n = "a100-mig-node-1"
    gpus = [
        (0, "0000:10:1c.0", "pci0000:10", "GPU-" + det_uuid(f"{n}/gpu-0")),
        (1, "0000:10:1d.0", "pci0000:10", "GPU-" + det_uuid(f"{n}/gpu-1")),
    ]
    # Per-GPU maximum over all profiles = the 7g.40gb profile.
    maxcaps = mig_caps(40192, 98, 7, 5, 0, 1, 1)
    counter_sets = []
    per_gpu_devices = []
    for minor, bus, root, uuid in gpus:
        cs_name = f"gpu-{minor}-counter-set"
        counter_sets.append({"name": cs_name, "counters": counters(maxcaps, 0, 8)})
        base = nv_gpu_attrs(uuid, bus, root, numa=0)
        devs = {}
        devs[f"gpu-{minor}"] = {
            "name": f"gpu-{minor}", "attributes": base,
            "capacity": {k: q(v) for k, v in maxcaps.items()},
            "consumesCounters": [{"counterSet": cs_name, "counters": counters(maxcaps, 0, 8)}],
        }
        for prof, gi_id, mem, sm, ce, dec, enc, jpeg, ofa, starts, size in A100_MIG:
            caps = mig_caps(mem, sm, ce, dec, enc, jpeg, ofa)
            attrs = {
                "type": s("mig"), "parentUUID": s(uuid), "profile": s(prof),
                "productName": s(A100["productName"]), "brand": s(A100["brand"]),
                "architecture": s(A100["architecture"]),
                "cudaComputeCapability": ver(A100["cudaComputeCapability"]),
                "driverVersion": ver(A100["driverVersion"]), "cudaDriverVersion": ver(A100["cudaDriverVersion"]),
                "addressingMode": s(A100["addressingMode"]),
                "resource.kubernetes.io/pciBusID": s(bus), "resource.kubernetes.io/pcieRoot": s(root),
                "resource.kubernetes.io/numaNode": i(0),
            }
            pname = rfc1123(prof.replace(".", ""))
            for start in starts:
                dname = f"gpu-{minor}-mig-{pname}-{gi_id}-{start}"
                devs[dname] = {
                    "name": dname, "attributes": attrs,
                    "capacity": {k: q(v) for k, v in caps.items()},
                    "consumesCounters": [{"counterSet": cs_name, "counters": counters(caps, start, size)}],
                }
        # The driver sorts devices by name (slices.Sorted) within a GPU's slice.
        per_gpu_devices.append([devs[k] for k in sorted(devs)])

    docs = [([], gpu_node(n, "a100-2gpu", "128", "528174396Ki", "110",
                          {"nvidia.com/mig.capable": "true", "nvidia.com/mig.config.state": "success"}))]
    docs += nv_classes()
    count = 1 + len(gpus)
    docs.append((["Slice 1 of 3: only the shared counters, one counter set per physical GPU",
                  "(driver.go generateSplitResourceSlices emits it first; it carries nodeName like every",
                  "slice of a node-local pool)."],
                 resource_slice(slice_name(n, NV_DRIVER, 0), NV_DRIVER, n, n, count,
                                shared_counters=counter_sets, generate_name=f"{n}-{NV_DRIVER}-")))
    for (minor, bus, _, _), devices in zip(gpus, per_gpu_devices):
        docs.append(([f"Slice {minor + 2} of 3: gpu-{minor} ({bus}) as a full device plus every MIG profile",
                      "placement, all consuming gpu-%d-counter-set." % minor],
                     resource_slice(slice_name(n, NV_DRIVER, minor + 1), NV_DRIVER, n, n, count, devices,
                                    generate_name=f"{n}-{NV_DRIVER}-")))
    header = [
        "dractl builtin inventory nvidia-mig: NVIDIA DRA driver, partitionable A100 (shared counters, DRAPartitionableDevices): 1 node x 2 GPUs + all MIG placements",
        "",
        "One node with 2 x NVIDIA A100-SXM4-40GB announced as partitionable devices (KEP-4815):",
        "Kubernetes feature gate DRAPartitionableDevices (alpha 1.34-1.35, beta/on 1.36+) and the NVIDIA",
        "driver's DynamicMIG feature gate. Each GPU has one counter set (gpu-N-counter-set) holding",
        "multiprocessors 98, copy-engines 7, decoders 5, encoders 0, jpeg-engines 1, ofa-engines 1,",
        "memory 40192Mi and memory-slice-0..7; the full GPU consumes everything, each MIG placement",
        "consumes its profile's engines plus its memory slices. Layout: one pool per node with G+1",
        "slices (a counter-only slice first, then one device slice per GPU), as on Kubernetes 1.35+.",
        "Use --kube-version 1.36 or newer, or --feature-gates DRAPartitionableDevices=true on 1.35.",
        "Modeled on:",
        "  - kubernetes-sigs/dra-driver-nvidia-gpu@95932046683719c43b6a0dd9613c2e5aad5d6703",
        "      cmd/gpu-kubelet-plugin/partitions.go (counter set gpu-N-counter-set, camelToDNSName counter",
        "        names, memory-slice-N counters, full device = max capacities over all profiles)",
        "      cmd/gpu-kubelet-plugin/mig.go (MIG device names gpu-<minor>-mig-<profile without dots>-",
        "        <GI profile id>-<placement start>, CommonAttributesMig, CommonCapacitiesMig)",
        "      cmd/gpu-kubelet-plugin/driver.go (generateSplitResourceSlices, devices sorted by name)",
        "      cmd/gpu-kubelet-plugin/nvlib.go (inspectMigProfilesAndPlacements)",
        "      deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-{gpu,mig,vfio-gpu}.yaml",
        "  - kubernetes/enhancements keps/sig-scheduling/4815-dra-partitionable-devices/README.md",
        "      (A100 40GB MIG profile table: memory, multiprocessors, engines, placements).",
        "Deviation, on purpose: the full GPUs gpu-0/gpu-1 are announced next to their MIG placements, as",
        "the driver does for GPUs that toggle MIG mode without a reset (Hopper and newer) and as KEP-4815",
        "models the A100; on a real A100 with MIG mode enabled the driver omits the full GPU",
        "(dra-driver-nvidia-gpu PR #1018). GPU uuids, node name, labels and capacities are illustrative.",
        "The KEP's own example uses counter names memorySlice0..7 and device names like",
        "gpu-0-mig-1g.5gb-0, which the v1 API rejects (counter names and device names must be DNS",
        "labels); the driver uses memory-slice-N and gpu-0-mig-1g5gb-19-0.",
    ]
    write("nvidia-mig", header, docs)


# =======================================================================================
# mixed: AWS p4d.24xlarge, NVIDIA GPUs + dranet EFA/ENA NICs sharing PCIe roots
# =======================================================================================

P4D_NICS = [
    # name, attributes (exactly as dumped)
    ("pci-0000-10-1b-0", {"dra.net/numaNode": i(0), "dra.net/pciAddress": s("0000:10:1b.0"),
                          "dra.net/pciDevice": s("Elastic Fabric Adapter (EFA)"), "dra.net/pciSubsystem": s("efa0"),
                          "dra.net/pciVendor": s("Amazon.com, Inc."), "dra.net/rdma": b(True),
                          "dra.net/rdmaDevice": s("rdmap16s27"), "resource.kubernetes.io/pcieRoot": s("pci0000:10")}),
    ("pci-0000-20-01-0", "ENA", "ens65", "0000:20:01.0", "pci0000:20", 0),
    ("pci-0000-20-1b-0", {"dra.net/numaNode": i(0), "dra.net/pciAddress": s("0000:20:1b.0"),
                          "dra.net/pciDevice": s("Elastic Fabric Adapter (EFA)"), "dra.net/pciSubsystem": s("efa0"),
                          "dra.net/pciVendor": s("Amazon.com, Inc."), "dra.net/rdma": b(True),
                          "dra.net/rdmaDevice": s("rdmap32s27"), "resource.kubernetes.io/pcieRoot": s("pci0000:20")}),
    ("pci-0000-90-01-0", "ENA", "ens129", "0000:90:01.0", "pci0000:90", 1),
    ("pci-0000-90-1b-0", {"dra.net/numaNode": i(1), "dra.net/pciAddress": s("0000:90:1b.0"),
                          "dra.net/pciDevice": s("Elastic Fabric Adapter (EFA)"), "dra.net/pciSubsystem": s("efa0"),
                          "dra.net/pciVendor": s("Amazon.com, Inc."), "dra.net/rdma": b(True),
                          "dra.net/rdmaDevice": s("rdmap144s27"), "resource.kubernetes.io/pcieRoot": s("pci0000:90")}),
    ("pci-0000-a0-01-0", "ENA", "ens161", "0000:a0:01.0", "pci0000:a0", 1),
    ("pci-0000-a0-1b-0", {"dra.net/numaNode": i(1), "dra.net/pciAddress": s("0000:a0:1b.0"),
                          "dra.net/pciDevice": s("Elastic Fabric Adapter (EFA)"), "dra.net/pciSubsystem": s("efa0"),
                          "dra.net/pciVendor": s("Amazon.com, Inc."), "dra.net/rdma": b(True),
                          "dra.net/rdmaDevice": s("rdmap160s27"), "resource.kubernetes.io/pcieRoot": s("pci0000:a0")}),
]
P4D_ENA_REAL = {  # node 1 values from the dump: ipv4, mac
    "ens65": ("192.168.155.224/19", "0e:96:fe:e8:a3:f5"),
    "ens129": ("192.168.144.206/19", "0e:3e:8a:cc:9f:b3"),
    "ens161": ("192.168.146.128/19", "0e:0b:90:44:2f:6f"),
}


def ena_attrs(ifname, addr, root, numa, ipv4, mac):
    return {"dra.net/alias": s(""), "dra.net/ebpf": b(False), "dra.net/encapsulation": s("ether"),
            "dra.net/ifName": s(ifname), "dra.net/ipv4": s(ipv4), "dra.net/mac": s(mac), "dra.net/mtu": i(9001),
            "dra.net/numaNode": i(numa), "dra.net/pciAddress": s(addr),
            "dra.net/pciDevice": s("Elastic Network Adapter (ENA)"), "dra.net/pciSubsystem": s("ec20"),
            "dra.net/pciVendor": s("Amazon.com, Inc."), "dra.net/rdma": b(False), "dra.net/sriov": b(False),
            "dra.net/state": s("up"), "dra.net/type": s("device"), "dra.net/virtual": b(False),
            "resource.kubernetes.io/pcieRoot": s(root)}


def mixed():
    nodes = [
        ("ip-192-168-153-160.ec2.internal", "192.168.153.160", "i-0a1b2c3d4e5f60718"),
        ("ip-192-168-171-37.ec2.internal", "192.168.171.37", "i-0f9e8d7c6b5a43921"),
    ]
    docs = []
    for n, ip, iid in nodes:
        nd = node(n, {"node.kubernetes.io/instance-type": "p4d.24xlarge",
                      "topology.kubernetes.io/region": "us-east-1", "topology.kubernetes.io/zone": "us-east-1b",
                      "eks.amazonaws.com/nodegroup": "gpu-efa", "eks.amazonaws.com/capacityType": "ON_DEMAND",
                      "k8s.io/cloud-provider-aws": "9d1c2e0f4b7a6e35", "vpc.amazonaws.com/efa.present": "true",
                      "nvidia.com/gpu.present": "true"},
                  {"cpu": "96", "memory": "1176537008Ki", "ephemeral-storage": "104845292Ki", "pods": "737"},
                  allocatable={"cpu": "95690m", "memory": "1163917744Ki", "ephemeral-storage": "95551679124",
                               "pods": "737"},
                  provider_id=f"aws:///us-east-1b/{iid}")
        docs.append(([], nd))
    docs += nv_classes()
    docs.append((["kubernetes-sigs/dranet examples/aws_eks_examples/gpu-efa/device-class.yaml (installed by the",
                  "aws-dranet Helm chart)."],
                 device_class("efa.networking.k8s.aws",
                              'device.driver == "dra.net" &&\n'
                              "device.attributes[\"dra.net\"].pciDevice == 'Elastic Fabric Adapter (EFA)'\n")))
    docs.append((["kubernetes-sigs/dranet examples/distributed_training/device-class.yaml"],
                 device_class("dranet.net", 'device.driver == "dra.net"')))
    for k, (n, ip, _) in enumerate(nodes):
        devices = []
        for idx, (bus, root, uuid) in enumerate(P4D_GPUS):
            if k > 0:
                uuid = "GPU-" + det_uuid(f"{n}/gpu-{idx}")
            devices.append({"name": f"gpu-{idx}", "attributes": nv_gpu_attrs(uuid, bus, root),
                            "capacity": {"memory": q("40Gi")}})
        docs.append(([("Real dump (dranet examples/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml)." if k == 0 else
                       "Same hardware as the first node; fresh GPU uuids.")],
                     resource_slice(f"{n}-{NV_DRIVER}-" + ("xz4s4" if k == 0 else k8s_suffix(n + NV_DRIVER)),
                                    NV_DRIVER, n, n, 1, devices, generate_name=f"{n}-{NV_DRIVER}-")))
        nics = []
        for entry in P4D_NICS:
            if isinstance(entry[1], dict):
                nics.append({"name": entry[0], "attributes": entry[1]})
            else:
                name, _, ifname, addr, root, numa = entry
                if k == 0:
                    ipv4, mac = P4D_ENA_REAL[ifname]
                else:
                    h = det_hex(f"{n}/{ifname}", 10)
                    mac = "0e:" + ":".join(h[j:j + 2] for j in range(0, 10, 2))
                    ipv4 = "192.168.%d.%d/19" % (160 + int(h[:2], 16) % 31, 1 + int(h[2:4], 16) % 254)
                nics.append({"name": name, "attributes": ena_attrs(ifname, addr, root, numa, ipv4, mac)})
        docs.append(([("Real dump (dranet examples/aws_eks_examples/gpu-efa/resourceslice-dranet.yaml)." if k == 0 else
                       "Same hardware as the first node; fresh MAC and IPv4 addresses.")],
                     resource_slice(f"{n}-dra.net-" + ("zskw8" if k == 0 else k8s_suffix(n + "dra.net")),
                                    "dra.net", n, n, 1, nics, generate_name=f"{n}-dra.net-")))
    header = [
        "dractl builtin inventory mixed: AWS p4d.24xlarge x 2: 8 A100 (gpu.nvidia.com) + 4 EFA / 3 ENA NICs (dra.net) per node, shared PCIe roots",
        "",
        "Two AWS EKS p4d.24xlarge nodes, each with 8 NVIDIA A100-SXM4-40GB GPUs (gpu.nvidia.com) and the",
        "NICs dranet (dra.net) publishes: 4 EFA adapters (RDMA) and 3 ENA interfaces. GPUs and NICs",
        "share PCIe roots (resource.kubernetes.io/pcieRoot pci0000:10/20/90/a0: two GPUs, one EFA per",
        "root; ENAs on 20/90/a0), so matchAttribute alignment between a GPU and a NIC works.",
        "The first node's slices are the real dumps (spec verbatim; List wrapper dropped, owner uid added):",
        "  - kubernetes-sigs/dranet@f258477cbea0551b7ad239e3873a997a7a3d116b",
        "      examples/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml",
        "      examples/aws_eks_examples/gpu-efa/resourceslice-dranet.yaml",
        "      examples/aws_eks_examples/gpu-efa/device-class.yaml (efa.networking.k8s.aws)",
        "      examples/distributed_training/device-class.yaml (dranet.net)",
        "  - kubernetes-sigs/dra-driver-nvidia-gpu@95932046683719c43b6a0dd9613c2e5aad5d6703",
        "      deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-{gpu,mig,vfio-gpu}.yaml",
        "The second node repeats the hardware with fresh GPU uuids, MACs and IPs (illustrative), as",
        "does the Node metadata of both nodes. The dump predates resource.kubernetes.io/numaNode,",
        "which current releases of both drivers also publish; use dra.net/numaNode for NICs here.",
        "With 8 GPUs but 4 EFAs per node, at most 4 GPU+EFA pairs fit on a node.",
    ]
    write("mixed", header, docs)


# =======================================================================================
# intel-gpu: Intel GPU + Gaudi drivers on node rpl-s
# =======================================================================================

def intel_gpu():
    n = "rpl-s"
    docs = [([], node(n, {"intel.feature.node.kubernetes.io/gpu": "true",
                          "intel.feature.node.kubernetes.io/gaudi": "true",
                          "feature.node.kubernetes.io/pci-0300_8086.present": "true"},
                      {"cpu": "32", "memory": "131647008Ki", "ephemeral-storage": "959786032Ki", "pods": "110"}))]
    docs.append((["deployments/gpu/base/device-class.yaml (both classes select every gpu.intel.com device)."],
                 device_class("gpu.intel.com", 'device.driver == "gpu.intel.com"')))
    docs.append(([], device_class("gpu-vfio.intel.com", 'device.driver == "gpu.intel.com"')))
    docs.append((["deployments/gaudi/base/device-class.yaml"],
                 device_class("gaudi.intel.com", 'device.driver == "gaudi.intel.com"')))

    def gpu(name, drv, pci_id, bus, model, family, mem):
        return {"name": name, "attributes": {
            "driver": s(drv), "family": s(family), "health": s("Healthy"), "model": s(model),
            "pciAddress": s(bus), "pciId": s(pci_id), "pciRoot": s("00"),
            "resource.kubernetes.io/pciBusID": s(bus), "resource.kubernetes.io/pcieRoot": s("pci0000:00"),
            "sriov": b(True), "type": s("gpu")},
            "capacity": {"memory": q(mem), "millicores": q("1k")}}

    devices = [gpu("0000-00-02-0-0x7d67", "i915", "0x7d67", "0000:00:02.0", "Arrow Lake-S", "Intel Graphics", "0"),
               gpu("0000-04-00-0-0xe211", "xe", "0xe211", "0000:04:00.0", "B60", "Arc Pro B-Series", "24480Mi")]
    docs.append((["doc/gpu/USAGE.md dump (node, devices, PCI data, memory) with the attributes that",
                  "cmd/kubelet-gpu-plugin/node_state.go GetResources publishes today."],
                 resource_slice("rpl-s-gpu.intel.com-mbr6p", "gpu.intel.com", n, n, 1, devices,
                                generate_name="rpl-s-gpu.intel.com-")))

    def gaudi(name, bus_root):
        return {"name": name, "attributes": {
            "healthy": b(True), "model": s("Gaudi2"), "pciRoot": s(bus_root),
            "resource.kubernetes.io/pcieRoot": s("pci0000:" + bus_root), "serial": s("")}}

    docs.append((["doc/gaudi/USAGE.md dump (real, 2026-04-15)."],
                 resource_slice("rpl-s-gaudi.intel.com-x8m4h", "gaudi.intel.com", n, n, 1,
                                [gaudi("0000-a0-00-0-0x1020", "01"), gaudi("0000-b0-00-0-0x1020", "02")],
                                generate_name="rpl-s-gaudi.intel.com-")))
    header = [
        "dractl builtin inventory intel-gpu: Intel GPU (gpu.intel.com) + Gaudi (gaudi.intel.com) drivers on one node: iGPU, Arc Pro B60, 2 x Gaudi2",
        "",
        "One node (rpl-s) running the Intel GPU driver (gpu.intel.com: an integrated Arrow Lake-S GPU on",
        "i915 and an Arc Pro B60 on xe) and the Intel Gaudi driver (gaudi.intel.com: 2 x Gaudi2), exactly",
        "the devices of the two documented dumps of that node. Modeled on:",
        "  - intel/intel-resource-drivers-for-kubernetes@1da939faa33a90dd641d0327cdcdcbbfaa1acdb4",
        "      doc/gpu/USAGE.md and doc/gaudi/USAGE.md (kubectl get resourceslice -o yaml of node rpl-s)",
        "      cmd/kubelet-gpu-plugin/node_state.go GetResources (attributes model, family, driver, sriov,",
        "        type, pciId, pciAddress, health, pciRoot, resource.kubernetes.io/pciBusID,",
        "        resource.kubernetes.io/pcieRoot; capacity memory (Mi), millicores 1000)",
        "      pkg/gpu/device/models.go (0x7d67 = Arrow Lake-S / Intel Graphics, 0xe211 = B60 / Arc Pro",
        "        B-Series; the older GPU doc dump shows model/family 'Unknown' and no `type` attribute)",
        "      cmd/kubelet-gaudi-plugin/node_state.go GetResources (model, healthy, serial, pciRoot, pcieRoot)",
        "      deployments/{gpu,gaudi}/base/device-class.yaml",
        "The integrated GPU reports memory 0. Node labels and capacity are illustrative (NFD labels).",
    ]
    write("intel-gpu", header, docs)


# =======================================================================================
# cpu: kubernetes-sigs/dra-driver-cpu, grouped mode by NUMA node
# =======================================================================================

def cpu():
    nodes = [("cpu-node-1", [(0, 64), (1, 64)]), ("cpu-node-2", [(0, 62), (1, 64)])]
    docs = []
    for n, numas in nodes:
        docs.append(([], node(n, {"node.kubernetes.io/instance-type": "bare-metal-2numa-128t",
                                  "feature.node.kubernetes.io/cpu-hardware_multithreading": "true"},
                              {"cpu": "128", "memory": "527952384Ki", "ephemeral-storage": "1845213184Ki",
                               "pods": "110"},
                              allocatable={"cpu": str(sum(c for _, c in numas)), "memory": "519563776Ki",
                                           "ephemeral-storage": "1700539285332", "pods": "110"})))
    docs.append((["manifests/base/deviceclass-dracpu.part.yaml"],
                 device_class("dra.cpu", 'device.driver == "dra.cpu"')))
    for n, numas in nodes:
        devices = []
        for numa, ncpu in numas:
            devices.append({
                "name": f"cpudevnuma{numa:03d}", "allowMultipleAllocations": True,
                "attributes": {"resource.kubernetes.io/numaNode": i(numa), "dra.cpu/socketID": i(0),
                               "dra.cpu/smtEnabled": b(True), "dra.cpu/numCPUs": i(ncpu),
                               "dra.net/numaNode": i(numa), "dra.cpu/numaNodeID": i(numa)},
                "capacity": {"dra.cpu/cpu": q(str(ncpu))},
            })
        note = ("2 NUMA nodes x 64 CPUs." if n == "cpu-node-1" else
                "kubelet reservedSystemCPUs=0,64 (a core and its sibling on NUMA 0): 62 + 64 CPUs.")
        docs.append(([f"Pool {n}: {note}"],
                     resource_slice(f"00000-dra.cpu-{n}-{k8s_suffix(n + 'dra.cpu')}", "dra.cpu", n, n, 1, devices,
                                    generate_name=f"00000-dra.cpu-{n}-")))
    header = [
        "dractl builtin inventory cpu: dra-driver-cpu (dra.cpu): 2 nodes, one shareable device per NUMA node with consumable dra.cpu/cpu",
        "",
        "Two nodes running kubernetes-sigs/dra-driver-cpu in grouped mode (--cpu-device-mode=grouped",
        "--group-by=numanode): one device per NUMA node, cpudevnumaNNN, shareable",
        "(allowMultipleAllocations: true, DRAConsumableCapacity) with consumable capacity dra.cpu/cpu =",
        "the node's allocatable CPUs in that NUMA node. Claims ask for CPUs with",
        "`capacity.requests: {dra.cpu/cpu: \"N\"}`; a request without it consumes the whole device.",
        "Modeled on:",
        "  - kubernetes-sigs/dra-driver-cpu@de98098690f25e59d781c1659b5c3e0b0a210c2a",
        "      pkg/device/builder.go (createGroupedCPUDeviceSlices, GROUP_BY_NUMA_NODE: attributes",
        "        resource.kubernetes.io/numaNode, dra.cpu/socketID, dra.cpu/smtEnabled, dra.cpu/numCPUs)",
        "      pkg/device/attributes.go (compatibility attributes dra.net/numaNode, dra.cpu/numaNodeID)",
        "      docs/user/device-attributes.md lines 84-142 (grouped example: 2 x 64 CPUs, socket 0)",
        "      docs/user/feature-support.md lines 127-170 (real kind dump: reserved CPUs are left out)",
        "      manifests/base/deviceclass-dracpu.part.yaml",
        "Not included: the list-typed resource.kubernetes.io/pcieRoot (only with --expose-pcie-roots and",
        "the alpha DRAListTypeAttributes gate) and nodeAllocatableResources mappings (only with",
        "publishNodeAllocatableResourceMapping and the alpha DRANodeAllocatableResources gate).",
    ]
    write("cpu", header, docs)


# =======================================================================================
# sriov-nic: k8snetworkplumbingwg/dra-driver-sriov
# =======================================================================================

SRIOV = "sriovnetwork.k8snetworkplumbingwg.io"


def sriov_nic():
    nodes = ["sriov-worker-1", "sriov-worker-2"]
    docs = []
    for n in nodes:
        docs.append(([], node(n, {"feature.node.kubernetes.io/network-sriov.capable": "true",
                                  "feature.node.kubernetes.io/pci-0200_15b3.present": "true"},
                              {"cpu": "64", "memory": "263744200Ki", "ephemeral-storage": "936645608Ki",
                               "pods": "110"})))
    docs.append((["deployments/helm/dra-driver-sriov/templates/deviceclass.yaml"],
                 device_class(SRIOV, f"device.driver == '{SRIOV}'")))
    for port, name in ((1, "sriov-port1"), (2, "sriov-port2")):
        docs.append(([f"demo/extended-resource/deviceclass.yaml (class for physical port {port}; extendedResourceName",
                      "needs DRAExtendedResource)."],
                     device_class(name,
                                  f"device.driver == '{SRIOV}' &&\n"
                                  f'device.attributes["{SRIOV}"].resourceName == "port{port}-vfs"',
                                  extended_resource_name=f"example.com/sriov-port{port}",
                                  config=[{"opaque": {"driver": SRIOV, "parameters": {
                                      "apiVersion": f"{SRIOV}/v1alpha1", "kind": "VfConfig",
                                      "netAttachDefName": f"sriov-port{port}-net"}}}])))
    ports = [  # PF name, PF address, VF addresses, resourceName
        ("ens1f0np0", "0000:08:00.0", ["0000:08:00.2", "0000:08:00.3", "0000:08:00.4", "0000:08:00.5"], "port1-vfs"),
        ("ens1f1np1", "0000:08:00.1", ["0000:08:02.2", "0000:08:02.3", "0000:08:02.4", "0000:08:02.5"], "port2-vfs"),
    ]
    for n in nodes:
        devices = []
        for pf_name, pf_addr, vfs, rname in ports:
            for vf_id, addr in enumerate(vfs):
                devices.append({"name": addr.replace(":", "-").replace(".", "-"), "attributes": {
                    f"{SRIOV}/vendor": s("15b3"), f"{SRIOV}/deviceID": s("101e"), f"{SRIOV}/pfDeviceID": s("101d"),
                    f"{SRIOV}/pciAddress": s(addr), "k8s.cni.cncf.io/deviceID": s(addr),
                    f"{SRIOV}/PFName": s(pf_name), f"{SRIOV}/EswitchMode": s("legacy"), f"{SRIOV}/vfID": i(vf_id),
                    "resource.kubernetes.io/pcieRoot": s("pci0000:00"), f"{SRIOV}/pfPciAddress": s(pf_addr),
                    "resource.kubernetes.io/pciBusID": s(addr), f"{SRIOV}/linkType": s("ethernet"),
                    f"{SRIOV}/rdmaCapable": b(True), "dra.net/numaNode": i(0),
                    f"{SRIOV}/resourceName": s(rname)}})
        docs.append(([f"Pool {n}: 8 VFs of a dual-port ConnectX-6 Dx (4 per port)."],
                     resource_slice(slice_name(n, SRIOV), SRIOV, n, n, 1, devices, generate_name=f"{n}-{SRIOV}-")))
    header = [
        "dractl builtin inventory sriov-nic: SR-IOV DRA driver (sriovnetwork.k8snetworkplumbingwg.io): 2 nodes x 8 ConnectX-6 Dx VFs",
        "",
        "Two nodes running k8snetworkplumbingwg/dra-driver-sriov, each with one dual-port Mellanox",
        "ConnectX-6 Dx (PF device 101d, VF device 101e, vendor 15b3) in legacy eswitch mode with 4 VFs",
        "per port. Devices are the VFs, named after their PCI address (0000:08:00.2 -> 0000-08-00-2).",
        "Modeled on:",
        "  - k8snetworkplumbingwg/dra-driver-sriov@cd9404f0301e088653abb562df6ed8b106b097d6",
        "      pkg/devicestate/discovery.go DiscoverSriovDevices (attribute set below) and",
        "      pkg/consts/consts.go (attribute names; numaNode is published as dra.net/numaNode)",
        "      deployments/helm/dra-driver-sriov/templates/deviceclass.yaml",
        "      demo/extended-resource/deviceclass.yaml: the VF PCI addresses, the DeviceAttributes that",
        "        add sriovnetwork.k8snetworkplumbingwg.io/resourceName port1-vfs / port2-vfs, and the",
        "        DeviceClasses sriov-port1 / sriov-port2 (devices are only advertised when a",
        "        SriovResourcePolicy matches them; this inventory assumes that demo's policy).",
        "PF names, PCIe root and node data are illustrative. Every VF sits on root pci0000:00, NUMA 0.",
    ]
    write("sriov-nic", header, docs)


# =======================================================================================
# tpu: kubernetes-sigs/dra-driver-google-tpu on GKE TPU v4 nodes
# =======================================================================================

def tpu():
    nodes = ["gke-tpu-dra-tpu-v4-pool-5a0c3e7f-j8kt", "gke-tpu-dra-tpu-v4-pool-5a0c3e7f-x2wd"]
    docs = []
    for n in nodes:
        docs.append(([], node(n, {"cloud.google.com/gke-tpu-accelerator": "tpu-v4-podslice",
                                  "cloud.google.com/gke-tpu-topology": "2x2x1",
                                  "cloud.google.com/gke-accelerator-count": "4",
                                  "cloud.google.com/gke-nodepool": "tpu-v4-pool",
                                  "node.kubernetes.io/instance-type": "ct4p-hightpu-4t",
                                  "topology.kubernetes.io/region": "us-central2",
                                  "topology.kubernetes.io/zone": "us-central2-b"},
                              {"cpu": "240", "memory": "417754708Ki", "ephemeral-storage": "98831908Ki",
                               "pods": "110", "google.com/tpu": "4"},
                              allocatable={"cpu": "239830m", "memory": "403849300Ki",
                                           "ephemeral-storage": "47060071478", "pods": "110", "google.com/tpu": "4"},
                              taints=[{"key": "google.com/tpu", "value": "present", "effect": "NoSchedule"}],
                              provider_id=f"gce://dra-demo/us-central2-b/{n}")))
    docs.append((["deployments/helm/dra-driver-google-tpu/templates/deviceclass.yaml"],
                 device_class("tpu.google.com", 'device.driver == "tpu.google.com"')))
    for n in nodes:
        u = "tpu-" + gorand.uuids(n, 1)[0][len("gpu-"):]
        devices = [{"name": f"accel{idx}", "attributes": {
            "index": i(idx), "uuid": s(u), "tpuGen": s("v4"), "brand": s("Google"),
            "accelerator": s("tpu-v4-podslice"), "chipCount": i(4), "topology": s("2x2x1")}}
            for idx in range(4)]
        docs.append(([f"Pool {n}: /dev/accel0..3; every chip carries the same uuid (see header)."],
                     resource_slice(slice_name(n, "tpu.google.com"), "tpu.google.com", n, n, 1, devices,
                                    generate_name=f"{n}-tpu.google.com-")))
    header = [
        "dractl builtin inventory tpu: Google TPU DRA driver (tpu.google.com): 2 GKE TPU v4 nodes x 4 chips, tainted google.com/tpu",
        "",
        "Two GKE single-host TPU v4 nodes (ct4p-hightpu-4t, topology 2x2x1, 4 chips each) running",
        "kubernetes-sigs/dra-driver-google-tpu; devices accel0..accel3 (the /dev/accelN files).",
        "Modeled on:",
        "  - kubernetes-sigs/dra-driver-google-tpu@f5a9d8c8322ba8061112a7115b8ca2597e2a40f1",
        "      cmd/tpu-dra-kubeletplugin/manager.go (GetDevice: index, uuid, tpuGen, brand, accelerator,",
        "        chipCount, topology; getTpuInfo computes the uuid from NODE_NAME only, so every chip of",
        "        a node has the same uuid - computed here with the driver's generateUUIDs)",
        "      cmd/tpu-dra-kubeletplugin/util.go (GKE labels, AcceleratorGen tpu-v4-podslice -> v4)",
        "      deployments/helm/dra-driver-google-tpu/templates/deviceclass.yaml",
        "      README.md lines 66-105 (v1beta1 dump with accel0/accel1, tpuGen v4, index)",
        "The driver rejects (at prepare time) a container that does not get all chips of its node, so",
        "claims should use allocationMode: All. GKE taints TPU nodes google.com/tpu=present:NoSchedule;",
        "pods need the matching toleration (as the driver's demo/specs do).",
    ]
    write("tpu", header, docs)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    example_gpu()
    example_gpu_partitioned()
    nvidia_gpu()
    nvidia_mig()
    mixed()
    intel_gpu()
    cpu()
    sriov_nic()
    tpu()
