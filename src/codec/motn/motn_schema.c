/* The shape of a shenmue-motn document: the key tables motn_parse.c checks maps
 * against, the key types, and the JSON Schema written from them and from the channel
 * names (motn_chan_names). Descriptions are those of docs/shenmue-motn.md. */
#include <stdio.h>

#include "animfs/schema.h"
#include "motn.h"

#define END { NULL, NULL, NULL, 0 }

const struct motn_key_type motn_key_types[4] = {
	{ "", "[f, 0]: key with no stored value" },
	{ "value", "[f, 1, value]: value, flat tangent" },
	{ "value, slope", "[f, 2, value, slope]: value and one tangent (value units per second)" },
	{ "value, in_slope, out_slope", "[f, 3, value, in_slope, out_slope]: value and split tangents" },
};

static const struct af_sch hexs = { .kind = AF_SK_HEX };
const struct af_sch_prop motn_sch_header[] = {
	{ "attr_high", &(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 0xFFFFF },
	  "bits 12-31 of the header's attribute word (0 in known files), kept verbatim. Bits 0-11 (count + 1) are recomputed.", AF_SCH_REQUIRED },
	{ "pad", &hexs, "the bytes from 0x14 up to the sequence table, hex, kept verbatim; their length fixes the table offset (0x20 in every known file)", AF_SCH_REQUIRED },
	{ "count", &(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = MOTN_MAX_ENTRIES },
	  "the number of entries. It must equal the length of entries: the game addresses motions by table index, so entries are never added or removed.", AF_SCH_REQUIRED },
	{ "names_pad", &hexs, "only present when the padding between the names and the data section is not the canonical \"zeros up to a multiple of 8\"; kept verbatim", 0 },
	{ "tail", &hexs, "only present when bytes follow the size field (container entries); kept verbatim", 0 },
	END,
};
const struct af_sch_prop motn_sch_entry[] = {
	{ "name", &af_sch_str, "the motion name", 0 },
	{ "name_hex", &hexs, "the name's bytes, instead of name when it has bytes outside printable ASCII", 0 },
	{ "block", &af_sch_name, "the id of a block in blocks (re-pointing it swaps the motion)", AF_SCH_REQUIRED },
	{ "extra", &af_sch_u32, "the key of a blob in extras", AF_SCH_REQUIRED },
	END,
};
static const struct af_sch names = { .kind = AF_SK_LIST, .items = &af_sch_str };
static const struct af_sch bone = { .kind = AF_SK_REF, .ref = "bone" };
const struct af_sch_prop motn_sch_block[] = {
	{ "block", &af_sch_name, "the block's id: the original data offset (hex) in decoded files, a label only; a new block may use any other unique id (a number or a word like new1)", AF_SCH_REQUIRED },
	{ "names", &names, "the entries that use this block, derived from entries and read-only (an edited list is refused)", 0 },
	{ "orphan", &af_sch_bool, "true: no entry uses the block; it is kept", 0 },
	{ "frames", &(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = 1, .hi = 32767 },
	  "the clip length in frames (30 fps, keys run 0..frames-1)", 0 },
	{ "rig", &(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 0x7FFF },
	  "rig / skeleton type id, kept as read", 0 },
	{ "wide_counts", &af_sch_bool, "frame-word bit 15: 16-bit key counts (never seen in data)", 0 },
	{ "bones", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &bone },
	  "one map per bone in strictly ascending id order: bone: ID and one key list per present channel", 0 },
	{ "raw", &af_sch_str, "a raw block: why it is raw (raw blocks are read-only)", 0 },
	{ "size", &af_sch_u32, "a raw block: its size in bytes (must match hex)", 0 },
	{ "hex", &hexs, "a raw block: its bytes", 0 },
	END,
};
static const struct af_sch entry = { .kind = AF_SK_MAP, .props = motn_sch_entry };
static const struct af_sch block = { .kind = AF_SK_MAP, .props = motn_sch_block };
static const struct af_sch format = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "shenmue-motn", "selects this codec" }, { NULL, NULL } } };
static const struct af_sch extras = { .kind = AF_SK_MAP, .open = 1, .props = (const struct af_sch_prop[]){ END } };
const struct af_sch_prop motn_sch_document[] = {
	{ "format", &format, "always shenmue-motn (selects this codec)", AF_SCH_REQUIRED },
	{ "header", &(const struct af_sch){ .kind = AF_SK_MAP, .props = motn_sch_header },
	  "the file header", AF_SCH_REQUIRED },
	{ "entries", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &entry },
	  "{name, block, extra} per table entry, in table order (the game's motion index); reordering, inserting or deleting entries is refused", AF_SCH_REQUIRED },
	{ "extras", &extras, "per-entry extra data, one hex blob per unique blob in file order, keyed by its original offset; each must stay a non-empty multiple of 4 bytes", AF_SCH_REQUIRED },
	{ "blocks", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &block },
	  "the data blocks in file order, each once: a sequence (frames, rig, bones) or a raw block (raw, size, hex)", AF_SCH_REQUIRED },
	{ "trailer", &hexs, "the bytes after the last block (a build stamp), kept verbatim", AF_SCH_REQUIRED },
	END,
};

