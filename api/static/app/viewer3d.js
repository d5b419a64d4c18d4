// The 3D preview: draws the glTF card that GET /api/model points at with plain WebGL (the
// asset is one mesh with embedded buffers: float positions, normals and UVs, 16-bit indices,
// a photo texture or a flat colour per material). Drag or use the arrow keys to turn it; it
// turns by itself unless the founder asked for reduced motion. Without WebGL the photo is shown.
import { h, fill } from "./dom.js";

const VERTEX = `
attribute vec3 position; attribute vec3 normal; attribute vec2 uv;
uniform mat4 turn; uniform float aspect;
varying vec3 vNormal; varying vec2 vUv;
void main() {
  vec4 p = turn * vec4(position, 1.0);
  vNormal = (turn * vec4(normal, 0.0)).xyz; vUv = uv;
  float depth = 2.6 - p.z; // the eye looks down -z from z = 2.6; nearer points get smaller depth
  gl_Position = vec4(p.x * 4.6 / aspect, p.y * 4.6, -p.z * 0.1, depth);
}`;
const FRAGMENT = `
precision mediump float;
uniform sampler2D photo; uniform vec4 colour; uniform bool textured;
varying vec3 vNormal; varying vec2 vUv;
void main() {
  vec4 base = textured ? texture2D(photo, vUv) : colour;
  float light = 0.45 + 0.55 * max(dot(normalize(vNormal), normalize(vec3(0.3, 0.4, 1.0))), 0.0);
  gl_FragColor = vec4(base.rgb * light, 1.0);
}`;

function decodeDataUri(uri) {
  const comma = uri.indexOf(",");
  const bytes = atob(uri.slice(comma + 1));
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += 1) out[i] = bytes.charCodeAt(i);
  return out.buffer;
}

function accessorData(doc, buffers, index) {
  const accessor = doc.accessors[index];
  const view = doc.bufferViews[accessor.bufferView];
  const size = { SCALAR: 1, VEC2: 2, VEC3: 3 }[accessor.type];
  const offset = (view.byteOffset || 0) + (accessor.byteOffset || 0);
  const Kind = accessor.componentType === 5123 ? Uint16Array : Float32Array;
  return new Kind(buffers[view.buffer], offset, accessor.count * size);
}

function compile(gl) {
  const program = gl.createProgram();
  for (const [type, source] of [[gl.VERTEX_SHADER, VERTEX], [gl.FRAGMENT_SHADER, FRAGMENT]]) {
    const shader = gl.createShader(type);
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    gl.attachShader(program, shader);
  }
  gl.linkProgram(program);
  return program;
}

function rotation(yaw, pitch) {
  const [cy, sy, cp, sp] = [Math.cos(yaw), Math.sin(yaw), Math.cos(pitch), Math.sin(pitch)];
  // Yaw about Y, then pitch about X; column-major for WebGL.
  return new Float32Array([cy, sp * sy, -cp * sy, 0, 0, cp, sp, 0, sy, -sp * cy, cp * cy, 0, 0, 0, 0, 1]);
}

