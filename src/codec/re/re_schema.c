/* The shape of a re-model document and its JSON Schema, from the RE codec's layout,
 * kind and role tables (re_bin.c) and its names (re_names.c). Descriptions are those of
 * docs/re-model.md. re_parse.c checks every map's keys against the props tables here. */
#include "animfs/schema.h"
#include "re.h"

#define END { NULL, NULL, NULL, 0 }

static const struct af_sch i16 = { .kind = AF_SK_INT, .ranged = 1, .lo = -32768, .hi = 32767 };
static const struct af_sch xyz = { .kind = AF_SK_TUPLE, .min = 3, .max = 3,
	.prefix = (const struct af_sch *const[]){ &i16, &i16, &i16, NULL } };
static const struct af_sch deg = { .kind = AF_SK_NUM, .ranged = 1, .lo = -360, .hi = 360,
	.doc = "degrees (4096 codes = 360 degrees)" };
static const struct af_sch angle3 = { .kind = AF_SK_TUPLE, .min = 3, .max = 3,
	.doc = "one bone's [x, y, z] rotation in degrees; the view's comment after it names the bone",
	.prefix = (const struct af_sch *const[]){ &deg, &deg, &deg, NULL } };
static const struct af_sch none_word = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "none", "an empty list" }, { NULL, NULL } } };

const struct af_sch_prop re_bone_props[] = {
	{ "bone", &af_sch_u16, "the bone's number; must equal its position", AF_SCH_REQUIRED },
	{ "parent", &(const struct af_sch){ .kind = AF_SK_INT, .ranged = 1, .lo = -1, .hi = 65535 },
	  "the parent bone (-1 for bone 0, which must be the root)", AF_SCH_REQUIRED },
	{ "relpos", &xyz, "the rest offset from the parent in game units (+y points down; the root's relpos is the overall height)", AF_SCH_REQUIRED },
	END,
};
static const struct af_sch bone = { .kind = AF_SK_MAP, .props = re_bone_props };
static const struct af_sch skeleton = { .kind = AF_SK_ANYOF, .alts = (const struct af_sch *const[]){
	&(const struct af_sch){ .kind = AF_SK_LIST, .items = &bone }, &none_word, NULL } };

/* RE frame flags: a name from re_names.c where the spec reads the value, else a number. */
static const struct af_sch flag_any = { .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 0xFFFFF,
	.doc = "a flags value: meaning unknown, carried as given (RE3: u8, printed 0x00..0xFF; RE2: 20 bits)" };

static void write_flags(struct af_json *j)
{
	af_json_open(j, "anyOf", '[');
	af_json_open(j, NULL, '{');
	af_json_str(j, "description", "a flag's name (RE3 and RE2: none; RE3 only: the others)");
	af_json_open(j, "oneOf", '[');
	for (const struct re_flag_name *f = re_flag_names; f->name; f++) {
		af_json_open(j, NULL, '{');
		af_json_str(j, "const", f->name);
		af_json_str(j, "description", f->doc);
		af_json_close(j, '}');
	}
	af_json_close(j, ']');
	af_json_close(j, '}');
	af_sch_write(j, NULL, &flag_any, NULL);
	af_json_close(j, ']');
}

static const struct af_sch flags = { .kind = AF_SK_FN, .fn = write_flags,
	.doc = "the frame's flags: a name where the value's reading is known, otherwise hex" };
static const struct af_sch pose = { .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 4095,
	.doc = "the pose: RE3 relative to pose_start (u8), RE2 absolute (12 bits)" };
static const struct af_sch outside_word = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "outside", "the pose is past the pool's end, as in the file: carried, not checked" },
	{ NULL, NULL } } };
static const struct af_sch frame = { .kind = AF_SK_TUPLE, .min = 2, .max = 3,
	.doc = "a game frame (30 per second): [pose, flags], or [pose, flags, outside] for a pose past the pool",
	.prefix = (const struct af_sch *const[]){ &pose, &flags, &outside_word, NULL } };
static const struct af_sch frames = { .kind = AF_SK_ANYOF, .alts = (const struct af_sch *const[]){
	&(const struct af_sch){ .kind = AF_SK_LIST, .items = &frame }, &none_word, NULL } };
