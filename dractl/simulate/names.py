"""Deterministic stand-ins for the random names and UIDs the cluster would generate.

Upstream appends 5 random characters from the alphabet below to a generateName and assigns
random UIDs. dractl derives both from a hash of the inputs, so the same manifests always give
the same output (golden files), yet names look like the real ones.
"""

from __future__ import annotations

import hashlib
import uuid

# k8s.io/apimachinery/pkg/util/rand: consonants and digits that cannot spell words.
SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_UID_NAMESPACE = uuid.UUID("6f0c8c4e-6d1e-4b43-9a57-6a1cd2d3a0b1")  # dractl's own UUIDv5 namespace


# Byte b of the digest -> SAFE_ALPHABET[b % 27], as a bytes.translate table (one C call per name).
_SUFFIX_TABLE = bytes(ord(SAFE_ALPHABET[b % len(SAFE_ALPHABET)]) for b in range(256))


def suffix(seed: str, length: int = 5) -> str:
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    return digest[:length].translate(_SUFFIX_TABLE).decode("ascii")


def generated_name(generate_name: str, seed: str) -> str:
    """What the API server makes of metadata.generateName (prefix + 5 characters)."""
    return generate_name + suffix(seed)


_UID_PREFIX = _UID_NAMESPACE.bytes


def uid_for(kind: str, namespace: str, name: str) -> str:
    """UUIDv5 of the object's identity (same value as uuid.uuid5, without its per-call overhead)."""
    b = bytearray(hashlib.sha1(_UID_PREFIX + f"{kind}/{namespace}/{name}".encode("utf-8")).digest()[:16])
    b[6] = (b[6] & 0x0F) | 0x50
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def claim_generate_name(pod_name: str, pod_claim_name: str) -> str:
    """The resourceclaim controller's generateName for a claim made from a template.

    `<pod>-<podClaim>-`; when that is longer than 57 characters both parts are shortened in
    proportion and joined without the trailing dash
    (docs/spec/api-and-scheduling.md#other-components).
    """
    original = f"{pod_name}-{pod_claim_name}-"
    if len(original) <= 57:
        return original
    pod_len = len(pod_name) * 57 // len(original)
    claim_len = len(pod_claim_name) * 57 // len(original)
    return f"{pod_name[:pod_len]}-{pod_claim_name[:claim_len]}"
