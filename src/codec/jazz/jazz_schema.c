/* The shape of a sims3-jazz document: the keys of each chunk kind that jazz_parse.c
 * checks maps against (besides the scalar fields of jazz_fields), and the JSON Schema
 * written from them, the kind table and the flag and value tables (jazz_enums.c).
 * Descriptions are those of docs/sims3-jazz.md. */
#include <stdio.h>
#include <string.h>

#include "animfs/schema.h"
#include "jazz.h"

#define END { NULL, NULL, NULL, 0 }
#define REF(name) (&(const struct af_sch){ .kind = AF_SK_REF, .ref = (name) })
/* A list whose items define a chunk of $defs kind def, or name one defined elsewhere. */
#define DEF_LIST(def) (&(const struct af_sch){ .kind = AF_SK_LIST, .nullable = 1,              \
	.items = &(const struct af_sch){ .kind = AF_SK_ANYOF,                                   \
		.alts = (const struct af_sch *const[]){ &ref, REF(def), NULL } } })

static const struct af_sch ref = { .kind = AF_SK_NAME, .nullable = 1,
	.doc = "a reference: the label (or name) of a chunk defined elsewhere in the document" };
static const struct af_sch refs = { .kind = AF_SK_LIST, .items = &ref, .nullable = 1 };
static const struct af_sch str_or_null = { .kind = AF_SK_STR, .nullable = 1 };
static const struct af_sch key_map = { .kind = AF_SK_MAP,
	.props = (const struct af_sch_prop[]){
		{ "instance", &af_sch_name, "the resource instance (a number, or a name that hashes to it)", AF_SCH_REQUIRED },
		{ "type", &af_sch_u32, "the resource type (left out when usual)", 0 },
		{ "group", &af_sch_u32, "the resource group (0 when left out)", 0 }, END } };
static const struct af_sch rkey = { .kind = AF_SK_ANYOF,
	.doc = "a resource key: the instance alone when type and group are the usual ones, else {instance, type, group}",
	.alts = (const struct af_sch *const[]){ &af_sch_name, &key_map, NULL } };
static const struct af_sch row2 = { .kind = AF_SK_TUPLE, .min = 2, .max = 2,
	.prefix = (const struct af_sch *const[]){ &af_sch_name, &af_sch_name, NULL } };
static const struct af_sch row3 = { .kind = AF_SK_TUPLE, .min = 3, .max = 3,
	.prefix = (const struct af_sch *const[]){ &af_sch_name, &af_sch_name, &af_sch_name, NULL } };
static const struct af_sch row4 = { .kind = AF_SK_TUPLE, .min = 4, .max = 4,
	.prefix = (const struct af_sch *const[]){ &af_sch_u32, &af_sch_u32, &af_sch_name, &af_sch_name, NULL } };
static const struct af_sch_prop outcome_props[] = {
	{ "weight", &af_sch_num, "the outcome's weight (f32)", 0 },
	{ "value", &af_sch_name, "select_on_parameter: the hashed value text", 0 },
	{ "state", &ref, "select_on_destination: the destination state", 0 },
	{ "next", &refs, "the nodes that follow", 0 }, END,
};
static const struct af_sch outcome = { .kind = AF_SK_MAP, .props = outcome_props };
static const struct af_sch cases = { .kind = AF_SK_LIST, .items = &outcome, .nullable = 1 };
static const struct af_sch node_or_ref = { .kind = AF_SK_ANYOF,
	.alts = (const struct af_sch *const[]){ &ref, REF("node"), NULL } };
static const struct af_sch nodes = { .kind = AF_SK_LIST, .items = &node_or_ref, .nullable = 1 };
static const struct af_sch empty_word = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "empty", "a new graph without nodes" }, { NULL, NULL } } };
static const struct af_sch graph = { .kind = AF_SK_ANYOF,
	.alts = (const struct af_sch *const[]){ &empty_word, &ref, REF("decision_graph"), NULL } };