const struct af_sch_prop re_seq_props[] = {
	{ "pose_start", &af_sch_u32, "RE3: the first pose of the sequence (a full u32, never derived from the frames)", 0 },
	{ "frames", &frames, "the sequence's game frames, one a line", 0 },
	END,
};
static const struct af_sch seq = { .kind = AF_SK_MAP, .props = re_seq_props };
static const struct af_sch sequences = { .kind = AF_SK_ANYOF, .alts = (const struct af_sch *const[]){
	&(const struct af_sch){ .kind = AF_SK_LIST, .items = &seq }, &none_word, NULL } };
const struct af_sch_prop re_key_props[] = {
	{ "pose", &af_sch_u32, "the number the sequences use; must equal the position", AF_SCH_REQUIRED },
	{ "motion", &xyz, "root motion exactly as stored, cumulative within a sequence", 0 },
	{ "y_offset", &i16, "RE3: root height of the pose", 0 },
	{ "offset", &xyz, "RE2: root offset", 0 },
	{ "stray_bits", &af_sch_u32, "only where not zero: the bits of the keyframe after its last angle (LSB first; 4 bits for 15 bones, 28 for 9), carried as found", 0 },
	{ "angles", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &angle3 },
	  "one [x, y, z] per bone in bone order, in degrees, one bone a line; the comment after each names the bone (RE3 human and lower-body skeletons, bone_<i> otherwise; never read back: the position is the bone); any number in -360..360 is accepted and quantized", 0 },
	END,
};
static const struct af_sch keyframe = { .kind = AF_SK_MAP, .props = re_key_props };
static const struct af_sch i12 = { .kind = AF_SK_INT, .ranged = 1, .lo = -2048, .hi = 4095,
	.doc = "a 12-bit value (shown signed, -2048..2047; 2048..4095 are the same codes)" };
static const struct af_sch deg3 = { .kind = AF_SK_TUPLE, .min = 3, .max = 3,
	.doc = "a rotation [x, y, z] in degrees (4096 codes = 360 degrees)",
	.prefix = (const struct af_sch *const[]){ &deg, &deg, &deg, NULL } };
const struct af_sch_prop re_rec7_props[] = {
	{ "pose", &af_sch_u32, "the number the sequences use; must equal the position", AF_SCH_REQUIRED },
	{ "motion", &xyz, "bytes 0-5: root motion, cumulative within a sequence, as the paired upper-body pose's (within 3)", 0 },
	{ "y_offset8", &i16, "bytes 6-7: 8 x the root height (the paired upper-body pose's y_offset, within 1, in most files)", 0 },
	{ "right_unknown", &i12, "12-bit value 0 of bytes 8-19: smooth over frames, use unknown", 0 },
	{ "right_foot_angles", &deg3, "12-bit values 1-3: the right foot bone's rotation [x, y, z] in degrees, in the frame of the motion (the root's rotation included)", 0 },
	{ "left_unknown", &i12, "12-bit value 4: as right_unknown, for the left leg", 0 },
	{ "left_foot_angles", &deg3, "12-bit values 5-7: as right_foot_angles, for the left foot", 0 },
	{ "right_foot", &xyz, "bytes 20-25: the right foot bone's origin (the ankle) from the root's motion point, 8 units a game unit", 0 },
	{ "left_foot", &xyz, "bytes 26-31: the left foot's, as right_foot", 0 },
	END,
};
static const struct af_sch record7 = { .kind = AF_SK_MAP, .props = re_rec7_props };
static const struct af_sch pool_word = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "empty", "the EMR slot is the 4-byte empty section; the bank has no sequences" },
	{ "opaque", "the RE3 7-bone lower-body bank with its pool carried as a data entry with role emr-pool (read; the view shows the records)" },
	{ "none", "an empty pool" }, { NULL, NULL } } };
static const struct af_sch keyframes = { .kind = AF_SK_ANYOF, .alts = (const struct af_sch *const[]){
	&(const struct af_sch){ .kind = AF_SK_LIST, .items = &keyframe },
	&(const struct af_sch){ .kind = AF_SK_LIST, .items = &record7,
		.doc = "the RE3 7-bone lower-body bank: its 32-byte records" },
	&pool_word, NULL } };
static const struct af_sch records = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "re3-relative", "RE3 8-byte records: each frame is [pose, flags], pose relative to pose_start (u8), flags u8" },
	{ "re2-absolute", "RE2 4-byte records: pose is the absolute pose (12 bits), flags 20 bits" },
	{ NULL, NULL } } };
