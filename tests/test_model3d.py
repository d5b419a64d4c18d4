"""GET /api/model (decisions.md "Research and verdict", spec 7.2 no_worker): the 3D preview of
the session's product, a glTF 2.0 card textured with its photo, built by the model3d job and
served only to the session whose product it is."""
import base64
import http.server
import json
import struct
import threading

import png
import pytest

from models.catalog import Product
from models.clock import clock
from models.job import Job, WorkerBeat
from models.model3d import Model3D
from services import gltf_card, model3d
from services.health import record_worker_beat, worker_name
from tests.conftest import SETTINGS
from tests.factories import claim, find, item, load, refusal

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

# Demo products whose photos ship under api/static/demo/ (the catalog lines point at <id>-1.svg).
AVOCADO = "kitchen-avocado-slicer-3in1"  # its photo is an orange (#F4A261) card
POWER_BANK = "tech-slim-power-bank-20000mah"  # a navy (#1D3557) card
PHOTO_DESCRIPTION = "A flat card textured with the product photo, not a scan of the product."


def model(client):
    response = client.get("/api/model")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def worker_alive(run_jobs):
    """A worker is heard from: the beat a worker process records, then the suite's worker drains."""
    record_worker_beat(worker_name())
    run_jobs()


def holding(founder, *items):
    """A founder holding the first of the loaded products."""
    load(*items)
    client = founder()
    assert find(client).status_code == 200
    return client


def built(client, run_jobs) -> dict:
    """Asks for the model, runs the job, and answers the ready body."""
    first = model(client)
    assert first["status"] in ("building", "ready"), first
    run_jobs()
    body = model(client)
    assert body["status"] == "ready", body
    return body


# --- glTF checks ---------------------------------------------------------------------------------

COMPONENT_SIZES = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
TYPE_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
FORMATS = {5123: "H", 5125: "I", 5126: "f"}


def data_uri(uri: str) -> tuple[str, bytes]:
    head, _, payload = uri.partition(",")
    assert head.startswith("data:") and head.endswith(";base64"), head
    return head[5:-7], base64.b64decode(payload, validate=True)


def read_accessor(doc, buffer: bytes, index: int) -> list[tuple]:
    accessor = doc["accessors"][index]
    view = doc["bufferViews"][accessor["bufferView"]]
    size, width = COMPONENT_SIZES[accessor["componentType"]], TYPE_WIDTHS[accessor["type"]]
    offset = view["byteOffset"] + accessor.get("byteOffset", 0)
    assert offset % size == 0, "accessor not aligned to its component size"
    length = accessor["count"] * size * width
    assert accessor.get("byteOffset", 0) + length <= view["byteLength"], "accessor past its bufferView"
    values = struct.unpack_from(f"<{accessor['count'] * width}{FORMATS[accessor['componentType']]}", buffer, offset)
    return [tuple(values[i:i + width]) for i in range(0, len(values), width)]


