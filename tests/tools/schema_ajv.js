// The second validator of tests/tools/schema_check.py (--engine ajv or both): Ajv's
// draft 2020-12 validator, fed one document a line on stdin as the JSON array
// [NAME, DOCUMENT] (schema_check.py has read the YAML), answering one line each: "ok" or
// "INVALID at PATH: message". The schema is SCHEMA, or the one a line {"schema": PATH}
// names for the documents after it (no answer; each schema is compiled once). Ajv comes
// with yaml-language-server (scripts/setup puts both in .tools/node); NODE_MODULES names
// that folder.
//   node schema_ajv.js [SCHEMA]
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { createRequire } = require('module');

const mods = process.env.NODE_MODULES;
const need = createRequire(path.join(path.resolve(mods), 'animfs-schema-check.js'));
const Ajv2020 = need('ajv/dist/2020').default;
// strict off: a schema keyword Ajv does not know is ignored, as python-jsonschema does;
// formats are annotations there too; an Ajv each schema, as two files may share an $id
const compiled = new Map();
function schema(file) {
  if (!compiled.has(file)) {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    compiled.set(file, ajv.compile(JSON.parse(fs.readFileSync(file, 'utf8'))));
  }
  return compiled.get(file);
}
let validate = process.argv[2] ? schema(process.argv[2]) : null;

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (!Array.isArray(m)) {
    validate = schema(m.schema);
    return;
  }
  const doc = m[1];
  let out = 'ok';
  if (!validate(doc)) {
    const e = validate.errors[0];
    const where = e.instancePath.replace(/^\//, '') || '(top)';
    let msg = e.message;
    if (e.params && e.params.additionalProperty !== undefined) msg += ` (${e.params.additionalProperty})`;
    else if (e.params && e.params.allowedValue !== undefined) msg += ` (${JSON.stringify(e.params.allowedValue)})`;
    out = `INVALID at ${where}: ${msg.slice(0, 300)}`;
  }
  process.stdout.write(out + '\n');
});
