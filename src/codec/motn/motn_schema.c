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
/* Blocks with rig bit 15 (motn_pose.c): values sampled once a frame. */
static const struct af_sch angle = { .kind = AF_SK_INT, .ranged = 1, .lo = -32768, .hi = 32767,
	.doc = "an angle, 65536 = one turn (int16 as stored)" };
static const struct af_sch angles = { .kind = AF_SK_LIST, .items = &angle, .min = 1 };
static const struct af_sch halves = { .kind = AF_SK_LIST, .items = &af_sch_num, .min = 1 };
static const struct af_sch triple = { .kind = AF_SK_LIST, .items = &af_sch_num, .min = 3, .max = 3 };
static const struct af_sch frames15 = { .kind = AF_SK_INT, .ranged = 1, .lo = 1, .hi = 32767 };
const struct af_sch_prop motn_sch_baked_bone[] = {
	{ "bone", &(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 63 },
	  "the rig slot: 0 (the root, first, with tx ty tz rx ry rz) then 1..63 in ascending order", AF_SCH_REQUIRED },
	{ "tx", &halves, "root translation x, one half float a frame", 0 },
	{ "ty", &halves, "root translation y, one half float a frame", 0 },
	{ "tz", &halves, "root translation z, one half float a frame", 0 },
	{ "rx", &angles, "rotation x, one angle a frame (65536 = one turn)", 0 },
	{ "ry", &angles, "rotation y, one angle a frame (65536 = one turn)", 0 },
	{ "rz", &angles, "rotation z, one angle a frame (65536 = one turn)", 0 },
	{ "hinge", &angles, "bones 7, 14, 28 and 34 (knees, elbows): their one angle a frame; the axis is unknown", 0 },
	END,
};
const struct af_sch_prop motn_sch_baked[] = {
	{ "frames", &frames15, "the number of frames (records), 30 fps", AF_SCH_REQUIRED },
	{ "rig", &(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 0x7FFE },
	  "the rig word without bit 15, kept as read", AF_SCH_REQUIRED },
	{ "bones", &(const struct af_sch){ .kind = AF_SK_LIST, .min = 1, .items = &(const struct af_sch){
		.kind = AF_SK_MAP, .props = motn_sch_baked_bone } },
	  "the root, then each animated bone in ascending id order", AF_SCH_REQUIRED },
	END,
};
static const struct af_sch rotation = { .kind = AF_SK_ANYOF, .alts = (const struct af_sch *const[]){
	&angle, &angles, NULL } };
const struct af_sch_prop motn_sch_node[] = {
	{ "scale", &(const struct af_sch){ .kind = AF_SK_ANYOF, .alts = (const struct af_sch *const[]){
		&triple, &(const struct af_sch){ .kind = AF_SK_LIST, .items = &triple, .min = 2 }, NULL } },
	  "[x, y, z] half floats, constant; or a track: one [x, y, z] a sample (frames + 1 of them)", AF_SCH_REQUIRED },
	{ "rx", &rotation, "rotation x: one angle (constant) or a track of frames + 1 angles (65536 = one turn)", AF_SCH_REQUIRED },
	{ "ry", &rotation, "rotation y: one angle (constant) or a track of frames + 1 angles (65536 = one turn)", AF_SCH_REQUIRED },
	{ "rz", &rotation, "rotation z: one angle (constant) or a track of frames + 1 angles (65536 = one turn)", AF_SCH_REQUIRED },
	{ "t", &triple, "translation [x, y, z], half floats, constant", AF_SCH_REQUIRED },
	END,
};
const struct af_sch_prop motn_sch_nodes[] = {
	{ "frames", &frames15, "the last sample's frame: a track has frames + 1 samples, 30 fps", AF_SCH_REQUIRED },
	{ "unknown", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &af_sch_u16, .min = 2, .max = 2 },
	  "header words +4 and +6 (0x3C00, a half 1.0, and 0 in every sample): meaning unknown, kept as read", AF_SCH_REQUIRED },
	{ "list", &(const struct af_sch){ .kind = AF_SK_LIST, .min = 1, .items = &(const struct af_sch){
		.kind = AF_SK_MAP, .props = motn_sch_node } },
	  "the nodes in file order (the prop's parts)", AF_SCH_REQUIRED },
	END,
};
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
	{ "baked", &(const struct af_sch){ .kind = AF_SK_MAP, .props = motn_sch_baked },
	  "a block whose rig word has bit 15 set (not 0xFFFF): one pose a frame (frames, rig, bones), instead of frames, rig and bones of a sequence", 0 },
	{ "nodes", &(const struct af_sch){ .kind = AF_SK_MAP, .props = motn_sch_nodes },
	  "a block whose rig word is 0xFFFF: per-node tracks of a prop (frames, unknown, list)", 0 },
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
		"translation z (model units)", "rotation x (turns: 1.0 = 360 degrees, as stored)",
		"rotation y (turns, as stored)", "rotation z (turns, as stored)",
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