def check_gltf(doc: dict) -> dict:
    """Validates the document's structure (every index in range, every accessor inside its
    bufferView and its buffer, POSITION bounds true, indices inside the vertex count, the
    texture a decodable PNG) and answers what a test needs to look further."""
    assert doc["asset"]["version"] == "2.0"
    assert doc["scenes"][doc["scene"]]["nodes"] == [0]
    mesh = doc["meshes"][doc["nodes"][0]["mesh"]]
    assert len(doc["buffers"]) == 1
    mime, buffer = data_uri(doc["buffers"][0]["uri"])
    assert mime == "application/octet-stream" and len(buffer) == doc["buffers"][0]["byteLength"]
    for view in doc["bufferViews"]:
        assert view["buffer"] == 0 and view["byteOffset"] + view["byteLength"] <= len(buffer)
        assert view["target"] in (34962, 34963)
    assert all(0 <= a["bufferView"] < len(doc["bufferViews"]) for a in doc["accessors"])
    primitives = []
    for primitive in mesh["primitives"]:
        attributes = {name: read_accessor(doc, buffer, index) for name, index in primitive["attributes"].items()}
        position = doc["accessors"][primitive["attributes"]["POSITION"]]
        assert position["type"] == "VEC3" and position["componentType"] == 5126
        for axis in range(3):  # min and max are required on POSITION, and must be exact
            assert min(p[axis] for p in attributes["POSITION"]) == position["min"][axis]
            assert max(p[axis] for p in attributes["POSITION"]) == position["max"][axis]
        assert all(len(values) == position["count"] for values in attributes.values())
        for normal in attributes["NORMAL"]:
            assert sum(c * c for c in normal) == pytest.approx(1.0)
        indices = doc["accessors"][primitive["indices"]]
        assert indices["type"] == "SCALAR" and indices["componentType"] in (5121, 5123, 5125)
        triangles = [i for (i,) in read_accessor(doc, buffer, primitive["indices"])]
        assert len(triangles) % 3 == 0 and all(0 <= i < position["count"] for i in triangles)
        material = doc["materials"][primitive["material"]]
        primitives.append({"attributes": attributes, "indices": triangles, "material": material})
    textured = [p for p in primitives if "baseColorTexture" in p["material"]["pbrMetallicRoughness"]]
    assert len(textured) == 1, "one face carries the photo"
    texture = doc["textures"][textured[0]["material"]["pbrMetallicRoughness"]["baseColorTexture"]["index"]]
    assert 0 <= texture["sampler"] < len(doc["samplers"])
    image_mime, image = data_uri(doc["images"][texture["source"]]["uri"])
    assert image_mime == "image/png"
    width, height, rows, info = png.Reader(bytes=image).asRGBA8()  # decodes every row, checks every CRC
    rows = [bytes(row) for row in rows]
    assert len(rows) == height and all(len(row) == 4 * width for row in rows)
    return {"front": textured[0], "primitives": primitives, "width": width, "height": height, "pixels": rows}


def pixel(texture: dict, x: int, y: int) -> tuple:
    row = texture["pixels"][y]
    return tuple(row[4 * x:4 * x + 4])


def fetch(client, url):
    return client.get(url)


# --- The answers ---------------------------------------------------------------------------------

def test_a_session_with_no_product_is_refused_with_no_product(founder):
    load(item(AVOCADO))
    refusal(founder().get("/api/model"), 200, "no_product")
    assert Job.select().where(Job.kind == model3d.MODEL3D).count() == 0


def test_the_job_builds_a_ready_gltf_card_textured_with_the_photo(founder, run_jobs):
    client = holding(founder, item(AVOCADO))
    worker_alive(run_jobs)
    first = model(client)
    assert first == {"status": "building", "product_id": AVOCADO, "description": PHOTO_DESCRIPTION,
                     "texture": "photo", "image": f"/static/demo/{AVOCADO}-1.svg"}
    run_jobs()
    body = model(client)
    assert body == {"status": "ready", "product_id": AVOCADO, "url": f"/api/model/{AVOCADO}.gltf",
                    "description": PHOTO_DESCRIPTION, "texture": "photo", "image": f"/static/demo/{AVOCADO}-1.svg"}
    response = fetch(client, body["url"])
    assert response.status_code == 200 and response.mimetype == "model/gltf+json"
    texture = check_gltf(json.loads(response.get_data()))
    assert (texture["width"], texture["height"]) == (model3d.TEXTURE_PX, model3d.TEXTURE_PX)
    # The SVG photo really was rasterised: its orange background (#F4A261), away from its text.
    assert pixel(texture, 38, 256) == (0xF4, 0xA2, 0x61, 255)
    assert pixel(texture, 0, 0) == (255, 255, 255, 255)  # its transparent rounded corner, made opaque white
    # The front face faces the viewer (+Z) and its UVs cover the whole image, upright:
    # the top-left corner of the face takes the image's top-left corner (v = 0).
    front = texture["front"]["attributes"]
    assert all(n == (0.0, 0.0, 1.0) for n in front["NORMAL"])
    corners = dict(zip(front["POSITION"], front["TEXCOORD_0"], strict=True))
    top_left = min(corners, key=lambda p: (p[0], -p[1]))
    assert corners[top_left] == (0.0, 0.0) and sorted(corners.values()) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    # A card, not a scan: a thin box, as wide as CARD_WIDTH, square like the photo.
    points = [p for primitive in texture["primitives"] for p in primitive["attributes"]["POSITION"]]
    size = [max(p[i] for p in points) - min(p[i] for p in points) for i in range(3)]
    assert size == pytest.approx([gltf_card.CARD_WIDTH, gltf_card.CARD_WIDTH, gltf_card.CARD_DEPTH])
    assert len(texture["primitives"][1]["indices"]) == 30  # back and four edges, two triangles each


