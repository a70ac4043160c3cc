/* The shape of a diesel-animation document: the key tables diesel_parse.c checks maps
 * against, and the JSON Schema written from them and from the track type table
 * (diesel_types). Descriptions are those of docs/diesel-animation.md. */
#include <stdio.h>
#include <string.h>

#include "animfs/schema.h"
#include "diesel.h"

static const struct af_sch_val layouts[] = {
	{ "32-bit", "the PAYDAY 2 layout before its 64-bit build of 2026-08-14 (and PAYDAY: The Heist, RAID)" },
	{ "64-bit", "the layout of PAYDAY 2's 64-bit build (formats/diesel-x64.md)" },
	{ NULL, NULL },
};
static const struct af_sch layout = { .kind = AF_SK_ENUM, .vals = layouts };
static const struct af_sch container = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "zlib", "zlib stream + 4-byte size trailer (every known 32-bit file)" },
	{ "raw", "the raw blob (64-bit files, and raw 32-bit blobs)" }, { NULL, NULL } } };
static const struct af_sch word_none = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "none", "no zlib level reproduces the stored stream (zlib_stream holds it)" }, { NULL, NULL } } };
static const struct af_sch level09 = { .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 9 };
static const struct af_sch zlib_level = { .kind = AF_SK_ANYOF,
	.alts = (const struct af_sch *const[]){ &level09, &word_none, NULL } };
static const struct af_sch styles = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "converter", "as the community converter pd2-x64-converter v1.0.2 writes (64-bit default)" },
	{ "native", "the game's own 64-bit rules" },
	{ "stock", "the stock 32-bit layout (32-bit default)" }, { NULL, NULL } } };
static const struct af_sch pad = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "1", "no padding" }, { "2", NULL }, { "4", "stock 32-bit" }, { "8", "64-bit" },
	{ NULL, NULL } } };
