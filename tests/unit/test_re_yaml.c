/* re-model YAML side: small hand-written documents encode to the expected bytes, and
 * every validation rule of spec section 8 fails with the YAML line and path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "re_testutil.h"

static const char re3_doc[] =
	"# test model\n"
	"format: re-model\n"
	"game: re3\n"
	"kind: pld\n"
	"banks:\n"
	"  - bank: 0\n"
	"    records: re3-relative\n"
	"    bone_count: 3\n"
	"    keyframe_size: 24\n"
	"    skeleton:\n"
	"      - {bone: 0, parent: -1, relpos: [0, -900, 0]}\n"
	"      - {bone: 1, parent: 0, relpos: [0, -300, 0]}\n"
	"      - {bone: 2, parent: 0, relpos: [5, 400, -6]}\n"
	"    sequences:\n"
	"      - pose_start: 0\n"
	"        frames:\n"
	"          - [0, 0x00]\n"
	"          - [1, 0x02]\n"
	"          - [0, 0x00]\n"
	"    keyframes:\n"
	"      - {pose: 0, motion: [0, 0, 0], y_offset: -900, angles: [[0, 0, 0], [10, 0, 0], [-10, 0, 0]]}\n"
	"      - {pose: 1, motion: [-50, 0, 0], y_offset: -905, angles: [[0, 5, 0], [-0.35, 0, 0], [180, 0, 0]]}\n"
	"data:\n"
	"  - {section: 2, role: mesh-md2, length: 8, hex: \"0800000003000000\"}\n"
	"  - {section: 3, role: unknown, length: 4, hex: \"00000000\"}\n"
	"  - {section: 4, role: tim, length: 8, base64: \"EAAAAAIAAAA=\"}\n";

static const char re2_doc[] =
	"format: re-model\n"
	"game: re2\n"
	"kind: pld\n"
	"banks:\n"
	"  - records: re2-absolute\n"
	"    bone_count: 2\n"
	"    keyframe_size: 24\n"
	"    skeleton:\n"
	"      - {parent: -1, relpos: [0, -900, 0]}\n"
	"      - {parent: 0, relpos: [0, -300, 0]}\n"
	"    sequences:\n"
	"      - frames:\n"
	"          - [1, 0x340]\n"
	"          - [0, 0xFFFFF]\n"
	"    keyframes:\n"
	"      - {offset: [0, -900, 0], motion: [1, 2, 3], angles: [[0, 90, 0], [1, 2, 3]]}\n"
	"      - {offset: [0, -901, 0], motion: [4, 5, 6], angles: [[0, -90, 0], [4, 5, 6]]}\n"
	"data:\n"
	"  - {section: 2, role: mesh-md1, length: 12, hex: \"0c0000000000000004000000\"}\n"
	"  - {section: 3, role: tim, length: 4, hex: \"00000000\"}\n";

static void roundtrip(const char *doc, struct af_buf *bin, const char *name)
{
	struct af_buf yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	if (re_enc(doc, strlen(doc), bin, &d))
		fail_msg("encode: %u:%u: %s", d.line, d.col, d.msg);
	assert_int_equal(re_dec(bin->data, bin->len, name, &yaml, &d), 0);
	assert_int_equal(d.nwarnings, 0);
	assert_int_equal(re_enc((char *)yaml.data, yaml.len, &back, &d), 0);
	assert_int_equal(back.len, bin->len);
	assert_memory_equal(back.data, bin->data, bin->len);
	af_buf_free(&yaml);
	af_buf_free(&back);
	af_diag_free(&d);
}

static void test_re3_document(void **state)
{
	(void)state;
	struct af_buf bin = AF_BUF_INIT;
	struct re_dir dir;
	roundtrip(re3_doc, &bin, "T.PLD");
	re_read_dir(bin.data, bin.len, &dir);
	assert_int_equal(dir.count, 5);
	const uint8_t *edd = bin.data + dir.off[0], *emr = bin.data + dir.off[1];
	/* EDD: 1 record, 3 frames at 8, pose_start 0; 8 + 6 = 14 -> FF FF, trailer 16 */
	const uint8_t want_edd[] = { 3, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0xFF, 0xFF,
				     16, 0, 0, 0 };
	assert_int_equal(dir.len[0], sizeof(want_edd));
	assert_memory_equal(edd, want_edd, sizeof(want_edd));
	/* EMR: A = 28, K = 44, 3 bones, 24-byte keyframes; child list 01 02 */
	assert_int_equal(dir.len[1], 44 + 2 * 24);
	assert_int_equal(af_le16(emr), 28);
	assert_int_equal(af_le16(emr + 2), 44);
	assert_int_equal(af_le16(emr + 4), 3);
	assert_int_equal(af_le16(emr + 6), 24);
	assert_int_equal((int16_t)af_le16(emr + 8 + 12 + 4), -6);
	assert_int_equal(emr[40], 1);
	assert_int_equal(emr[41], 2);
	/* pose 1: motion -50, y -905; bone 1 x = -0.35 deg = code 4092, bone 2 x = 2048 */
	const uint8_t *kf = emr + 44 + 24;
	assert_int_equal((int16_t)af_le16(kf), -50);
	assert_int_equal((int16_t)af_le16(kf + 6), -905);
	const uint8_t *ang = kf + 8;
	/* angle 3 (odd): high nibble of byte 4 and byte 5; angle 6 (even): bytes 9, 10 */
	assert_int_equal((ang[4] >> 4) | ang[5] << 4, 4092);
	assert_int_equal(ang[9] | (ang[10] & 0x0F) << 8, 2048);
	assert_int_equal((ang[1] >> 4) | ang[2] << 4, 57); /* 5 deg -> 56.9 -> 57 */
	af_buf_free(&bin);
}