def test_asking_again_while_building_sends_no_second_job(founder, run_jobs):
    client = holding(founder, item(AVOCADO))
    worker_alive(run_jobs)
    assert model(client)["status"] == "building"
    assert model(client)["status"] in ("building", "ready")
    assert Job.select().where(Job.kind == model3d.MODEL3D).count() == 1
    run_jobs()
    assert model(client)["status"] == "ready"
    assert model(client)["status"] == "ready"
    assert Job.select().where(Job.kind == model3d.MODEL3D).count() == 1
    assert Model3D.select().count() == 1


def test_no_worker_heard_from_answers_no_worker_and_the_model_is_built_once_one_runs(founder, run_jobs):
    client = holding(founder, item(AVOCADO))
    run_jobs()  # the suite's worker runs, but no heartbeat has been heard from it in this test
    assert WorkerBeat.select().count() == 0
    body = model(client)
    assert body["status"] == "no_worker" and body["reason"] == "no_worker" and body["explanation"]
    assert (body["product_id"], body["description"], body["image"]) == (
        AVOCADO, PHOTO_DESCRIPTION, f"/static/demo/{AVOCADO}-1.svg")
    assert "url" not in body
    # The job was still sent: it runs as soon as a worker takes it, and then the model is ready.
    assert Job.select().where(Job.kind == model3d.MODEL3D).count() == 1
    run_jobs()
    assert model(client)["status"] == "ready"


def test_a_worker_silent_for_longer_than_the_stale_window_reads_as_none(founder, run_jobs):
    client = holding(founder, item(AVOCADO))
    worker_alive(run_jobs)
    clock.advance(SETTINGS.worker_stale_seconds + 1)
    assert model(client)["status"] == "no_worker"


def test_the_asset_is_not_served_before_it_is_ready(founder):
    client = holding(founder, item(AVOCADO))
    refusal(fetch(client, f"/api/model/{AVOCADO}.gltf"), 404, "not_found")
    # A row still building (written here: a running worker would finish the real one at once).
    Model3D.create(product=AVOCADO, status=Model3D.BUILDING, source=f"/static/demo/{AVOCADO}-1.svg", gltf="{}")
    refusal(fetch(client, f"/api/model/{AVOCADO}.gltf"), 404, "not_found")
    Model3D.update(status=Model3D.READY).execute()
    assert fetch(client, f"/api/model/{AVOCADO}.gltf").get_data() == b"{}"


def test_another_founder_cannot_fetch_the_model_of_a_product_claimed_by_someone_else(founder, run_jobs):
    load(item(AVOCADO, rank=90), item(POWER_BANK, rank=80))
    first = founder()
    assert find(first).get_json()["product_id"] == AVOCADO
    assert claim(first).get_json()["status"] == "claimed"
    worker_alive(run_jobs)
    url = built(first, run_jobs)["url"]
    assert fetch(first, url).status_code == 200

    stranger = founder()
    refusal(fetch(stranger, url), 404, "not_found")  # no product at all
    refusal(stranger.get("/api/model"), 200, "no_product")
    other = founder()
    assert find(other).get_json()["product_id"] == POWER_BANK
    refusal(fetch(other, url), 404, "not_found")  # a product of its own, not this one
    mine = built(other, run_jobs)
    assert mine["product_id"] == POWER_BANK and mine["url"] == f"/api/model/{POWER_BANK}.gltf"
    theirs = check_gltf(json.loads(fetch(other, mine["url"]).get_data()))
    assert pixel(theirs, 38, 256) == (0x1D, 0x35, 0x57, 255)  # the power bank's navy photo
    refusal(fetch(first, mine["url"]), 404, "not_found")
    refusal(fetch(other, "/api/model/no-such-product.gltf"), 404, "not_found")


