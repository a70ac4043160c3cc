/* The shape of a sims3-rig document: the key tables rig_parse.c checks maps against,
 * and the JSON Schema written from them. Descriptions are those of docs/sims3-rig.md. */
#include "animfs/schema.h"
#include "rig.h"

#define END { NULL, NULL, NULL, 0 }

const char *const rig_kind_names[4] = { "clear", "granny2-wrapped", "granny2-raw", "opaque" };

static const struct af_sch f32s = { .kind = AF_SK_NUM, .doc = "an f32: the shortest decimal that reads back to the same bits" };
static const struct af_sch vec3 = { .kind = AF_SK_TUPLE, .min = 3, .max = 3,
	.prefix = (const struct af_sch *const[]){ &f32s, &f32s, &f32s, NULL } };
static const struct af_sch quat = { .kind = AF_SK_TUPLE, .min = 4, .max = 4,
	.prefix = (const struct af_sch *const[]){ &f32s, &f32s, &f32s, &f32s, NULL } };
static const struct af_sch i32s = { .kind = AF_SK_INT, .ranged = 1, .lo = -2147483648.0, .hi = 2147483647.0 };
static const struct af_sch bref = { .kind = AF_SK_NAME, .nullable = 1,
	.doc = "a bone by name, a stored index as an integer, or null (-1)" };
static const struct af_sch brefs = { .kind = AF_SK_LIST, .items = &bref };
static const struct af_sch info11 = { .kind = AF_SK_LIST, .items = &bref, .min = RIG_INFO_NODES,
	.max = RIG_INFO_NODES };

const struct af_sch_prop rig_sch_bone[] = {
	{ "name", &af_sch_str, "the bone name (printable ASCII); its FNV-1 32 is the hash CLIP channels target", AF_SCH_REQUIRED },
	{ "parent", &bref, "the parent bone by name; null for the root", AF_SCH_REQUIRED },
	{ "position", &vec3, "translation relative to the parent", AF_SCH_REQUIRED },
	{ "orientation", &quat, "rotation quaternion x, y, z, w relative to the parent", AF_SCH_REQUIRED },
	{ "scale", &vec3, "scale; absent means exactly 1, 1, 1", 0 },
	{ "opposite", &bref, "the mirror bone; absent means the bone itself (an index that is no bone is kept as stored)", 0 },
	{ "flags", &af_sch_u32, "the bone's flags; absent means 0x23 (meaning of the bits unknown)", 0 },
	{ "hash", &af_sch_u32, "the stored name hash, only when it is not FNV-1 32 of the name", 0 },
	END,
};
const struct af_sch_prop rig_sch_chain[] = {
	{ "bones", &brefs, "the bones of the chain", AF_SCH_REQUIRED },
	{ "info_nodes", &info11, "11 info node bones", AF_SCH_REQUIRED },
	{ "pole", &bref, "the pole-vector bone", AF_SCH_REQUIRED },
	{ "slot_info", &bref, "the slot info bone", AF_SCH_REQUIRED },
	{ "slot_offset", &i32s, "slot offset (an integer, meaning unknown)", AF_SCH_REQUIRED },
	{ "root", &bref, "the chain's root bone", AF_SCH_REQUIRED },
	END,
};
static const struct af_sch bone = { .kind = AF_SK_MAP, .props = rig_sch_bone };
static const struct af_sch chain = { .kind = AF_SK_MAP, .props = rig_sch_chain };
static const struct af_sch format = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "sims3-rig", "selects this codec" }, { NULL, NULL } } };
static const struct af_sch kinds = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "granny2-wrapped", "a Granny2 rig with the 0x8EAF13DE wrapper: read-only" },
	{ "granny2-raw", "a plain Granny2 file: read-only" },
	{ "opaque", "looks like a clear rig but its layout does not fit: read-only" },
	{ NULL, NULL } } };
static const struct af_sch version = { .kind = AF_SK_TUPLE, .min = 2, .max = 2,
	.doc = "[major, minor]: 4.2 in every known rig (major 3 or 4, minor 1 or 2)",
	.prefix = (const struct af_sch *const[]){
		&(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = 3, .hi = 4 },
		&(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = 1, .hi = 2 }, NULL } };
const struct af_sch_prop rig_sch_document[] = {
	{ "format", &format, "always sims3-rig (selects this codec)", AF_SCH_REQUIRED },
	{ "skeleton_name", &af_sch_str, "the skeleton's name (bagFlour, accessoryTissue)", 0 },
	{ "version", &version, NULL, 0 },
	{ "bones", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &bone },
	  "the bones in file order (reordering renumbers every reference; they are written back from the names)", 0 },
	{ "ik_chains", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &chain },
	  "the IK chains (major 4 only)", 0 },
	{ "kind", &kinds, "a rig carried as bytes (Granny2 or unknown): shown read-only", 0 },
	{ "size", &af_sch_u64, "a rig carried as bytes: its size", 0 },
	END,
};

const struct af_sch rig_schema = { .kind = AF_SK_MAP, .props = rig_sch_document,
	.doc = "A The Sims 3 skeleton (_RIG) as animfs shows it (docs/sims3-rig.md)" };