static void test_re2_document(void **state)
{
	(void)state;
	struct af_buf bin = AF_BUF_INIT;
	struct re_dir dir;
	roundtrip(re2_doc, &bin, "T.PLD");
	re_read_dir(bin.data, bin.len, &dir);
	assert_int_equal(dir.count, 4);
	const uint8_t *edd = bin.data + dir.off[0], *emr = bin.data + dir.off[1];
	assert_int_equal(dir.len[0], 4 + 8 + 4);
	assert_int_equal(af_le32(edd + 4), 1u | 0x340u << 12);
	assert_int_equal(af_le32(edd + 8), 0u | 0xFFFFFu << 12);
	assert_int_equal(af_le32(edd + 12), 12);
	/* 2 bones: A = align4(20) = 20, K = align4(20 + 8 + 1) = 32; keyframe 12 + 9 -> 24 */
	assert_int_equal(af_le16(emr + 2), 32);
	assert_int_equal(dir.len[1], 32 + 48);
	const uint8_t *kf = emr + 32;
	assert_int_equal((int16_t)af_le16(kf + 2), -900);
	assert_int_equal((int16_t)af_le16(kf + 6), 1);
	assert_int_equal((kf[12 + 1] >> 4) | kf[12 + 2] << 4, 1024); /* 90 deg */
	af_buf_free(&bin);
}

/* Encoding doc must fail on the line holding `at` with a message containing `text`. */
static void expect_error(const char *doc, const char *at, const char *text)
{
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_not_equal(re_enc(doc, strlen(doc), &out, &d), 0);
	assert_int_equal(out.len, 0);
	if (!strstr(d.msg, text))
		fail_msg("'%s' does not say '%s'", d.msg, text);
	if (at && d.line != re_line_of(doc, at))
		fail_msg("'%s' reported on line %u, expected %u", d.msg, d.line,
			 re_line_of(doc, at));
	af_buf_free(&out);
	af_diag_free(&d);
}

static void expect_edit_error(const char *base, const char *from, const char *old,
			      const char *new_, const char *at, const char *text)
{
	char *doc = re_replace(base, from, old, new_);
	expect_error(doc, at, text);
	free(doc);
}

/* A copy of text with [from, to) (the first of each, to after from) replaced by with. */
static char *cut(const char *text, const char *from, const char *to, const char *with)
{
	const char *a = strstr(text, from);
	assert_non_null(a);
	const char *b = strstr(a, to);
	assert_non_null(b);
	size_t n = strlen(text), w = strlen(with), head = (size_t)(a - text);
	char *r = malloc(n - (size_t)(b - a) + w + 1);
	assert_non_null(r);
	memcpy(r, text, head);
	memcpy(r + head, with, w);
	strcpy(r + head + w, b);
	return r;
}