/* A key [frame, type, values...]: one tuple per key type. */
static void write_key(struct af_json *j)
{
	char c[32];
	af_json_str(j, "description", "a key: [frame, type, value, slopes...] (half floats; 0xHHHH gives raw half bits)");
	af_json_open(j, "anyOf", '[');
	for (int t = 0; t < 4; t++) {
		af_json_open(j, NULL, '{');
		af_json_str(j, "description", motn_key_types[t].doc);
		af_json_str(j, "type", "array");
		af_json_open(j, "prefixItems", '[');
		af_json_raw(j, NULL, "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 32766, \"description\": \"frame\"}");
		snprintf(c, sizeof(c), "{\"const\": %d}", t);
		af_json_raw(j, NULL, c);
		af_json_close(j, ']');
		af_json_raw(j, "items", "{\"type\": \"number\"}");
		af_json_num(j, "minItems", 2 + t);
		af_json_num(j, "maxItems", 2 + t);
		af_json_close(j, '}');
	}
	af_json_close(j, ']');
}

static void write_bone(struct af_json *j)
{
	static const char *const chan_docs[MOTN_NCH] = {
		"translation x (model units)", "translation y (model units)",
		"translation z (model units)", "rotation x (radians, as stored)",
		"rotation y (radians, as stored)", "rotation z (radians, as stored)",
	};
	af_json_str(j, "type", "object");
	af_json_open(j, "properties", '{');
	af_sch_write(j, "bone", &(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = 0,
			.hi = MOTN_MAX_BONE }, "the rig slot 0..127 (the comment gives its name where known)");
	for (int c = 0; c < MOTN_NCH; c++) {
		af_json_open(j, motn_chan_names[c], '{');
		af_json_str(j, "description", chan_docs[c]);
		af_json_str(j, "type", "array");
		af_json_num(j, "minItems", 2);
		af_json_open(j, "items", '{');
		write_key(j);
		af_json_close(j, '}');
		af_json_close(j, '}');
	}
	af_json_close(j, '}');
	af_json_raw(j, "required", "[\"bone\"]");
	af_json_num(j, "minProperties", 2);
	af_json_bool(j, "additionalProperties", 0);
}

static const struct af_sch document = { .kind = AF_SK_MAP, .props = motn_sch_document };

/* The document's map, and the bone (with the channel table) under $defs. */
static void motn_schema_fn(struct af_json *j)
{
	af_sch_body(j, &document);
	af_json_open(j, "$defs", '{');
	af_json_open(j, "bone", '{');
	write_bone(j);
	af_json_close(j, '}');
	af_json_close(j, '}');
}

const struct af_sch motn_schema = { .kind = AF_SK_FN, .fn = motn_schema_fn,
	.doc = "A Shenmue MOTN motion bank as animfs shows it (docs/shenmue-motn.md)" };
