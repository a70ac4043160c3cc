/* The shape of a sims3-clip document: the key tables clip_parse.c checks maps against,
 * and the JSON Schema written from them and from the channel-type, sub-target and
 * event-kind tables of clip_bin.c. Descriptions are those of docs/sims3-clip.md. */
#include <stdio.h>
#include <string.h>

#include "animfs/schema.h"
#include "clip.h"

#define END { NULL, NULL, NULL, 0 }
#define REQ AF_SCH_REQUIRED

static const struct af_sch nums = { .kind = AF_SK_LIST, .items = &af_sch_num };
static const struct af_sch u16s = { .kind = AF_SK_LIST, .items = &af_sch_u16, .max = 4 };
static const struct af_sch quad = { .kind = AF_SK_LIST, .items = &af_sch_num, .min = 4, .max = 4 };
static const struct af_sch mat = { .kind = AF_SK_LIST, .items = &af_sch_num, .min = 16, .max = 16 };

/* type, sub_target and event type: a name of the table, or the number */
static void names_fn(struct af_json *j, const char *(*name)(unsigned), unsigned n, int numbers)
{
	af_json_open(j, "anyOf", '[');
	af_json_open(j, NULL, '{');
	af_json_open(j, "enum", '[');
	for (unsigned i = 0; i < n; i++)
		if (name(i))
			af_json_str(j, NULL, name(i));
	af_json_close(j, ']');
	af_json_close(j, '}');
	if (numbers)
		af_json_raw(j, NULL, "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 255}");
	af_json_close(j, ']');
}

static const char *type_name(unsigned i)
{
	return i < 256 ? clip_type(i)->name : NULL;
}

static const char *kind_name(unsigned i)
{
	return clip_ev_kinds[i].name;
}

static void type_fn(struct af_json *j) { names_fn(j, type_name, 256, 1); }
static void sub_fn(struct af_json *j) { names_fn(j, clip_sub_name, 256, 1); }
static void kind_fn(struct af_json *j)
{
	unsigned n = 0;
	while (clip_ev_kinds[n].name)
		n++;
	names_fn(j, kind_name, n, 0);
}

const struct af_sch_prop clip_sch_frame[] = {
	{ "v", &nums, "the values (as in the short form)", REQ },
	{ "flags", &af_sch_u16, "the stored frame flags: bits 0-3 the signs of the components (a code 0 may carry a sign), bits 4-15 of unknown meaning; used while the values are unchanged", 0 },
	{ "codes", &u16s, "the stored codes (or palette indices); used while the values are unchanged", 0 },
	END,
};
static const struct af_sch frame_map = { .kind = AF_SK_MAP, .props = clip_sch_frame };

static void frames_fn(struct af_json *j)
{
	af_json_str(j, "type", "object");
	af_json_open(j, "additionalProperties", '{');
	af_json_open(j, "anyOf", '[');
	af_sch_write(j, NULL, &(const struct af_sch){ .kind = AF_SK_LIST, .items = &af_sch_num, .max = 4 },
		     "tick: [values]: the decoded values of the frame at that tick");
	af_sch_write(j, NULL, &frame_map, "tick: {v, flags, codes}: values with the stored flags (and codes) that the values alone do not give");
	af_json_close(j, ']');
	af_json_close(j, '}');
}

const struct af_sch_prop clip_sch_channel[] = {
	{ "target", &af_sch_name, "the bone (or IK target) animated: its name when one hashes back (FNV-1 32 of the lower-cased name), else 0x + 8 hex digits", REQ },
	{ "type", &(const struct af_sch){ .kind = AF_SK_FN, .fn = type_fn }, "the channel type: how values are stored (spec 5.3), by name, or a number when unnamed", REQ },
	{ "sub_target", &(const struct af_sch){ .kind = AF_SK_FN, .fn = sub_fn }, "what the values drive (Translation, Orientation, ...), by name, or a number", REQ },
	{ "offset", &af_sch_num, "the quantisation offset (f32): values lie in offset +- |scale|", REQ },
	{ "scale", &af_sch_num, "the quantisation scale (f32, may be negative); the comment gives the quantum", REQ },
	{ "refit", &af_sch_bool, "true: take values outside the range: the offset moved by whole steps when that holds them (the other frames keep their codes), else offset and scale recomputed from the values and every frame of the channel re-quantised", 0 },
	{ "frames", &(const struct af_sch){ .kind = AF_SK_FN, .fn = frames_fn }, "tick: [values] per key frame, ticks strictly increasing", 0 },
	{ "frame_count", &af_sch_u16, "a channel of unknown layout: its frame count, kept", 0 },
	{ "raw_frames", &af_sch_hex, "a channel of unknown layout: its frame bytes, kept verbatim (not editable)", 0 },
	END,
};