static void test_pose_errors(void **state)
{
	(void)state;
	expect_edit_error(re3_doc, NULL, "[1, 0x02]", "[300, 0x02]", "[300,",
			  "banks[0].sequences[0].frames[1]: relative pose 300 is outside the "
			  "256-pose window of pose_start 0 (0..255)");
	expect_edit_error(re3_doc, NULL, "[1, 0x02]", "[5, 0x02]", "[5, 0x02]",
			  "banks[0].sequences[0].frames[1]: pose 5 (pose_start 0 + 5) is outside "
			  "the keyframe pool (2 poses)");
	expect_edit_error(re3_doc, NULL, "pose_start: 0", "pose_start: 1", "[1, 0x02]",
			  "pose 2 (pose_start 1 + 1) is outside the keyframe pool");
	expect_edit_error(re3_doc, NULL, "[1, 0x02]", "[1, 0x100]", "[1, 0x100]",
			  "frames[1] flags: 0x100 is out of range 0..255");
	expect_edit_error(re3_doc, NULL, "[1, 0x02]", "[1]", "[1]", "expected [pose, flags]");
	expect_edit_error(re2_doc, NULL, "[1, 0x340]", "[4096, 0x340]", "[4096",
			  "banks[0].sequences[0].frames[0]: pose 4096 does not fit in 12 bits");
	expect_edit_error(re2_doc, NULL, "[1, 0x340]", "[2, 0x340]", "[2, 0x340]",
			  "pose 2 is outside the keyframe pool (2 poses)");
	expect_edit_error(re2_doc, NULL, "[1, 0x340]", "[1, 0x100000]", "[1, 0x100000]",
			  "out of range 0..1048575");
}

static void test_keyframe_errors(void **state)
{
	(void)state;
	expect_edit_error(re3_doc, "pose: 0", "[10, 0, 0]", "[400, 0, 0]", "[400",
			  "banks[0].keyframes[0].angles[1][0]: 400 degrees is outside -360..360");
	expect_edit_error(re3_doc, "pose: 0", "[10, 0, 0]", "[.nan, 0, 0]", ".nan",
			  "outside -360..360");
	expect_edit_error(re3_doc, "pose: 0", "[10, 0, 0]", "[ten, 0, 0]", "[ten",
			  "angles[1][0]: expected a number");
	expect_edit_error(re3_doc, "pose: 0", ", [-10, 0, 0]]", "]", "pose: 0",
			  "banks[0].keyframes[0].angles: 2 triples but bone_count is 3");
	expect_edit_error(re3_doc, "pose: 0", "[10, 0, 0]", "[10, 0]", "[10, 0]",
			  "angles[1]: expected [x, y, z]");
	expect_edit_error(re3_doc, NULL, "motion: [-50,", "motion: [40000,", "40000",
			  "banks[0].keyframes[1].motion[0]: 40000 is out of range -32768..32767");
	expect_edit_error(re3_doc, NULL, "{pose: 1,", "{pose: 7,", "pose: 7",
			  "keyframes[1].pose: says pose 7 but is entry 1");
	expect_edit_error(re3_doc, NULL, "y_offset: -905, ", "", "pose: 1",
			  "keyframes[1]: missing key 'y_offset'");
	expect_edit_error(re3_doc, NULL, "keyframe_size: 24", "keyframe_size: 28", "keyframe_size",
			  "keyframe_size: 28 does not match 3 bones (expected 24)");
	/* 3 bones in 24-byte keyframes leave 20 bits after the angles */
	expect_edit_error(re3_doc, NULL, "y_offset: -905, ", "y_offset: -905, stray_bits: 0x100000, ",
			  "stray_bits", "banks[0].keyframes[1].stray_bits: 0x100000 does not fit in "
			  "the 20 bits that 24-byte keyframes leave after 3 bones' angles");
}

/* re3_doc with one edit, round-tripped; bin and its directory for the byte checks. */
static void edited_roundtrip(const char *old, const char *new_, struct af_buf *bin,
			     struct re_dir *dir)
{
	char *doc = re_replace(re3_doc, NULL, old, new_);
	roundtrip(doc, bin, "T.PLD");
	re_read_dir(bin->data, bin->len, dir);
	free(doc);
}