#define WORD_OR_NUMBER(var, word, what)                                                       \
	static const struct af_sch var##_word = { .kind = AF_SK_ENUM,                          \
		.vals = (const struct af_sch_val[]){ { word, what }, { NULL, NULL } } };        \
	static const struct af_sch var = { .kind = AF_SK_ANYOF,                               \
		.alts = (const struct af_sch *const[]){ &var##_word, &af_sch_u64, NULL } }
WORD_OR_NUMBER(size_field, "actual", "the blob length, recomputed on write");
WORD_OR_NUMBER(unknown_offset, "events", "the events offset");
WORD_OR_NUMBER(empty_events_offset, "here", "the current write position (stock)");

const struct af_sch_prop diesel_sch_binary[] = {
	{ "layout", &layout, "the blob layout (spec 4.1; formats/diesel-x64.md for 64-bit). Changing it converts the file the way `animfs convert` does: the keys below then follow the new layout's rules.", 0 },
	{ "container", &container, "zlib stream + 4-byte size trailer (every known 32-bit file), or the raw blob (64-bit files, and raw 32-bit blobs)", 0 },
	{ "zlib_level", &zlib_level, "the system-zlib compress2 level that reproduces the stored stream (always 6 in known files); none: no level reproduces it", 0 },
	{ "zlib_header", &af_sch_u16, "only when the two header bytes differ from what that level writes (hand-made headers), e.g. 0x78DA", 0 },
	{ "zlib_extra", &af_sch_hex, "bytes found between the zlib stream and the size trailer (hex), written back in place", 0 },
	{ "zlib_stream", &af_sch_str, "only with zlib_level: none: the original compressed stream (base64), written back only if it inflates to exactly the re-encoded data", 0 },
	{ "magic", &af_sch_u32, "the first four bytes as a little-endian u32: 0x0883CC85, or the byte-swapped 0x85CC8308 (PD2ModelParser), kept as found", 0 },
	{ "version", &af_sch_u32, "header field, always 0 in known files, kept verbatim", 0 },
	{ "location", &af_sch_u64, "header field, always 0 in known files, kept verbatim", 0 },
	{ "header_pad0", &af_sch_u64, "64-bit header padding word; shown only when not zero", 0 },
	{ "header_pad1", &af_sch_u32, "64-bit header padding word; shown only when not zero", 0 },
	{ "size_field", &size_field, "actual: the header's size field holds the blob length (recomputed on write). A number (old tools write 0) is written verbatim.", 0 },
	{ "unknown_offset", &unknown_offset, "offset of the empty \"beat times\" section: the events offset, or a verbatim value (0 in some tools)", 0 },
	{ "empty_events_offset", &empty_events_offset, "only when there are no events: the current write position (stock) or a verbatim value", 0 },
	{ "name_pad", &pad, "zero padding after the name strings (stock 32-bit: 4; third-party exporters: 1; 64-bit: 8)", 0 },
	{ "event_pad", &pad, "zero padding after the event strings (stock 32-bit: 4; third-party exporters: 1; 64-bit: 8)", 0 },
	{ "track_align", &pad, "zero padding before each track header and the rotation table (stock 32-bit: 4; third-party exporters: 1; 64-bit: 8)", 0 },
	{ "end_pad", &pad, "zero padding after the last key, counted in the size field (1: none); the community converter pads its 64-bit files to 8", 0 },
	{ "dedupe_event_names", &af_sch_bool, "repeated event names share one string (stock) or each event has its own copy", 0 },
	{ "decoded_as", &layout, "the layout the other keys describe, as decoded. Leave it alone: it is how animfs sees that layout: was changed.", 0 },
	{ "convert_style", &styles, "only when layout: was changed: the writer style of the conversion. Default: converter for 64-bit, stock for 32-bit.", 0 },
	{ NULL, NULL, NULL, 0 },
};

static const struct af_sch event_time = { .kind = AF_SK_NUM,
	.doc = "the stored f32 fraction of the clip length (not seconds), 0..1 in known files" };
static const struct af_sch event_name = { .kind = AF_SK_STR, .doc = "the event name (ASCII)" };
const struct af_sch_prop diesel_sch_event[] = {
	{ "time", &event_time, NULL, AF_SCH_REQUIRED },
	{ "name", &event_name, NULL, AF_SCH_REQUIRED },
	{ NULL, NULL, NULL, 0 },
};
static const struct af_sch event_pair = { .kind = AF_SK_TUPLE, .min = 2, .max = 2,
	.prefix = (const struct af_sch *const[]){ &event_time, &event_name, NULL } };
static const struct af_sch event_map = { .kind = AF_SK_MAP, .props = diesel_sch_event };
static const struct af_sch event = { .kind = AF_SK_ANYOF,
	.doc = "[fraction, name] or {time: fraction, name: ...}",
	.alts = (const struct af_sch *const[]){ &event_pair, &event_map, NULL } };
static const struct af_sch events = { .kind = AF_SK_LIST, .items = &event, .nullable = 1 };

const struct af_sch_prop diesel_sch_track[] = {
	{ "type", &af_sch_str, "the key type of the track", AF_SCH_REQUIRED },
	{ "reserved", &af_sch_u64, "the track header's first word, shown only when not 0", 0 },
	{ "extra", &af_sch_u16, "pos_u16 only: the 4th u16 of every key (0 or 39321 in known files, meaning unknown), when every key has the same one", 0 },
	{ "keys", &af_sch_any, "one key a line: the time in seconds, then the values of the track type", AF_SCH_REQUIRED },
	{ NULL, NULL, NULL, 0 },
};

/* The number of values of a key of type ti: the quaternion's (n, n + optional), and
 * with `euler: xyz` a rotation key may also have the Euler arity n - 1 (three angles
 * for four quaternion values). */
static unsigned key_arity(const struct diesel_type_info *ti) { return 1 + ti->nval + (unsigned)ti->has_flag; }

/* One member of a track's allOf: {"if": the track's type is ti, "then": {("not": not,)
 * "properties": {"keys": {"items": {...}}}}}, opened for the key's own rules, then
 * closed. */
static void key_rule_open(struct af_json *j, const struct diesel_type_info *ti, const char *not)
{
	char cond[96];
	af_json_open(j, NULL, '{');
	snprintf(cond, sizeof(cond), "{\"properties\": {\"type\": {\"const\": \"%s\"}}}", ti->name);
	af_json_raw(j, "if", cond);
	af_json_open(j, "then", '{');
	if (not)
		af_json_raw(j, "not", not);
	af_json_open(j, "properties", '{');
	af_json_open(j, "keys", '{');
	af_json_open(j, "items", '{');
}
static void key_rule_close(struct af_json *j)
{
	for (int k = 0; k < 5; k++) /* items, keys, properties, then, the member */
		af_json_close(j, '}');
}

/* A track: its type picks the shape of every key, from diesel_types. A rotation key
 * may have the Euler arity here; the document's own condition (below) takes that back
 * where the document has no `euler:` header. */
static void track_schema(struct af_json *j, int rot)
{
	af_json_str(j, "type", "object");
	af_json_open(j, "properties", '{');
	for (const struct af_sch_prop *p = diesel_sch_track; p->key; p++) {
		if (!strcmp(p->key, "extra") && rot)
			continue;
		if (strcmp(p->key, "type") && strcmp(p->key, "keys")) {
			af_sch_write(j, p->key, p->s, p->doc);
			continue;
		}
		af_json_open(j, p->key, '{');
		af_json_str(j, "description", p->doc);
		if (!strcmp(p->key, "keys")) {
			af_json_str(j, "type", "array");
			af_json_num(j, "minItems", 1);
		} else {
			af_json_open(j, "oneOf", '[');
			for (int t = 0; t < DSL_NTYPES; t++)
				if (diesel_types[t].is_rot == rot) {
					af_json_open(j, NULL, '{');
					af_json_str(j, "const", diesel_types[t].name);
					af_json_str(j, "description", diesel_types[t].doc);
					af_json_close(j, '}');
				}
			af_json_close(j, ']');
		}
		af_json_close(j, '}');
	}
	af_json_close(j, '}');
	af_json_open(j, "required", '[');
	for (const struct af_sch_prop *p = diesel_sch_track; p->key; p++)
		if (p->flags & AF_SCH_REQUIRED)
			af_json_str(j, NULL, p->key);
	af_json_close(j, ']');
	af_json_bool(j, "additionalProperties", 0);
	af_json_open(j, "allOf", '[');
	for (int t = 0; t < DSL_NTYPES; t++) {
		const struct diesel_type_info *ti = &diesel_types[t];
		unsigned n = key_arity(ti);
		int optional = t == DSL_POS_U16 || t == DSL_ROT_PACKED;
		if (ti->is_rot != rot)
			continue;
		key_rule_open(j, ti, t != DSL_POS_U16 ? "{\"required\": [\"extra\"]}" : NULL);
		af_json_str(j, "description", ti->doc);
		af_json_str(j, "type", "array");
		af_json_open(j, "items", '{');
		af_json_str(j, "type", "number");
		af_json_close(j, '}');
		af_json_num(j, "minItems", n - (unsigned)rot);
		af_json_num(j, "maxItems", n + (unsigned)optional);
		key_rule_close(j);
	}
	af_json_close(j, ']');
}
static void pos_track(struct af_json *j) { track_schema(j, 0); }
static void rot_track(struct af_json *j) { track_schema(j, 1); }
static const struct af_sch position = { .kind = AF_SK_FN, .fn = pos_track };
static const struct af_sch rotation = { .kind = AF_SK_FN, .fn = rot_track };

static const struct af_sch object_name = { .kind = AF_SK_STR,
	.doc = "the object (bone or prop object) name: unique, non-empty" };
const struct af_sch_prop diesel_sch_object[] = {
	{ "name", &object_name, NULL, AF_SCH_REQUIRED },
	{ "position", &position, "the position track: time in seconds, then centimetres", AF_SCH_REQUIRED },
	{ "rotation", &rotation, "the rotation track: time in seconds, then a unit quaternion x, y, z, w", AF_SCH_REQUIRED },
	{ NULL, NULL, NULL, 0 },
};
static const struct af_sch object = { .kind = AF_SK_MAP, .props = diesel_sch_object };
static const struct af_sch objects = { .kind = AF_SK_LIST, .items = &object, .nullable = 1 };

static const struct af_sch format = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "diesel-animation", "selects this codec" }, { NULL, NULL } } };
static const struct af_sch length = { .kind = AF_SK_NUM, .ranged = 1, .lo = 0, .hi = 3.4028234663852886e38 };
static const struct af_sch binary = { .kind = AF_SK_MAP, .props = diesel_sch_binary };
static const struct af_sch euler = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "xyz", "degrees about x, then y, then z, about the fixed axes (R = Rz Ry Rx)" }, { NULL, NULL } } };