/* The keys of a kind besides its scalar fields (jazz_fields) and the chunk keys. */
static const struct af_sch_prop p_st[] = {
	{ "transitions", &refs, "the states this state may go to", 0 },
	{ "decision_graph", &graph, "the state's decision graph (defined here), a reference, null, or empty", 0 }, END,
};
static const struct af_sch_prop p_dg[] = {
	{ "nodes", &nodes, "the graph's nodes, each defined at its first appearance", 0 },
	{ "entry_points", &refs, "the nodes the graph starts at", 0 }, END,
};
static const struct af_sch_prop p_play[] = {
	{ "clip", &rkey, "the clip resource (CLIP 0x6B20C4F3): its name or instance", AF_SCH_REQUIRED },
	{ "track_mask", &rkey, "the track mask resource (TkMk 0x033260E3); missing: the all-zero key", 0 },
	{ "additive_clip", &rkey, "the additive clip resource; missing: the all-zero key", 0 },
	{ "animation", &str_or_null, "clip-name pattern (text)", 0 },
	{ "additive_animation", &str_or_null, "additive clip-name pattern (text)", 0 },
	{ "actor", &ref, "the actor that plays it", 0 },
	{ "actor_slots", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &row4, .nullable = 1 },
	  "[chain_id, slot_id, actor, slot] rows", 0 },
	{ "actor_suffixes", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &row2, .nullable = 1 },
	  "[actor, suffix] rows", 0 },
	{ "next", &refs, "the nodes that follow", 0 }, END,
};
static const struct af_sch_prop p_stop[] = {
	{ "actor", &ref, "the actor", 0 }, { "next", &refs, "the nodes that follow", 0 }, END,
};
static const struct af_sch_prop p_rand[] = {
	{ "outcomes", &cases, "{weight, next} per outcome", 0 }, END,
};
static const struct af_sch_prop p_sopn[] = {
	{ "parameter", &ref, "the parameter selected on", 0 },
	{ "cases", &cases, "{value, next} per case (value is a hashed value text)", 0 }, END,
};
static const struct af_sch_prop p_dg00[] = {
	{ "cases", &cases, "{state, next} per case", 0 }, END,
};
static const struct af_sch_prop p_snsn[] = { { "state", &ref, "the next state", 0 }, END };
static const struct af_sch_prop p_prop[] = {
	{ "actor", &ref, "the actor", 0 },
	{ "parameter", &ref, "the parameter (may be null)", 0 },
	{ "prop", &rkey, "the prop resource (0x139F7591; numbers only)", AF_SCH_REQUIRED },
	{ "next", &refs, "the nodes that follow", 0 }, END,
};
static const struct af_sch_prop p_acop[] = {
	{ "actor", &ref, "the actor", 0 }, { "next", &refs, "the nodes that follow", 0 }, END,
};
static const struct af_sch_prop p_opaque[] = {
	{ "data", &af_sch_hex, "hex of the whole chunk (an unknown type, or a tag that does not match its type)", AF_SCH_REQUIRED },
	END,
};
static const struct af_sch_prop p_none[] = { END };
const struct af_sch_prop *const jazz_kind_props[JZ_NKINDS] = {
	[JZ_SM] = p_none, [JZ_AD] = p_none, [JZ_PD] = p_none, [JZ_ST] = p_st, [JZ_DG] = p_dg,
	[JZ_PLAY] = p_play, [JZ_STOP] = p_stop, [JZ_RAND] = p_rand, [JZ_SOPN] = p_sopn,
	[JZ_DG00] = p_dg00, [JZ_SNSN] = p_snsn, [JZ_PROP] = p_prop, [JZ_ACOP] = p_acop,
	[JZ_OPAQUE] = p_opaque,
};

/* Keys every chunk map may have; the top level (the state machine) has no label or kind. */
static const struct af_sch kind_word = { .kind = AF_SK_STR, .doc = "the chunk kind" };
const struct af_sch_prop jazz_chunk_props[] = {
	{ "label", &af_sch_str, "the label other places name this chunk by (nodes; chunks that share a name)", 0 },
	{ "kind", &kind_word, "the chunk kind (its readable name or 4-letter tag)", 0 },
	{ "version", &af_sch_u32, "the chunk version, printed only when it differs from the usual version of its kind", 0 },
	{ "key", &key_map, "the chunk's own RCOL key {instance, type, group}, only when not 0", 0 },
	END,
};

static const struct af_sch rcol = { .kind = AF_SK_MAP, .props = (const struct af_sch_prop[]){
	{ "version", &af_sch_u32, "RCOL version (3)", 0 },
	{ "public_chunks", &af_sch_u32, "public chunk count (1 in every known resource)", 0 },
	{ "unused", &af_sch_u32, "the unused RCOL word (0)", 0 }, END } };