/* [pose, flags, outside]: the pool check is waived for that frame, its range is not. */
static void test_outside_frame(void **state)
{
	(void)state;
	struct af_buf bin = AF_BUF_INIT;
	struct re_dir dir;
	edited_roundtrip("[1, 0x02]", "[5, 0x02, outside]", &bin, &dir);
	assert_int_equal(bin.data[dir.off[0] + 10], 5);
	assert_int_equal(bin.data[dir.off[0] + 11], 2);
	af_buf_free(&bin);
	expect_edit_error(re3_doc, NULL, "[1, 0x02]", "[5, 0x02, elsewhere]", "elsewhere",
			  "frames[1]: a third value can only be 'outside'");
	expect_edit_error(re3_doc, NULL, "[1, 0x02]", "[300, 0x02, outside]", "[300",
			  "relative pose 300 is outside the 256-pose window");
	expect_edit_error(re3_doc, NULL, "[1, 0x02]", "[1, 0x02, outside, 4]", "[1, 0x02, outside, 4]",
			  "expected [pose, flags], found 4 values");
}

/* stray_bits written by hand land after the last angle, LSB first. */
static void test_stray_bits(void **state)
{
	(void)state;
	struct af_buf bin = AF_BUF_INIT;
	struct re_dir dir;
	edited_roundtrip("y_offset: -905, ", "y_offset: -905, stray_bits: 0xFEDC5, ", &bin, &dir);
	const uint8_t *kf = bin.data + dir.off[1] + 44 + 24;
	assert_int_equal(kf[8 + 13] >> 4, 0x5);
	assert_int_equal(kf[8 + 14], 0xDC);
	assert_int_equal(kf[8 + 15], 0xFE);
	af_buf_free(&bin);
}

static void test_skeleton_errors(void **state)
{
	(void)state;
	char *a = re_replace(re3_doc, NULL, "{bone: 1, parent: 0,", "{bone: 1, parent: 2,");
	char *b = re_replace(a, NULL, "{bone: 2, parent: 0,", "{bone: 2, parent: 1,");
	expect_error(b, "{bone: 1,", "banks[0].skeleton[1]: bone 1 is not part of a tree rooted "
		     "at bone 0: it is not reachable from bone 0 (cycle)");
	free(a);
	free(b);
	expect_edit_error(re3_doc, NULL, "{bone: 2, parent: 0,", "{bone: 2, parent: 2,", "{bone: 2",
			  "skeleton[2]: bone 2 is not part of a tree");
	expect_edit_error(re3_doc, NULL, "{bone: 0, parent: -1,", "{bone: 0, parent: 1,",
			  "{bone: 0", "bone 0 must be the root");
	expect_edit_error(re3_doc, NULL, "{bone: 2, parent: 0,", "{bone: 2, parent: 3,",
			  "parent: 3", "skeleton[2].parent: 3 is out of range -1..2");
	expect_edit_error(re3_doc, NULL, "{bone: 2,", "{bone: 5,", "bone: 5",
			  "says bone 5 but is entry 2");
	char *c = re_replace(re3_doc, NULL, "bone_count: 3", "bone_count: 4");
	expect_edit_error(c, NULL, "keyframe_size: 24", "keyframe_size: 28", "      - {bone: 0",
			  "banks[0].skeleton: 3 bones but bone_count is 4");
	free(c);
	expect_edit_error(re3_doc, NULL, "bone_count: 3", "bone_count: 300", "bone_count",
			  "at most 256 bones");
	expect_edit_error(re3_doc, NULL, "relpos: [5, 400, -6]", "relpos: [5, 400]", "[5, 400]",
			  "skeleton[2].relpos: expected [x, y, z]");
	/* a header-only slot keeps its header-only form */
	expect_edit_error(re2_doc, NULL, "kind: pld", "kind: plw", "      - {parent: -1",
			  "this bank has no skeleton of its own");
}

