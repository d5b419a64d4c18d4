"""The glTF 2.0 document of a product card (services/model3d.py makes the texture): a thin box
CARD_WIDTH wide, as tall as the texture's aspect makes it and CARD_DEPTH deep, its front face
showing the texture and the rest a plain light material, with its one binary buffer and its
image embedded as data: URIs, so the asset is one JSON document a viewer reads as it is.

Geometry and buffer layout only: which picture the card shows, and why, is model3d's.
"""
from __future__ import annotations

import base64
import struct
from dataclasses import dataclass

CARD_WIDTH = 1.0  # metres, glTF's unit; the height follows the photo's aspect ratio
CARD_DEPTH = 0.02


@dataclass(frozen=True)
class Texture:
    kind: str  # what the picture is: model3d's PHOTO, NAME_CARD or PLAIN_CARD
    image: bytes  # PNG or JPEG
    mime: str
    width: int
    height: int


FLOAT = 5126  # accessor componentType
UNSIGNED_SHORT = 5123
ARRAY_BUFFER = 34962  # bufferView target
ELEMENT_ARRAY_BUFFER = 34963
LINEAR = 9729
LINEAR_MIPMAP_LINEAR = 9987
CLAMP_TO_EDGE = 33071


def card_gltf(texture: Texture, *, name: str) -> dict:
    """A thin box (CARD_WIDTH wide, the photo's aspect, CARD_DEPTH deep) facing +Z: its
    front face is one textured primitive (positions, normals, UVs: the whole image, upright),
    its back and edges another in a plain light material. One buffer, embedded."""
    w = CARD_WIDTH / 2
    h = CARD_WIDTH * texture.height / texture.width / 2
    d = CARD_DEPTH / 2
    # glTF's UV origin is the image's top-left corner, so the top edge has v = 0.
    front = [((-w, -h, d), (0, 1)), ((w, -h, d), (1, 1)), ((w, h, d), (1, 0)), ((-w, h, d), (0, 0))]
    # The other five faces, each a quad listed counter-clockwise seen from outside.
    faces = [
        ((0, 0, -1), [(w, -h, -d), (-w, -h, -d), (-w, h, -d), (w, h, -d)]),  # back
        ((1, 0, 0), [(w, -h, d), (w, -h, -d), (w, h, -d), (w, h, d)]),  # right
        ((-1, 0, 0), [(-w, -h, -d), (-w, -h, d), (-w, h, d), (-w, h, -d)]),  # left
        ((0, 1, 0), [(-w, h, d), (w, h, d), (w, h, -d), (-w, h, -d)]),  # top
        ((0, -1, 0), [(-w, -h, -d), (w, -h, -d), (w, -h, d), (-w, -h, d)]),  # bottom
    ]
    quad = (0, 1, 2, 0, 2, 3)
    blob = _Buffer()
    front_primitive = {
        "attributes": {
            "POSITION": blob.vec3([p for p, _uv in front], ARRAY_BUFFER, bounds=True),
            "NORMAL": blob.vec3([(0, 0, 1)] * 4, ARRAY_BUFFER),
            "TEXCOORD_0": blob.vec2([uv for _p, uv in front], ARRAY_BUFFER),
        },
        "indices": blob.indices(list(quad)),
        "material": 0,
    }
    rest_positions = [p for _normal, corners in faces for p in corners]
    rest_normals = [normal for normal, corners in faces for _ in corners]
    rest_indices = [4 * face + i for face in range(len(faces)) for i in quad]
    rest_primitive = {
        "attributes": {
            "POSITION": blob.vec3(rest_positions, ARRAY_BUFFER, bounds=True),
            "NORMAL": blob.vec3(rest_normals, ARRAY_BUFFER),
        },
        "indices": blob.indices(rest_indices),
        "material": 1,
    }
    image_uri = f"data:{texture.mime};base64," + base64.b64encode(texture.image).decode("ascii")
    return {
        "asset": {"version": "2.0", "generator": "ff-model3d (a flat card textured with the product photo)"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "name": name[:200]}],
        "meshes": [{"name": "card", "primitives": [front_primitive, rest_primitive]}],
        "materials": [
            {"name": "photo", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0.0,
                                                       "roughnessFactor": 0.8}},
            {"name": "card edge", "pbrMetallicRoughness": {"baseColorFactor": [0.92, 0.92, 0.9, 1.0],
                                                           "metallicFactor": 0.0, "roughnessFactor": 0.9}},
        ],
        "textures": [{"sampler": 0, "source": 0}],
        "samplers": [{"magFilter": LINEAR, "minFilter": LINEAR_MIPMAP_LINEAR, "wrapS": CLAMP_TO_EDGE,
                      "wrapT": CLAMP_TO_EDGE}],
        "images": [{"uri": image_uri, "name": texture.kind}],
        "accessors": blob.accessors,
        "bufferViews": blob.views,
        "buffers": [{"byteLength": len(blob.data),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob.data)).decode("ascii")}],
    }


class _Buffer:
    """One little-endian binary buffer, its bufferViews (each 4-byte aligned, so every
    accessor is aligned to its component size) and accessors."""

    def __init__(self):
        self.data = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def _view(self, raw: bytes, target: int) -> int:
        self.data += b"\x00" * (-len(self.data) % 4)
        self.views.append({"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw), "target": target})
        self.data += raw
        return len(self.views) - 1

    def _accessor(self, view: int, component: int, count: int, kind: str, **extra) -> int:
        self.accessors.append({"bufferView": view, "componentType": component, "count": count, "type": kind, **extra})
        return len(self.accessors) - 1

    def vec3(self, values, target: int, *, bounds: bool = False) -> int:
        raw = b"".join(struct.pack("<3f", *v) for v in values)
        extra = {}
        if bounds:  # POSITION accessors must carry min and max
            extra = {"min": [min(v[i] for v in values) for i in range(3)],
                     "max": [max(v[i] for v in values) for i in range(3)]}
            extra = {k: [struct.unpack("<f", struct.pack("<f", x))[0] for x in xs] for k, xs in extra.items()}
        return self._accessor(self._view(raw, target), FLOAT, len(values), "VEC3", **extra)

    def vec2(self, values, target: int) -> int:
        raw = b"".join(struct.pack("<2f", *v) for v in values)
        return self._accessor(self._view(raw, target), FLOAT, len(values), "VEC2")

    def indices(self, values: list[int]) -> int:
        raw = struct.pack(f"<{len(values)}H", *values)
        return self._accessor(self._view(raw, ELEMENT_ARRAY_BUFFER), UNSIGNED_SHORT, len(values), "SCALAR")