/** Shows the model in `slot`: a canvas when WebGL draws it, else the photo. */
export async function showModel(slot, model) {
  const caption = h("p", { class: "hint" }, model.description);
  const fallback = () => fill(slot,
    model.image ? h("img", { src: model.image, alt: "Product photo", class: "model-fallback", width: 320, height: 240 }) : null,
    caption, h("p", {}, h("a", { href: model.url }, "Download the glTF file")));
  const canvas = h("canvas", {
    class: "model-canvas", width: 480, height: 360, tabindex: "0", role: "img",
    "aria-label": "3D preview of the product card. Drag or use the arrow keys to turn it.",
  });
  const gl = canvas.getContext("webgl", { antialias: true });
  if (!gl) {
    fallback();
    return;
  }
  let doc;
  let photo;
  try {
    const response = await fetch(model.url, { credentials: "same-origin" });
    doc = await response.json();
    photo = new Image();
    photo.src = doc.images[0].uri; // a data: URI, allowed for images by the page's policy
    await photo.decode();
  } catch {
    fallback();
    return;
  }
  const buffers = doc.buffers.map((buffer) => decodeDataUri(buffer.uri));
  const program = compile(gl);
  gl.useProgram(program);
  const texture = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, texture);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, photo);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  const primitives = doc.meshes[0].primitives.map((primitive) => {
    const upload = (target, data) => {
      const buffer = gl.createBuffer();
      gl.bindBuffer(target, buffer);
      gl.bufferData(target, data, gl.STATIC_DRAW);
      return buffer;
    };
    const attributes = {};
    for (const [name, index] of Object.entries(primitive.attributes)) {
      attributes[name] = upload(gl.ARRAY_BUFFER, accessorData(doc, buffers, index));
    }
    const indices = accessorData(doc, buffers, primitive.indices);
    const material = doc.materials[primitive.material].pbrMetallicRoughness || {};
    return { attributes, indexBuffer: upload(gl.ELEMENT_ARRAY_BUFFER, indices), count: indices.length,
      textured: Boolean(material.baseColorTexture), colour: material.baseColorFactor || [0.9, 0.9, 0.9, 1] };
  });
  const where = (name) => gl.getAttribLocation(program, name);
  let yaw = -0.5;
  let pitch = 0.15;
  const draw = () => {
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(0.96, 0.97, 0.98, 1);
    gl.enable(gl.DEPTH_TEST);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.uniformMatrix4fv(gl.getUniformLocation(program, "turn"), false, rotation(yaw, pitch));
    gl.uniform1f(gl.getUniformLocation(program, "aspect"), canvas.width / canvas.height);
    for (const primitive of primitives) {
      for (const [name, attribute, size] of [["position", "POSITION", 3], ["normal", "NORMAL", 3], ["uv", "TEXCOORD_0", 2]]) {
        const location = where(name);
        if (location < 0) continue;
        if (primitive.attributes[attribute]) {
          gl.bindBuffer(gl.ARRAY_BUFFER, primitive.attributes[attribute]);
          gl.enableVertexAttribArray(location);
          gl.vertexAttribPointer(location, size, gl.FLOAT, false, 0, 0);
        } else {
          gl.disableVertexAttribArray(location);
          gl.vertexAttrib2f(location, 0, 0);
        }
      }
      gl.uniform1i(gl.getUniformLocation(program, "textured"), primitive.textured ? 1 : 0);
      gl.uniform4fv(gl.getUniformLocation(program, "colour"), primitive.colour);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, primitive.indexBuffer);
      gl.drawElements(gl.TRIANGLES, primitive.count, gl.UNSIGNED_SHORT, 0);
    }
  };
  let dragging = null;
  canvas.addEventListener("pointerdown", (event) => { dragging = [event.clientX, event.clientY]; canvas.setPointerCapture(event.pointerId); });
  canvas.addEventListener("pointerup", () => { dragging = null; });
  canvas.addEventListener("pointermove", (event) => {
    if (!dragging) return;
    yaw += (event.clientX - dragging[0]) / 120;
    pitch = Math.max(-1.2, Math.min(1.2, pitch + (event.clientY - dragging[1]) / 120));
    dragging = [event.clientX, event.clientY];
    draw();
  });
  canvas.addEventListener("keydown", (event) => {
    const step = { ArrowLeft: [-0.2, 0], ArrowRight: [0.2, 0], ArrowUp: [0, -0.2], ArrowDown: [0, 0.2] }[event.key];
    if (!step) return;
    event.preventDefault();
    yaw += step[0];
    pitch = Math.max(-1.2, Math.min(1.2, pitch + step[1]));
    draw();
  });
  fill(slot, canvas, caption, h("p", {}, h("a", { href: model.url, download: `${model.product_id}.gltf` }, "Download the glTF file")));
  draw();
  if (!window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    const spin = () => {
      if (!canvas.isConnected) return;
      if (!dragging) {
        yaw += 0.006;
        draw();
      }
      requestAnimationFrame(spin);
    };
    requestAnimationFrame(spin);
  }
}