static void test_structure_errors(void **state)
{
	(void)state;
	expect_edit_error(re3_doc, NULL, "game: re3", "game: re4", "game:", "expected re2 or re3");
	expect_edit_error(re3_doc, NULL, "kind: pld", "kind: emd", "  - bank: 0",
			  "banks: 1 banks, a re3 emd has 5");
	expect_edit_error(re3_doc, NULL, "re3-relative", "re2-absolute", "records:",
			  "must be 're3-relative'");
	expect_edit_error(re3_doc, NULL, "length: 8, hex", "length: 9, hex", "section: 2",
			  "data[0]: hex gives 8 bytes, expected 9");
	expect_edit_error(re3_doc, NULL, "base64: \"EAAAAAIAAAA=\"", "base64: \"EAAA*AIAAAA=\"",
			  "section: 4", "invalid base64");
	expect_edit_error(re3_doc, NULL, "  - {section: 3, role: unknown, length: 4, hex: "
			  "\"00000000\"}\n", "", "  - {section: 2", "data: section 3 (unknown) is missing");
	expect_edit_error(re3_doc, NULL, "section: 3,", "section: 2,", "section: 2, role: unknown",
			  "section 2 appears twice");
	expect_edit_error(re3_doc, NULL, "section: 3,", "section: 0,", "section: 0,",
			  "section 0 is built from banks[0]");
	expect_edit_error(re3_doc, NULL, "length: 4, hex: \"00000000\"", "length: 0, hex: \"\"",
			  "length: 0", "data: section 3 has no bytes");
	expect_edit_error(re3_doc, NULL, "role: mesh-md2", "role: tim", "role: tim",
			  "data: section 2 holds 'mesh-md2', not 'tim'");
	/* sequences need a pool; an empty bank has no EMR keys */
	char *a = cut(re3_doc, "    bone_count:", "    sequences:", "");
	char *b = cut(a, "    keyframes:\n", "data:", "    keyframes: empty\n");
	expect_error(b, "      - pose_start: 0", "1 sequences but the bank has no keyframe pool");
	char *c = re_replace(b, NULL, "    sequences:", "    bone_count: 3\n    sequences:");
	expect_error(c, "    bone_count: 3", "banks[0]: 'bone_count' does not apply to a bank with "
		     "keyframes: empty");
	free(a);
	free(b);
	free(c);
}

/* Every map's keys are its table's (re_schema.c): a key the codec would ignore is an
 * error at its line, as is a key of the other game's form. */
static void test_unknown_keys(void **state)
{
	(void)state;
	expect_edit_error(re3_doc, NULL, "game: re3\n", "game: re3\ngmae: re3\n", "gmae:",
			  "top level: unknown key 'gmae' (expected format, game, kind, banks, data)");
	expect_edit_error(re3_doc, NULL, "    records: re3-relative\n",
			  "    records: re3-relative\n    colour: red\n", "colour:",
			  "banks[0]: unknown key 'colour' (expected bank, name, sections, records");
	expect_edit_error(re3_doc, NULL, "relpos: [0, -300, 0]}", "relpos: [0, -300, 0], name: torso}",
			  "name: torso", "banks[0].skeleton[1]: unknown key 'name' (expected bone, "
			  "parent, relpos)");
	expect_edit_error(re3_doc, NULL, "      - pose_start: 0\n",
			  "      - pose_start: 0\n        loop: yes\n", "loop:",
			  "banks[0].sequences[0]: unknown key 'loop' (expected pose_start, frames)");
	expect_edit_error(re3_doc, NULL, "{pose: 1, motion:", "{pose: 1, motoin:", "motoin",
			  "banks[0].keyframes[1]: unknown key 'motoin' (expected pose, motion");
	expect_edit_error(re3_doc, NULL, "{section: 3, role:", "{section: 3, rol:", "rol:",
			  "data[1]: unknown key 'rol' (expected section, role, length, hex, base64)");
	/* keys that exist, but not here */
	expect_edit_error(re3_doc, NULL, "{pose: 1, ", "{pose: 1, offset: [0, 0, 0], ", "offset: [0, 0, 0]",
			  "banks[0].keyframes[1]: 'offset' is RE2's");
	expect_edit_error(re2_doc, NULL, "{offset: [0, -901, 0], ", "{y_offset: 3, offset: [0, -901, 0], ",
			  "y_offset:", "banks[0].keyframes[1]: 'y_offset' is RE3's");
	expect_edit_error(re2_doc, NULL, "      - frames:\n", "      - pose_start: 0\n        frames:\n",
			  "pose_start:", "banks[0].sequences[0]: 'pose_start' is RE3's");
	expect_edit_error(re3_doc, NULL, "    keyframe_size: 24\n",
			  "    keyframe_size: 24\n    armature_offset: 28\n", "armature_offset",
			  "banks[0]: 'armature_offset' belongs to a header-only bank");
	expect_edit_error(re3_doc, NULL, "    records: re3-relative\n",
			  "    verbatim: \"why\"\n    records: re3-relative\n", "records:",
			  "banks[0]: 'records' does not apply to a verbatim bank");
}

