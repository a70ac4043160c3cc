// The second validator of tests/tools/schema_check.py (--engine ajv or both): Ajv's
// draft 2020-12 validator, compiled once for SCHEMA, fed one document a line on stdin
// as the JSON array [NAME, DOCUMENT] (schema_check.py has read the YAML), answering one
// line each: "ok" or "INVALID at PATH: message". Ajv comes with yaml-language-server
// (scripts/setup puts both in .tools/node); NODE_MODULES names that folder.
//   node schema_ajv.js SCHEMA
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { createRequire } = require('module');

const mods = process.env.NODE_MODULES;
const need = createRequire(path.join(path.resolve(mods), 'animfs-schema-check.js'));
const Ajv2020 = need('ajv/dist/2020').default;
// strict off: a schema keyword Ajv does not know is ignored, as python-jsonschema does;
// formats are annotations there too
const ajv = new Ajv2020({ strict: false, validateFormats: false });
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')));

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  const doc = JSON.parse(line)[1];
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