const struct af_sch_prop clip_sch_target[] = {
	{ "index", &af_sch_u32, "the target's number (its position in the chain)", 0 },
	{ "namespace", &af_sch_str, "the actor whose slot the chain reaches (at most 511 bytes)", 0 },
	{ "target", &af_sch_str, "the slot or bone reached (at most 511 bytes)", 0 },
	{ "namespace_hex", &af_sch_hex, "the 512 namespace bytes, when they are not a text with # fill", 0 },
	{ "target_hex", &af_sch_hex, "the 512 target bytes, when they are not a text with # fill", 0 },
	END,
};
static const struct af_sch target = { .kind = AF_SK_MAP, .props = clip_sch_target };
const struct af_sch_prop clip_sch_chain[] = {
	{ "targets", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &target }, "the chain's targets in order", REQ },
	END,
};
static const struct af_sch chain = { .kind = AF_SK_MAP, .props = clip_sch_chain };

const struct af_sch_prop clip_sch_event[] = {
	{ "type", &(const struct af_sch){ .kind = AF_SK_FN, .fn = kind_fn }, "the event kind (Parent, Unparent, Sound, Script, Effect, Visibility, DestroyProp, StopEffect)", REQ },
	{ "id", &af_sch_u32, "the event number (not unique)", 0 },
	{ "time", &af_sch_num, "seconds from the clip start (f32)", REQ },
	{ "name", &af_sch_str, "the event label", REQ },
	{ "unknown1", &af_sch_num, "header f32 of unknown meaning (-1.0 or 0.0)", 0 },
	{ "unknown2", &af_sch_num, "header f32 of unknown meaning (equal to unknown1)", 0 },
	{ "unknown3", &af_sch_u32, "header word of unknown meaning (3, 7 or 0)", 0 },
	{ "tag", &af_sch_u16, "the event tag, shown only when it is not 0xC1E4", 0 },
	{ "actor", &af_sch_name, "Parent, Effect: the actor (a name or 0x hash)", 0 },
	{ "object", &af_sch_name, "Parent: the new parent; Unparent: the object", 0 },
	{ "slot", &af_sch_name, "Parent, Effect: the slot (a name or 0x hash)", 0 },
	{ "prop", &af_sch_name, "DestroyProp: the prop", 0 },
	{ "effect_name", &af_sch_name, "Effect, StopEffect: the effect instance name hash", 0 },
	{ "effect_key", &af_sch_u64, "Effect: FNV-1 64 of the name; shown only when it is not", 0 },
	{ "payload_unknown", &af_sch_u32, "Parent, Effect, StopEffect: the payload word of unknown meaning", 0 },
	{ "transform", &mat, "Parent: the 4x4 matrix (16 f32)", 0 },
	{ "visibility", &af_sch_num, "Visibility: the value (f32)", 0 },
	{ "sound", &af_sch_str, "Sound: the sound name (at most 127 bytes; the event name when left out)", 0 },
	{ "sound_hex", &af_sch_hex, "Sound: the 128 bytes, when they are not a text with 0 fill", 0 },
	END,
};
static const struct af_sch event = { .kind = AF_SK_MAP, .props = clip_sch_event };

const struct af_sch_prop clip_sch_unknown[] = {
	{ "header_unknown1", &af_sch_u32, "CLIP header word at 28 (0)", 0 },
	{ "header_unknown2", &af_sch_u32, "CLIP header word at 32 (0 or 1, by exporter)", 0 },
	{ "reserved", &af_sch_hex, "the 16 header bytes at 40 (zero)", 0 },
	{ "version", &af_sch_u32, "the _S3Clip_ codec version (2)", 0 },
	{ "flags", &af_sch_u32, "the body flags (0)", 0 },
	{ "padding", &af_sch_u16, "the body's padding half-word (0 or 0x6C73, by exporter)", 0 },
	{ "event_version", &af_sch_u32, "the event table version (0x103)", 0 },
	{ "end_block", &quad, "the 4 f32 of the end block ((0, 0, 0, 1))", 0 },
	END,
};

static const struct af_sch format = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "sims3-clip", "selects this codec" }, { NULL, NULL } } };
const struct af_sch_prop clip_sch_document[] = {
	{ "format", &format, "always sims3-clip (selects this codec)", REQ },
	{ "clip", &af_sch_str, "the clip name stored in the body (the comment gives its instance by the CLIP rule)", REQ },
	{ "source_file", &af_sch_str, "the source asset name (.ma, .blend)", REQ },
	{ "actor", &af_sch_str, "the actor name (x, y)", REQ },
	{ "tick_length", &af_sch_num, "seconds per tick (f32, 1/30)", REQ },
	{ "num_ticks", &af_sch_u16, "the number of ticks: the last frame's tick + 1", REQ },
	{ "palette", &nums, "the palette of indexed channels (f32), only when not empty", 0 },
	{ "ik_chains", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &chain, .nullable = 1 }, "the IK target table: null when there is none, [] for a table with no chains", REQ },
	{ "events", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &event }, "the clip events in stored order", REQ },
	{ "channels", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &(const struct af_sch){ .kind = AF_SK_MAP, .props = clip_sch_channel } }, "the channels in file order", REQ },
	{ "unknown", &(const struct af_sch){ .kind = AF_SK_MAP, .props = clip_sch_unknown }, "fields of unknown meaning, kept verbatim (defaults when left out)", 0 },
	END,
};

const struct af_sch clip_schema = { .kind = AF_SK_MAP, .props = clip_sch_document,
	.doc = "A Sims 3 animation clip (CLIP 0x6B20C4F3) as animfs shows it (docs/sims3-clip.md)" };