/* Flags by name: the same bytes as the number; a name of no flag (or of the other
 * game's) is refused at its line. */
static void test_flag_names(void **state)
{
	(void)state;
	struct af_buf a = AF_BUF_INIT, b = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	char *t1 = re_replace(re3_doc, NULL, "[1, 0x02]", "[1, footfall]");
	char *t2 = re_replace(t1, NULL, "[0, 0x00]", "[0, none]");
	assert_int_equal(re_enc(re3_doc, strlen(re3_doc), &a, &d), 0);
	assert_int_equal(re_enc(t2, strlen(t2), &b, &d), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	free(t2);
	t2 = re_replace(t1, NULL, "[1, footfall]", "[1, footfall2]");
	af_buf_reset(&b);
	assert_int_equal(re_enc(t2, strlen(t2), &b, &d), 0);
	struct re_dir dir;
	re_read_dir(b.data, b.len, &dir);
	assert_int_equal(b.data[dir.off[0] + 8 + 3], 0x06); /* frame 1's flags */
	expect_edit_error(re3_doc, NULL, "[1, 0x02]", "[1, footfal]", "[1, footfal]",
			  "banks[0].sequences[0].frames[1] flags: 'footfal' is not a flag name of "
			  "re3 (none, footfall, footfall2) nor a number");
	expect_edit_error(re2_doc, NULL, "[1, 0x340]", "[1, footfall]", "[1, footfall]",
			  "'footfall' is not a flag name of re2 (none) nor a number");
	free(t1);
	free(t2);
	af_buf_free(&a);
	af_buf_free(&b);
	af_diag_free(&d);
}

/* The view's form: one bone a line with its comment, and the pose's keys one a line,
 * gives the same bytes as the one-line form; a mistake on a bone's line is reported there. */
static const char re3_block_pool[] =
	"    keyframes:\n"
	"      - pose: 0\n"
	"        motion: [0, 0, 0]\n"
	"        y_offset: -900\n"
	"        angles:\n"
	"          - [0, 0, 0]       # bone_0\n"
	"          - [10, 0, 0]      # bone_1\n"
	"          - [-10, 0, 0]     # bone_2\n"
	"      - pose: 1\n"
	"        motion: [-50, 0, 0]\n"
	"        y_offset: -905\n"
	"        angles:\n"
	"          - [0, 5, 0]       # bone_0\n"
	"          - [-0.35, 0, 0]   # bone_1\n"
	"          - [180, 0, 0]     # bone_2\n";

static void test_block_angles(void **state)
{
	(void)state;
	struct af_buf a = AF_BUF_INIT, b = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	char *doc = cut(re3_doc, "    keyframes:\n", "data:", re3_block_pool);
	assert_int_equal(re_enc(re3_doc, strlen(re3_doc), &a, &d), 0);
	if (re_enc(doc, strlen(doc), &b, &d))
		fail_msg("%u:%u: %s", d.line, d.col, d.msg);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	expect_edit_error(doc, "pose: 1", "[-0.35, 0, 0]", "[-0.35, 0]", "[-0.35, 0]",
			  "banks[0].keyframes[1].angles[1]: expected [x, y, z] in degrees, found 2");
	expect_edit_error(doc, "pose: 1", "          - [-0.35, 0, 0]   # bone_1\n", "",
			  "          - [0, 5, 0]",
			  "banks[0].keyframes[1].angles: 2 triples but bone_count is 3");
	expect_edit_error(doc, "pose: 1", "[180, 0, 0]", "[180, 0, zero]", "[180, 0, zero]",
			  "banks[0].keyframes[1].angles[2][2]: expected a number");
	free(doc);
	af_buf_free(&a);
	af_buf_free(&b);
	af_diag_free(&d);
}

/* RE3: the frame list of sequence 1 would start at 16 + 2 * 32760 = 65536. */
static void test_offset_limit(void **state)
{
	(void)state;
	struct af_buf doc = AF_BUF_INIT;
	const char *seq = strstr(re3_doc, "    sequences:\n");
	const char *kfs = strstr(re3_doc, "    keyframes:\n");
	af_buf_append(&doc, re3_doc, (size_t)(seq - re3_doc));
	af_buf_puts(&doc, "    sequences:\n      - pose_start: 0\n        frames:\n");
	for (int i = 0; i < 32760; i++)
		af_buf_puts(&doc, "          - [0, 0]\n");
	af_buf_puts(&doc, "      - pose_start: 0\n        frames: none\n");
	af_buf_puts(&doc, kfs);
	af_buf_putc(&doc, 0);
	expect_error((char *)doc.data, "      - pose_start: 0\n        frames: none",
		     "banks[0].sequences[1]: its frame list would start at byte 65536, past the "
		     "16-bit offset limit (65535)");
	/* one frame fewer fits exactly */
	char *ok = re_replace((char *)doc.data, NULL, "          - [0, 0]\n", "");
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(re_enc(ok, strlen(ok), &out, &d), 0);
	free(ok);
	af_buf_free(&out);
	af_buf_free(&doc);
	af_diag_free(&d);
}

/* Warnings do not stop the encode: a skeleton with more bones than mesh objects. */
static void test_mesh_warning(void **state)
{
	(void)state;
	char *doc = re_replace(re3_doc, NULL, "0800000003000000", "0800000002000000");
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(re_enc(doc, strlen(doc), &out, &d), 0);
	assert_int_equal(d.nwarnings, 1);
	assert_non_null(strstr((char *)d.warnings.data, "banks[0]: 3 bones but the mesh has 2 "
			       "objects"));
	free(doc);
	af_buf_free(&out);
	af_diag_free(&d);
}

/* The documented edits: a new pose at the end and a new sequence that uses it. */
static void test_add_pose_and_sequence(void **state)
{
	(void)state;
	char *a = re_replace(re3_doc, NULL, "    keyframes:\n",
			     "      - pose_start: 2\n        frames:\n          - [0, 0x04]\n"
			     "    keyframes:\n");
	char *b = re_replace(a, NULL, "data:\n",
			     "      - {pose: 2, motion: [7, 8, 9], y_offset: -1, angles: [[1, 2, 3], "
			     "[4, 5, 6], [7, 8, 9]]}\ndata:\n");
	struct af_buf bin = AF_BUF_INIT;
	struct re_dir dir;
	roundtrip(b, &bin, "T.PLD");
	re_read_dir(bin.data, bin.len, &dir);
	const uint8_t *edd = bin.data + dir.off[0], *emr = bin.data + dir.off[1];
	/* 2 records: lists at 16 (3 frames) and 22 (1 frame); 24, no pad; trailer 24 */
	const uint8_t want_edd[] = { 3, 0, 16, 0, 0, 0, 0, 0, 1, 0, 22, 0, 2, 0, 0, 0,
				     0, 0, 1, 2, 0, 0, 0, 4, 24, 0, 0, 0 };
	assert_int_equal(dir.len[0], sizeof(want_edd));
	assert_memory_equal(edd, want_edd, sizeof(want_edd));
	assert_int_equal(dir.len[1], 44 + 3 * 24);
	assert_int_equal(af_le16(emr + 44 + 48), 7);
	assert_int_equal((int16_t)af_le16(emr + 44 + 48 + 6), -1);
	free(a);
	free(b);
	af_buf_free(&bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_re3_document),
		cmocka_unit_test(test_re2_document),
		cmocka_unit_test(test_pose_errors),
		cmocka_unit_test(test_keyframe_errors),
		cmocka_unit_test(test_stray_bits),
		cmocka_unit_test(test_outside_frame),
		cmocka_unit_test(test_skeleton_errors),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_flag_names),
		cmocka_unit_test(test_block_angles),
		cmocka_unit_test(test_offset_limit),
		cmocka_unit_test(test_add_pose_and_sequence),
		cmocka_unit_test(test_mesh_warning),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