static const struct af_sch format = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "sims3-jazz", "selects this codec" }, { NULL, NULL } } };
const struct af_sch_prop jazz_top_props[] = {
	{ "format", &format, "always sims3-jazz (selects this codec)", AF_SCH_REQUIRED },
	{ "instance", &af_sch_name, "the resource instance, only when it is not FNV-1 64 of name (e.g. the name is hex)", 0 },
	{ "group", &af_sch_u32, "the S_SM key group, only when not 0", 0 },
	{ "version", &af_sch_u32, "the S_SM chunk version, only when not 0x0202", 0 },
	{ "rcol", &rcol, "{version, public_chunks, unused}, only when not 3, 1, 0", 0 },
	{ "externals", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &key_map, .nullable = 1 },
	  "list of {instance, type, group}, only when present", 0 },
	{ "actors", DEF_LIST("actor"),
	  "S_SM.actors: each item defines an actor", 0 },
	{ "parameters", DEF_LIST("parameter"),
	  "S_SM.parameters", 0 },
	{ "animations", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &row3, .nullable = 1 },
	  "[source_file, namespace, actor], one a line", 0 },
	{ "states", DEF_LIST("state"),
	  "S_SM.states, each with its decision graph", 0 },
	{ "extra_chunks", &(const struct af_sch){ .kind = AF_SK_LIST, .nullable = 1,
		.items = REF("chunk") }, "chunks that no list reaches, each with a kind:", 0 },
	{ "chunk_order", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &af_sch_u32, .nullable = 1 },
	  "the file position of each chunk, listed in canonical order (delete it to re-order canonically)", 0 },
	END,
};

/* What each kind is, for its `kind:` value. */
static const char *const kind_docs[JZ_NKINDS] = {
	[JZ_SM] = "the state machine",
	[JZ_AD] = "an actor (S_AD)",
	[JZ_PD] = "a parameter (S_PD)",
	[JZ_ST] = "a state (S_St) with its transitions and decision graph",
	[JZ_DG] = "a decision graph (S_DG): nodes and entry points",
	[JZ_PLAY] = "a node that plays a clip (Play)",
	[JZ_STOP] = "a node that stops an animation (Stop)",
	[JZ_RAND] = "a node that picks one outcome by weight (Rand)",
	[JZ_SOPN] = "a node that branches on a parameter's value (SoPn)",
	[JZ_DG00] = "a node that branches on the destination state (DG00)",
	[JZ_SNSN] = "a node that goes to the next state (SNSN)",
	[JZ_PROP] = "a node that creates a prop (Prop)",
	[JZ_ACOP] = "a node that operates on an actor (AcOp)",
	[JZ_OPAQUE] = "a chunk whose type is unknown or whose tag does not match its type, carried as bytes",
};