const struct af_sch_prop re_bank_props[] = {
	{ "bank", &af_sch_u8, "the bank number", 0 },
	{ "name", &af_sch_str, "informational (ignored on input)", 0 },
	{ "sections", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &af_sch_u8 },
	  "informational: the EDD and EMR section numbers", 0 },
	{ "records", &records, "how to read a frame (checked against the game)", 0 },
	{ "bone_count", &af_sch_u16, "the EMR header's bone count", 0 },
	{ "keyframe_size", &af_sch_u16, "the EMR header's keyframe size: align4(H + ceil(9 * bone_count / 2)) with H = 8 (RE3) or 12 (RE2)", 0 },
	{ "skeleton", &skeleton, "one line per bone in bone order (a known skeleton's bone name in the comment), or none (a header-only bank with armature_offset)", 0 },
	{ "armature_offset", &af_sch_u16, "a header-only bank (skeleton: none): the stale header value, carried unchanged", 0 },
	{ "sequences", &sequences, "the bank's sequences (the game addresses them by number)", 0 },
	{ "keyframes", &keyframes, "the pose pool in file order, or empty / opaque", 0 },
	{ "pool_tail", &af_sch_hex, "only where the pool ends in a partial keyframe (or 7-bone record): its bytes, carried as found", 0 },
	{ "verbatim", &af_sch_str, "a bank whose sections break the rules the encoder rebuilds: why (both sections are carried in data)", 0 },
	END,
};
static const struct af_sch bank_map = { .kind = AF_SK_MAP, .props = re_bank_props };

/* The kinds and roles are written from the codec's own tables (re_bin.c). */
static void write_names(struct af_json *j, const char *(*name)(unsigned), unsigned lo,
			unsigned hi, const char *extra)
{
	af_json_open(j, "enum", '[');
	for (unsigned v = lo; v <= hi; v++)
		af_json_str(j, NULL, name(v));
	if (extra)
		af_json_str(j, NULL, extra);
	af_json_close(j, ']');
}

static void write_roles(struct af_json *j)
{
	write_names(j, re_role_name, RE_EDD, RE_UNKNOWN, "emr-pool");
}

static void write_kinds(struct af_json *j)
{
	write_names(j, re_kind_name, RE_PLD, RE_EMD, NULL);
}

const struct af_sch_prop re_data_props[] = {
	{ "section", &af_sch_u8, "the section's directory index", AF_SCH_REQUIRED },
	{ "role", &(const struct af_sch){ .kind = AF_SK_FN, .fn = write_roles },
	  "the section's role, checked against the slot", AF_SCH_REQUIRED },
	{ "length", &af_sch_u32, "the byte count, checked against the decoded bytes", 0 },
	{ "hex", &af_sch_hex, "the bytes as hex (up to 64 bytes)", 0 },
	{ "base64", &af_sch_str, "the bytes as base64", 0 },
	END,
};
static const struct af_sch format = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "re-model", "selects this codec" }, { NULL, NULL } } };
static const struct af_sch games = { .kind = AF_SK_ENUM, .vals = (const struct af_sch_val[]){
	{ "re2", "Resident Evil 2" }, { "re3", "Resident Evil 3" }, { NULL, NULL } } };

const struct af_sch_prop re_top_props[] = {
	{ "format", &format, "always re-model (selects this codec)", AF_SCH_REQUIRED },
	{ "game", &games, "re3 or re2; with kind it fixes the section layout", AF_SCH_REQUIRED },
	{ "kind", &(const struct af_sch){ .kind = AF_SK_FN, .fn = write_kinds },
	  "pld, plw or emd; with game it fixes the section layout", AF_SCH_REQUIRED },
	{ "banks", &(const struct af_sch){ .kind = AF_SK_LIST, .items = &bank_map },
	  "one entry per bank (an EDD section, the sequences, and the EMR section after it, skeleton and keyframe pool)", AF_SCH_REQUIRED },
	{ "data", &(const struct af_sch){ .kind = AF_SK_LIST,
		.items = &(const struct af_sch){ .kind = AF_SK_MAP, .props = re_data_props } },
	  "the carried sections, one entry each", AF_SCH_REQUIRED },
	END,
};

const struct af_sch re_schema = { .kind = AF_SK_MAP, .props = re_top_props,
	.doc = "A Resident Evil 2 / 3 model file (.PLD, .PLW, .EMD) as animfs shows it (docs/re-model.md)" };