const struct af_sch_prop diesel_sch_document[] = {
	{ "format", &format, "always diesel-animation (selects this codec)", AF_SCH_REQUIRED },
	{ "read_only", &af_sch_any, "only in a read-only view: why animfs cannot write the file back byte for byte. A save is refused while it is there.", 0 },
	{ "length", &length, "clip length in seconds (f32, shortest text that gives the same bits)", AF_SCH_REQUIRED },
	{ "binary", &binary, "layout and container details. Optional when writing a new file: the default is the stock PAYDAY 2 layout (32-bit, zlib level 6, 4-byte padding, event names shared).", 0 },
	{ "euler", &euler, "xyz: a rotation key may also be written [time, rx, ry, rz] (a flag after them on rot_f32_flag): Euler angles in degrees, about x, then y, then z (fixed axes), turned into the track's quaternion on save. Without it, a rotation key has the quaternion's values.", 0 },
	{ "events", &events, "list of [fraction, name], or {time: fraction, name: ...}; empty/absent = no events", 0 },
	{ "objects", &objects, "list of objects (bones or prop objects), each with one position and one rotation track", AF_SCH_REQUIRED },
	{ NULL, NULL, NULL, 0 },
};

static const struct af_sch document = { .kind = AF_SK_MAP, .props = diesel_sch_document };