class _CountingHandler(http.server.BaseHTTPRequestHandler):
    requests = 0

    def do_GET(self):  # noqa: N802
        type(self).requests += 1
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_photo_hosted_elsewhere_is_never_fetched_and_the_card_says_so(founder, run_jobs):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _CountingHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    remote = f"http://127.0.0.1:{server.server_port}/photo.png"
    try:
        line = item("feed-lamp", name="Rechargeable <Desk> Lamp & Charger") | {"images": [remote]}
        client = holding(founder, line)
        worker_alive(run_jobs)
        body = built(client, run_jobs)
        document = json.loads(fetch(client, body["url"]).get_data())
    finally:
        server.shutdown()
    assert _CountingHandler.requests == 0
    assert body["texture"] == "name_card" and body["image"] == remote
    assert body["description"] == model3d.DESCRIPTIONS["name_card"]
    assert "not a scan of the product" in body["description"] and "never fetched" in body["description"]
    texture = check_gltf(document)
    assert pixel(texture, 8, 256) == (0x2F, 0x3E, 0x46, 255)  # the name card's own background
    written = sum(row[i:i + 4] == b"\xff\xff\xff\xff" for row in texture["pixels"][180:340]
                  for i in range(0, len(row), 4))
    assert written > 500, "the name is written in white across the middle"
    assert document["nodes"][0]["name"] == "Rechargeable <Desk> Lamp & Charger"


@pytest.mark.parametrize("address", ["/static/../../config.py", "/static/demo/../../../README.md",
                                     "/static/../../scripts/x.svg", "https://cdn.example.com/a.svg", "",
                                     "/static/demo/x.svg?v=1", "file:///etc/passwd"])
def test_only_a_photo_file_inside_the_static_folder_is_read(address):
    assert model3d.texture_kind(address) == "name_card"
    assert model3d.photo_texture(address) is None


def test_a_changed_photo_is_noticed_and_the_card_rebuilt(founder, run_jobs):
    client = holding(founder, item(AVOCADO))
    worker_alive(run_jobs)
    url = built(client, run_jobs)["url"]
    before = check_gltf(json.loads(fetch(client, url).get_data()))
    load(item(AVOCADO) | {"images": [f"/static/demo/{POWER_BANK}-1.svg"]})  # the catalog reloaded
    assert model(client)["status"] == "building"
    run_jobs()
    body = model(client)
    assert body["status"] == "ready" and body["image"] == f"/static/demo/{POWER_BANK}-1.svg"
    after = check_gltf(json.loads(fetch(client, url).get_data()))
    assert pixel(before, 38, 256) != pixel(after, 38, 256) == (0x1D, 0x35, 0x57, 255)
    assert Job.select().where(Job.kind == model3d.MODEL3D, Job.status == Job.DONE).count() == 2


def test_a_png_photo_is_used_as_it_is(tmp_path, monkeypatch):
    photo = tmp_path / "photo.png"
    pixels = [[255, 0, 0] * 8 for _ in range(4)]  # 8 x 4, red
    with photo.open("wb") as out:
        png.Writer(8, 4, greyscale=False).write(out, pixels)
    monkeypatch.setattr(model3d, "STATIC_DIR", tmp_path)
    texture = model3d.photo_texture("/static/photo.png")
    assert (texture.kind, texture.mime, texture.width, texture.height) == ("photo", "image/png", 8, 4)
    assert texture.image == photo.read_bytes()
    document = gltf_card.card_gltf(texture, name="Red")
    checked = check_gltf(document)
    points = [p for primitive in checked["primitives"] for p in primitive["attributes"]["POSITION"]]
    assert max(p[1] for p in points) - min(p[1] for p in points) == pytest.approx(gltf_card.CARD_WIDTH / 2)


def test_jpeg_sizes_are_read_from_the_frame_header():
    jpeg = (b"\xff\xd8\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9
            + b"\xff\xc0" + struct.pack(">HBHH", 17, 8, 300, 640) + b"\x03" + b"\x00" * 9)
    assert model3d.image_size(jpeg) == (640, 300)
    assert model3d.image_size(b"\xff\xd8\xff\xe0\x00") is None
    assert model3d.image_size(b"GIF89a") is None


def test_with_no_font_installed_the_card_is_plain_and_says_so(monkeypatch):
    monkeypatch.setattr(model3d, "sans_serif_font", lambda: (None, []))
    product = Product(product_id="x", name="A Lamp", category="Home")
    texture = model3d.name_card_texture(product)
    assert texture.kind == "plain_card" and "no font is installed" in model3d.DESCRIPTIONS[texture.kind]
    assert model3d.texture_kind("https://cdn.example.com/lamp.jpg") == "plain_card"
    assert model3d.texture_kind(f"/static/demo/{AVOCADO}-1.svg") == "photo"
    plain = check_gltf(gltf_card.card_gltf(texture, name=product.name))
    assert pixel(plain, 256, 256) == (0x2F, 0x3E, 0x46, 255)  # no text in the middle: nothing could write it
