// The glTF previews' checker (tests/cli/gltf*.sh): runs the Khronos glTF-Validator on each
// file and prints one JSON line per file with its issues and counts (nodes, the nodes the
// writer added for units and axes, animations, keyframes per animation, skins, the first
// skin's joints, the scene's root nodes), or, with --diff A
// B, every sampler value that differs between two previews (animation, node, path, time).
// NODE_PATH or ANIMFS_NODE names the node_modules folder that holds gltf-validator.
'use strict';
const fs = require('fs');
const path = require('path');
const mods = process.env.ANIMFS_NODE || path.join(__dirname, '..', '..', '.tools', 'node', 'node_modules');

function parse(bytes) {
  if (bytes.readUInt32LE(0) === 0x46546c67) { // GLB
    const jl = bytes.readUInt32LE(12);
    const json = JSON.parse(bytes.subarray(20, 20 + jl).toString('utf8'));
    let bin = null;
    if (20 + jl < bytes.length) {
      const bl = bytes.readUInt32LE(20 + jl);
      bin = bytes.subarray(28 + jl, 28 + jl + bl);
    }
    return { json, bin };
  }
  const json = JSON.parse(bytes.toString('utf8'));
  const uri = json.buffers && json.buffers[0] && json.buffers[0].uri;
  const bin = uri ? Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64') : null;
  return { json, bin };
}

const WIDTH = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };
function floats(g, i) {
  const a = g.json.accessors[i], v = g.json.bufferViews[a.bufferView];
  const n = a.count * WIDTH[a.type];
  const off = g.bin.byteOffset + (v.byteOffset || 0) + (a.byteOffset || 0);
  return new Float32Array(g.bin.buffer.slice(off, off + 4 * n));
}

// Per animation, per "node path": { t: times, v: values, w: width }.
function samplers(g) {
  const out = {};
  for (const an of g.json.animations || []) {
    const m = out[an.name] = {};
    for (const c of an.channels) {
      const s = an.samplers[c.sampler];
      const key = g.json.nodes[c.target.node].name + ' ' + c.target.path;
      m[key] = { t: floats(g, s.input), v: floats(g, s.output), w: c.target.path === 'rotation' ? 4 : 3 };
    }
  }
  return out;
}

async function check(file) {
  const validator = require(path.join(mods, 'gltf-validator'));
  const bytes = fs.readFileSync(file);
  const r = await validator.validateBytes(new Uint8Array(bytes), { maxIssues: 50 });
  const g = parse(bytes);
  const extras = (g.json.asset.extras || {}).animfs || {};
  const anims = {};
  let keys = 0;
  for (const an of g.json.animations || []) {
    let k = 0;
    for (const s of an.samplers) k += g.json.accessors[s.input].count;
    anims[an.name] = k;
    keys += k;
  }
  const errors = r.issues.messages.filter(m => m.severity === 0).slice(0, 5).map(m => m.code + ' ' + m.pointer + ' ' + m.message);
  console.log(JSON.stringify({
    file, errors: r.issues.numErrors, warnings: r.issues.numWarnings, first_errors: errors,
    nodes: (g.json.nodes || []).length - (extras.added_nodes || 0), added: extras.added_nodes || 0,
    animations: (g.json.animations || []).length, keys, meshes: (g.json.meshes || []).length,
    images: (g.json.images || []).length, anims,
    skins: (g.json.skins || []).length, joints: ((g.json.skins || [])[0] || { joints: [] }).joints.length,
    roots: ((g.json.scenes || [])[0] || { nodes: [] }).nodes.length,
  }));
}

function diff(a, b) {
  const sa = samplers(parse(fs.readFileSync(a))), sb = samplers(parse(fs.readFileSync(b)));
  const out = [];
  for (const an of new Set([...Object.keys(sa), ...Object.keys(sb)])) {
    const ma = sa[an] || {}, mb = sb[an] || {};
    for (const k of new Set([...Object.keys(ma), ...Object.keys(mb)])) {
      const x = ma[k], y = mb[k];
      if (!x || !y || x.t.length !== y.t.length) { out.push(`${an}: ${k}: only in one or of other length`); continue; }
      for (let i = 0; i < x.t.length; i++) {
        let same = x.t[i] === y.t[i];
        for (let e = 0; e < x.w; e++) same = same && x.v[i * x.w + e] === y.v[i * x.w + e];
        if (!same) out.push(`${an}: ${k}: key ${i} at ${x.t[i].toFixed(4)} s`);
      }
    }
  }
  for (const l of out) console.log(l);
}

(async () => {
  const args = process.argv.slice(2);
  if (args[0] === '--diff') return diff(args[1], args[2]);
  for (const f of args) await check(f);
})().catch(e => { console.error(e); process.exit(1); });