/* The document: its keys, and where it has no `euler:` header, every rotation key
 * has the quaternion's values (the arity of its type, not three angles). */
static void document_schema(struct af_json *j)
{
	af_sch_body(j, &document);
	af_json_raw(j, "if", "{\"not\": {\"required\": [\"euler\"]}}");
	af_json_open(j, "then", '{');
	af_json_open(j, "properties", '{');
	af_json_open(j, "objects", '{');
	af_json_open(j, "items", '{');
	af_json_open(j, "properties", '{');
	af_json_open(j, "rotation", '{');
	af_json_open(j, "allOf", '[');
	for (int t = 0; t < DSL_NTYPES; t++) {
		const struct diesel_type_info *ti = &diesel_types[t];
		if (!ti->is_rot)
			continue;
		key_rule_open(j, ti, NULL);
		af_json_num(j, "minItems", key_arity(ti));
		key_rule_close(j);
	}
	af_json_close(j, ']');
	for (int k = 0; k < 6; k++) /* rotation, properties, items, objects, properties, then */
		af_json_close(j, '}');
}

const struct af_sch diesel_schema = { .kind = AF_SK_FN, .fn = document_schema,
	.doc = "A Diesel engine .animation (PAYDAY 2, PAYDAY: The Heist, RAID: WW2) as animfs shows it (docs/diesel-animation.md)" };