static const char *field_doc(const struct jazz_field *f)
{
	static const struct { const char *name, *doc; } docs[] = {
		{ "name", "the name (hashed FNV-1 32; its 0x hash when the name is not known)" },
		{ "default_value", "the default value (hash of the value text)" },
		{ "flags", "flags: a list of names; bits without a name as hex items; none for no bits" },
		{ "default_priority", "the default animation priority" },
		{ "priority", "the animation priority" },
		{ "timing_priority", "the timing priority" },
		{ "awareness_overlay_level", "the awareness overlay level" },
		{ "blend_in_time", "blend-in time in seconds" },
		{ "blend_out_time", "blend-out time in seconds" },
		{ "speed", "playback speed (1.0 = normal)" },
		{ "operation", "the actor operation" },
		{ "operand", "the operation's operand" },
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		if (!strcmp(docs[i].name, f->name))
			return docs[i].doc;
	if (!strncmp(f->name, "unknown", 7))
		return "opaque: no known meaning; printed only when it differs from the value every known file has, and carried exactly";
	return NULL;
}

static void enum_values(struct af_json *j, const struct jazz_enum *e)
{
	char doc[64];
	af_json_open(j, NULL, '{');
	af_json_str(j, "description", e->what);
	af_json_open(j, "oneOf", '[');
	for (const struct jazz_enum_item *i = e->items; i->name; i++) {
		af_json_open(j, NULL, '{');
		af_json_str(j, "const", i->name);
		if (e->is_flags)
			snprintf(doc, sizeof(doc), "%s: bit%s 0x%08X", e->what, i->value & (i->value - 1) ? "s" : "", i->value);
		else
			snprintf(doc, sizeof(doc), "%s %u", e->what, i->value);
		af_json_str(j, "description", doc);
		af_json_close(j, '}');
	}
	if (e == &jazz_anim_flags) {
		af_json_open(j, NULL, '{');
		af_json_str(j, "const", "TimingNormal");
		af_json_str(j, "description", "none of the timing bits (0x60)");
		af_json_close(j, '}');
	}
	af_json_close(j, ']');
	af_json_close(j, '}');
}

static void field(struct af_json *j, const struct jazz_field *f)
{
	const char *doc = field_doc(f);
	switch (f->ft) {
	case JZ_FT_U32:
		af_sch_write(j, f->name, &af_sch_u32, doc);
		return;
	case JZ_FT_H32:
		af_sch_write(j, f->name, &af_sch_name, doc);
		return;
	default:
		break;
	}
	af_json_open(j, f->name, '{');
	if (doc)
		af_json_str(j, "description", doc);
	af_json_open(j, "anyOf", '[');
	if (f->ft == JZ_FT_F32) {
		af_json_raw(j, NULL, "{\"type\": \"number\"}");
		af_json_raw(j, NULL, "{\"type\": \"string\", \"pattern\": \"^nan(:0x[0-9A-Fa-f]+)?$\"}");
	} else if (f->ft == JZ_FT_ENUM) {
		enum_values(j, f->e);
		af_json_raw(j, NULL, "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 4294967295}");
	} else { /* flags */
		af_json_open(j, NULL, '{');
		af_json_str(j, "type", "array");
		af_json_open(j, "items", '{');
		af_json_open(j, "anyOf", '[');
		enum_values(j, f->e);
		af_json_raw(j, NULL, "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 4294967295}");
		af_json_close(j, ']');
		af_json_close(j, '}');
		af_json_close(j, '}');
		af_json_raw(j, NULL, "{\"const\": \"none\", \"description\": \"no bits\"}");
		af_json_raw(j, NULL, "{\"type\": \"null\"}");
	}
	af_json_close(j, ']');
	af_json_close(j, '}');
}

/* The members of a chunk's object schema: properties, required, no other keys. */
static void chunk_body(struct af_json *j, int kind, int need_kind)
{
	const struct af_sch_prop *common = kind == JZ_SM ? jazz_chunk_props + 2 : jazz_chunk_props;
	af_json_str(j, "type", "object");
	af_json_open(j, "properties", '{');
	for (const struct af_sch_prop *p = common; p->key; p++) {
		if (strcmp(p->key, "kind")) {
			af_sch_write(j, p->key, p->s, p->doc);
			continue;
		}
		af_json_open(j, "kind", '{');
		af_json_str(j, "description", kind_docs[kind]);
		af_json_open(j, "enum", '[');
		af_json_str(j, NULL, jazz_kinds[kind].yname);
		if (kind != JZ_OPAQUE)
			af_json_str(j, NULL, jazz_kinds[kind].tag);
		af_json_close(j, ']');
		af_json_close(j, '}');
	}
	for (const struct jazz_field *f = jazz_fields[kind]; f->name; f++)
		field(j, f);
	for (const struct af_sch_prop *p = kind == JZ_SM ? jazz_top_props : jazz_kind_props[kind];
	     p->key; p++)
		af_sch_write(j, p->key, p->s, p->doc);
	af_json_close(j, '}');
	af_json_open(j, "required", '[');
	if (need_kind)
		af_json_str(j, NULL, "kind");
	for (const struct jazz_field *f = jazz_fields[kind]; f->name; f++)
		if (f->ft == JZ_FT_H32 && !strcmp(f->name, "name"))
			af_json_str(j, NULL, "name");
	for (const struct af_sch_prop *p = kind == JZ_SM ? jazz_top_props : jazz_kind_props[kind];
	     p->key; p++)
		if (p->flags & AF_SCH_REQUIRED)
			af_json_str(j, NULL, p->key);
	if (kind == JZ_OPAQUE)
		af_json_str(j, NULL, "key");
	af_json_close(j, ']');
	af_json_bool(j, "additionalProperties", 0);
}

static void jazz_root(struct af_json *j)
{
	char ref[64];
	chunk_body(j, JZ_SM, 0);
	af_json_open(j, "$defs", '{');
	for (int k = JZ_AD; k < JZ_NKINDS; k++) {
		af_json_open(j, jazz_kinds[k].yname, '{');
		af_json_str(j, "description", kind_docs[k]);
		chunk_body(j, k, jazz_is_node(k) || k == JZ_OPAQUE);
		af_json_close(j, '}');
	}
	af_json_open(j, "node", '{');
	af_json_str(j, "description", "a decision-graph node; its kind: says which");
	af_json_open(j, "anyOf", '[');
	for (int k = JZ_PLAY; k <= JZ_ACOP; k++) {
		snprintf(ref, sizeof(ref), "{\"$ref\": \"#/$defs/%s\"}", jazz_kinds[k].yname);
		af_json_raw(j, NULL, ref);
	}
	af_json_close(j, ']');
	af_json_close(j, '}');
	af_json_open(j, "chunk", '{');
	af_json_str(j, "description", "a chunk of any kind, with its kind:");
	af_json_open(j, "anyOf", '[');
	for (int k = JZ_AD; k < JZ_NKINDS; k++) {
		snprintf(ref, sizeof(ref), "{\"$ref\": \"#/$defs/%s\"}", jazz_kinds[k].yname);
		af_json_raw(j, NULL, ref);
	}
	af_json_close(j, ']');
	af_json_close(j, '}');
	af_json_close(j, '}');
}

const struct af_sch jazz_schema = { .kind = AF_SK_FN, .fn = jazz_root,
	.doc = "A Sims 3 animation state machine (Jazz, RCOL resource 0x02D5DF13) as animfs shows it (docs/sims3-jazz.md)" };
