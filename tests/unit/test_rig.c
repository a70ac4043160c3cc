/* sims3-rig (spec ../shared/formats/sims3-rig.md), one group of tests per section: the
 * detection (2), the clear layout with and without an IK list (3), the exact-rebuild
 * rules (4: float bits, stored hash, flags, opposite out of range), the YAML (5: names,
 * indices when names repeat), the validation of edits (6), edits through the YAML that
 * change exactly the bytes they should, hostile counts and truncations, and every
 * sample rig (skipped when ../shared/samples is absent). Rigs are built here by hand. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "animfs/fnv.h"

#define ONE 0x3F800000u

static const struct af_codec *rig(void)
{
	const struct af_codec *c = af_codec_by_name("sims3-rig");
	assert_non_null(c);
	return c;
}

/* ---- building rigs ---- */

struct bone {
	const char *name;
	int32_t parent, opposite; /* opposite INT32_MIN: the bone itself */
	uint32_t pos[3], rot[4], scale[3], flags, hash; /* hash 0: FNV-1 32 of the name */
};

static void put_str(struct af_buf *b, const char *s)
{
	af_buf_put_u32le(b, (uint32_t)strlen(s));
	af_buf_append(b, s, strlen(s));
}

static void put_bone(struct af_buf *b, const struct bone *x, int32_t self)
{
	for (int i = 0; i < 3; i++)
		af_buf_put_u32le(b, x->pos[i]);
	for (int i = 0; i < 4; i++)
		af_buf_put_u32le(b, i == 3 && !x->rot[3] && !x->rot[0] ? ONE : x->rot[i]);
	for (int i = 0; i < 3; i++)
		af_buf_put_u32le(b, x->scale[i] ? x->scale[i] : ONE);
	put_str(b, x->name);
	af_buf_put_u32le(b, (uint32_t)(x->opposite == INT32_MIN ? self : x->opposite));
	af_buf_put_u32le(b, (uint32_t)x->parent);
	af_buf_put_u32le(b, x->hash ? x->hash : af_fnv1_32_lower(x->name, strlen(x->name)));
	af_buf_put_u32le(b, x->flags ? x->flags : 0x23);
}

/* A rig of major.minor with the bones; chains < 0: no IK list at all (major 3). */
static void build(struct af_buf *b, uint32_t major, uint32_t minor, const struct bone *bones,
		  int n, const char *skel, int chains)
{
	af_buf_reset(b);
	af_buf_put_u32le(b, major);
	af_buf_put_u32le(b, minor);
	af_buf_put_u32le(b, (uint32_t)n);
	for (int i = 0; i < n; i++)
		put_bone(b, &bones[i], i);
	put_str(b, skel);
	if (chains >= 0)
		af_buf_put_u32le(b, (uint32_t)chains);
	assert_false(b->failed);
}

/* One IK chain over the given bone indices (info nodes 0..10 -> bone i % 3). */
static void put_chain(struct af_buf *b, const int32_t *bones, int n)
{
	af_buf_put_u32le(b, (uint32_t)n);
	for (int i = 0; i < n; i++)
		af_buf_put_u32le(b, (uint32_t)bones[i]);
	for (int i = 0; i < 11; i++)
		af_buf_put_u32le(b, i == 10 ? 0xFFFFFFFFu : (uint32_t)(i % 3));
	af_buf_put_u32le(b, 2);          /* pole */
	af_buf_put_u32le(b, 1);          /* slot info */
	af_buf_put_u32le(b, 0xFFFFFFF9u); /* slot offset -7 */
	af_buf_put_u32le(b, 0);          /* root */
}

static const struct bone flour[3] = {
	{ "b__ROOT__", -1, INT32_MIN, {0}, {0}, {0}, 0, 0 },
	{ "offsetBone", 0, INT32_MIN, {0}, {0}, {0}, 0, 0 },
	{ "transformBone", 1, INT32_MIN, {0}, {0}, {0}, 0, 0 },
};

/* ---- the codec's two directions ---- */

static int dec(const struct af_buf *bin, struct af_buf *yaml, struct af_diag *d)
{
	struct af_io io = { .name = "x.rig" };
	af_buf_reset(yaml);
	int rc = rig()->to_yaml(bin->data, bin->len, &io, yaml, d);
	af_buf_putc(yaml, 0);
	yaml->len--;
	return rc;
}

static int enc(const char *yaml, struct af_buf *bin, struct af_diag *d)
{
	af_buf_reset(bin);
	return rig()->from_yaml((const uint8_t *)yaml, strlen(yaml), NULL, bin, d);
}

/* decode -> encode gives the same bytes; the YAML is left in yaml. */
static void roundtrip(const struct af_buf *bin, struct af_buf *yaml)
{
	struct af_buf back = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	if (dec(bin, yaml, &d))
		fail_msg("decode: %s", d.msg);
	if (enc((const char *)yaml->data, &back, &d))
		fail_msg("encode: %u:%u: %s\n%s", d.line, d.col, d.msg, (const char *)yaml->data);
	assert_int_equal(back.len, bin->len);
	assert_memory_equal(back.data, bin->data, bin->len);
	af_diag_free(&d);
	af_buf_free(&back);
}

/* The YAML of bin with `from` replaced by `to` (once), encoded: 0 with out, or the error. */
static int edit(const struct af_buf *bin, const char *from, const char *to, struct af_buf *out,
		struct af_diag *d)
{
	struct af_buf yaml = AF_BUF_INIT;
	assert_int_equal(dec(bin, &yaml, d), 0);
	const char *at = strstr((const char *)yaml.data, from);
	if (!at)
		fail_msg("'%s' is not in\n%s", from, (const char *)yaml.data);
	size_t pre = (size_t)(at - (const char *)yaml.data);
	char *text = malloc(yaml.len + strlen(to) + 1);
	assert_non_null(text);
	memcpy(text, yaml.data, pre);
	strcpy(text + pre, to);
	strcat(text, at + strlen(from));
	int rc = enc(text, out, d);
	free(text);
	af_buf_free(&yaml);
	return rc;
}

/* ---- spec 2: detection ---- */

static void test_detect(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT;
	static const uint8_t wrapped[16] = { 0xDE, 0x13, 0xAF, 0x8E, 0, 0, 0, 0, 1, 2, 3, 4 };
	static const uint8_t granny[16] = { 0xB8, 0x67, 0xB0, 0xCA, 0xF8, 0x6D, 0xB1, 0x0F };
	build(&b, 4, 2, flour, 3, "bagFlour", 0);
	assert_int_equal(rig()->bid("S3_8EAF13DE_00000000_005F379F3E61683B.grannyrig", b.data, 64), 60);
	assert_int_equal(rig()->bid("loose", b.data, 64), 30);
	assert_int_equal(rig()->bid("x.rig", wrapped, 16), 5);
	assert_int_equal(rig()->bid("x.grannyrig", granny, 16), 5);
	assert_int_equal(rig()->bid("x.bin", granny, 16), 0);
	b.data[4] = 3; /* minor 3 is no clear rig */
	assert_int_equal(rig()->bid("y", b.data, 64), 0);
	b.data[4] = 2;
	b.data[52] = 0; /* the first bone's name is empty */
	assert_int_equal(rig()->bid("y", b.data, 64), 0);
	af_buf_free(&b);
}

/* Granny rigs (either kind) are shown read-only: kind and size, no body. */
static void test_granny_readonly(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	static const uint8_t wrapped[24] = { 0xDE, 0x13, 0xAF, 0x8E, 0, 0, 0, 0, 1, 2, 3, 4 };
	af_diag_init(&d);
	af_buf_append(&b, wrapped, sizeof(wrapped));
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	assert_int_equal(d.code, AF_EUNSUP);
	assert_non_null(strstr((char *)y.data, "# READ-ONLY: byte 0x0: a Granny2 rig (wrapped)"));
	assert_non_null(strstr((char *)y.data, "kind: granny2-wrapped\nsize: 24"));
	af_diag_clear(&d);
	assert_int_equal(enc((char *)y.data, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "read-only"));
	assert_int_equal(d.line, 4);
	af_buf_reset(&b);
	af_buf_append(&b, "\x01\x02\x03\x04\x05\x06\x07\x08\x09", 9);
	af_diag_clear(&d);
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	assert_non_null(strstr((char *)y.data, "kind: granny2-raw\nsize: 9"));
	af_diag_free(&d);
	af_buf_free(&b);
	af_buf_free(&y);
	af_buf_free(&out);
}

/* ---- spec 3: the clear layout ---- */

/* The worked example: 3 bones, "bagFlour", IK count 0; 240 bytes. */
static void test_worked_example(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	build(&b, 4, 2, flour, 3, "bagFlour", 0);
	assert_int_equal(b.len, 240);
	roundtrip(&b, &y);
	const char *t = (const char *)y.data;
	assert_non_null(strstr(t, "format: sims3-rig\nskeleton_name: bagFlour\nversion: [4, 2]\nbones: # 3\n"));
	assert_non_null(strstr(t, "  - name: b__ROOT__ # bone 0, hash 0xFEAE6981\n    parent: null\n"
				  "    position: [0.0, 0.0, 0.0]\n    orientation: [0.0, 0.0, 0.0, 1.0]\n"));
	assert_non_null(strstr(t, "  - name: transformBone # bone 2, hash 0xCD68F001\n    parent: offsetBone\n"));
	assert_null(strstr(t, "scale:"));
	assert_null(strstr(t, "opposite:"));
	assert_null(strstr(t, "flags:"));
	assert_non_null(strstr(t, "ik_chains: []\n"));
	af_buf_free(&b);
	af_buf_free(&y);
}

/* Major 3 has no IK list: nothing after the skeleton name. */
static void test_major3(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	build(&b, 3, 1, flour, 3, "old", -1);
	roundtrip(&b, &y);
	assert_non_null(strstr((char *)y.data, "version: [3, 1]\n"));
	assert_null(strstr((char *)y.data, "ik_chains"));
	/* a major-3 rig with IK chains is refused */
	assert_int_equal(edit(&b, "version: [3, 1]\n", "version: [3, 1]\nik_chains: [{bones: [], info_nodes: [0,0,0,0,0,0,0,0,0,0,0], pole: 0, slot_info: 0, slot_offset: 0, root: 0}]\n", &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "no IK list"));
	af_diag_free(&d);
	af_buf_free(&b);
	af_buf_free(&y);
	af_buf_free(&out);
}

/* "No IK list" (major 3) and "an IK list of 0 chains" (major 4) differ by 4 bytes;
 * chains with members, info nodes (null = -1), pole, slot and root by name. */
static void test_ik_chains(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT, c3 = AF_BUF_INIT;
	static const int32_t members[3] = { 2, 1, 0 };
	build(&c3, 3, 2, flour, 3, "bagFlour", -1);
	build(&b, 4, 2, flour, 3, "bagFlour", 0);
	assert_int_equal(b.len, c3.len + 4);
	build(&b, 4, 2, flour, 3, "bagFlour", 2);
	put_chain(&b, members, 3);
	put_chain(&b, members, 0);
	roundtrip(&b, &y);
	const char *t = (const char *)y.data;
	assert_non_null(strstr(t, "ik_chains:\n  - bones: [transformBone, offsetBone, b__ROOT__]\n"
				  "    info_nodes: [b__ROOT__, offsetBone, transformBone, b__ROOT__, offsetBone, "
				  "transformBone, b__ROOT__, offsetBone, transformBone, b__ROOT__, null]\n"
				  "    pole: transformBone\n    slot_info: offsetBone\n    slot_offset: -7\n"
				  "    root: b__ROOT__\n  - bones: []\n"));
	af_buf_free(&b);
	af_buf_free(&y);
	af_buf_free(&c3);
}

/* Bytes after the IK list, a truncation anywhere, a count that cannot fit: carried as
 * bytes, read-only, with the offset; no allocation beyond what the file can hold. */
static void test_exact_end_and_hostile(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT, cut = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	build(&b, 4, 2, flour, 3, "bagFlour", 0);
	af_buf_putc(&b, 0);
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	assert_non_null(strstr(d.msg, "1 bytes after the IK list"));
	assert_int_equal(d.offset, 0xf0);
	assert_non_null(strstr((char *)y.data, "# READ-ONLY: byte 0xf0: 1 bytes after"));
	assert_non_null(strstr((char *)y.data, "kind: opaque\nsize: 241"));
	b.len--;
	for (size_t n = 0; n < b.len; n++) {
		af_buf_reset(&cut);
		af_buf_append(&cut, b.data, n);
		af_diag_clear(&d);
		assert_int_equal(dec(&cut, &y, &d), AF_VIEW_READONLY);
	}
	af_buf_patch_u32le(&b, 8, 0x7FFFFFFF); /* bone count */
	af_diag_clear(&d);
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	assert_non_null(strstr(d.msg, "bone count 2147483647 does not fit"));
	assert_int_equal(d.offset, 8);
	build(&b, 4, 2, flour, 3, "bagFlour", 0x40000000); /* IK chain count */
	af_diag_clear(&d);
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	assert_non_null(strstr(d.msg, "IK chain count"));
	build(&b, 4, 2, flour, 3, "bagFlour", 0);
	af_buf_patch_u32le(&b, 52, 0xFFFFFFF0u); /* a negative name length */
	af_diag_clear(&d);
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	assert_non_null(strstr(d.msg, "negative length"));
	af_diag_free(&d);
	af_buf_free(&b);
	af_buf_free(&y);
	af_buf_free(&cut);
}

/* ---- spec 4: what is kept ---- */

static void test_kept_bits(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	struct bone x[3];
	memcpy(x, flour, sizeof(x));
	x[1].scale[0] = 0x3F800001u; /* 1.0000001 */
	x[1].scale[1] = 0x3F7FFFFFu; /* 0.99999994 */
	x[1].scale[2] = ONE;
	x[1].pos[0] = 0x80000000u;   /* -0.0 */
	x[1].pos[1] = 0x7FA00001u;   /* a NaN with a payload */
	x[2].opposite = 17;          /* no bone: kept */
	x[2].flags = 0x3F;
	x[0].hash = 0x12345678;      /* not the name's hash: kept */
	build(&b, 4, 2, x, 3, "bagFlour", 0);
	roundtrip(&b, &y);
	const char *t = (const char *)y.data;
	assert_non_null(strstr(t, "    scale: [1.0000001, 0.99999994, 1.0]\n"));
	assert_non_null(strstr(t, "    position: [-0.0, nan:0x7FA00001, 0.0]\n"));
	assert_non_null(strstr(t, "    opposite: 17 # not a bone index: kept as stored\n    flags: 0x3F\n"));
	assert_non_null(strstr(t, "    hash: 0x12345678 # not FNV-1 32"));
	af_buf_free(&b);
	af_buf_free(&y);
}

/* ---- spec 5: the YAML ---- */

/* Two bones of one name: references become indices (a name would be ambiguous), and
 * the file still round-trips (the stored hashes differ). */
static void test_repeated_names(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	struct bone x[3];
	memcpy(x, flour, sizeof(x));
	x[2].name = "offsetBone";
	x[2].hash = 0xCD68F001;
	x[2].opposite = 1;
	build(&b, 4, 2, x, 3, "bagFlour", 0);
	roundtrip(&b, &y);
	assert_non_null(strstr((char *)y.data, "  - name: offsetBone # bone 2, hash 0xD0DECA8E\n    parent: 1\n"));
	assert_non_null(strstr((char *)y.data, "    opposite: 1\n"));
	af_buf_free(&b);
	af_buf_free(&y);
}

/* A file the encoder would refuse (one hash twice, a parent cycle) is shown in full,
 * read-only, the reason at its top. */
static void test_refusable_file_readonly(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	struct bone x[3];
	af_diag_init(&d);
	memcpy(x, flour, sizeof(x));
	x[2].hash = af_fnv1_32_lower("offsetBone", 10);
	build(&b, 4, 2, x, 3, "bagFlour", 0);
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	static const char top[] = "# READ-ONLY: bones[1] (offsetBone) and bones[2] (transformBone) have the same hash";
	assert_int_equal(strncmp((char *)y.data, top, strlen(top)), 0);
	assert_non_null(strstr((char *)y.data, "  - name: transformBone # bone 2"));
	memcpy(x, flour, sizeof(x));
	x[0].parent = 2;
	build(&b, 4, 2, x, 3, "bagFlour", 0);
	af_diag_clear(&d);
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	assert_non_null(strstr(d.msg, "parents form a cycle"));
	af_diag_free(&d);
	af_buf_free(&b);
	af_buf_free(&y);
}

/* A rig of thousands of bones, each the parent of the next: its names resolve (the YAML
 * names parents), it comes back byte for byte; a cycle at its middle is named at the
 * first bone that reaches it, a hash twice at the later bone. Checked by sorting and one
 * walk: each bone against every other, each walk up to the root, was quadratic. */
static void test_many_bones(void **state)
{
	(void)state;
	enum { N = 5000 };
	static struct bone x[N];
	static char names[N][16];
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "b%d", i);
		x[i] = (struct bone){ names[i], i - 1, INT32_MIN, {0}, {0}, {0}, 0, 0 };
	}
	build(&b, 4, 2, x, N, "chain", 0);
	roundtrip(&b, &y);
	assert_non_null(strstr((char *)y.data, "  - name: b4999 # bone 4999, hash 0x"));
	assert_non_null(strstr((char *)y.data, "\n    parent: b4998\n"));
	x[2500].parent = N - 1;
	build(&b, 4, 2, x, N, "chain", 0);
	af_diag_init(&d);
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	assert_non_null(strstr(d.msg, "bones[2500] (b2500): its parents form a cycle"));
	x[2500].parent = 2499;
	x[4000].hash = af_fnv1_32_lower("b17", 3);
	build(&b, 4, 2, x, N, "chain", 0);
	af_diag_clear(&d);
	assert_int_equal(dec(&b, &y, &d), AF_VIEW_READONLY);
	assert_non_null(strstr(d.msg, "bones[17] (b17) and bones[4000] (b4000) have the same hash"));
	af_diag_free(&d);
	af_buf_free(&b);
	af_buf_free(&y);
}

/* A bone named like a number or a YAML word is quoted, so it stays a name. */
static void test_quoted_names(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	struct bone x[3];
	memcpy(x, flour, sizeof(x));
	x[0].name = "17";
	x[1].name = "null";
	x[2].name = "with space: colon";
	build(&b, 4, 2, x, 3, "", 0);
	roundtrip(&b, &y);
	assert_non_null(strstr((char *)y.data, "skeleton_name: \"\"\n"));
	assert_non_null(strstr((char *)y.data, "    parent: \"17\"\n"));
	assert_non_null(strstr((char *)y.data, "    parent: \"null\"\n"));
	af_buf_free(&b);
	af_buf_free(&y);
}

/* ---- edits ---- */

/* A position edit changes exactly its 4 bytes; a rename writes FNV-1 32 of the new
 * name (and its children name it anew); a new parent by name becomes its index. */
static void test_edits(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	build(&b, 4, 2, flour, 3, "bagFlour", 0);
	assert_int_equal(edit(&b, "b__ROOT__ # bone 0, hash 0xFEAE6981\n    parent: null\n    position: [0.0, 0.0, 0.0]",
			      "b__ROOT__\n    parent: null\n    position: [0.0, 2.5, 0.0]", &out, &d), 0);
	assert_int_equal(out.len, b.len);
	size_t k = 12 + 4; /* bone 0's position y */
	assert_memory_equal(out.data, b.data, k);
	assert_int_equal(af_le32(out.data + k), 0x40200000u); /* 2.5f */
	assert_memory_equal(out.data + k + 4, b.data + k + 4, b.len - k - 4);

	assert_int_equal(edit(&b, "name: offsetBone", "name: Spine", &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "parent: 'offsetBone' names no bone"));
	assert_int_equal(d.line, 17); /* transformBone's parent */
	af_diag_clear(&d);

	struct af_buf y = AF_BUF_INIT;
	assert_int_equal(dec(&b, &y, &d), 0);
	char *t = strdup((char *)y.data), *p;
	while ((p = strstr(t, "offsetBone")))
		memcpy(p, "Spine_0001", 10);
	assert_int_equal(enc(t, &out, &d), 0);
	free(t);
	assert_int_equal(out.len, b.len);
	/* bone 1 starts at 12 + 60 + 9; its name at +44, its hash at +44 + 10 + 8 */
	assert_memory_equal(out.data + 81 + 44, "Spine_0001", 10);
	assert_int_equal(af_le32(out.data + 81 + 62), af_fnv1_32_lower("spine_0001", 10));

	assert_int_equal(edit(&b, "parent: offsetBone", "parent: b__ROOT__", &out, &d), 0);
	assert_int_equal(af_le32(out.data + out.len - 4 - 12 - 12), 0); /* transformBone's parent */
	af_diag_free(&d);
	af_buf_free(&b);
	af_buf_free(&y);
	af_buf_free(&out);
}

/* ---- spec 6: validation of edits, each at its line:col ---- */

static void refused(const char *from, const char *to, const char *msg, unsigned line)
{
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	build(&b, 4, 2, flour, 3, "bagFlour", 0);
	assert_int_equal(edit(&b, from, to, &out, &d), AF_EINVAL);
	if (!strstr(d.msg, msg) || (line && d.line != line))
		fail_msg("%s -> %s: got %u:%u: %s", from, to, d.line, d.col, d.msg);
	assert_int_equal(out.len, 0);
	af_diag_free(&d);
	af_buf_free(&b);
	af_buf_free(&out);
}

static void test_validation(void **state)
{
	(void)state;
	refused("    parent: null\n", "    parent: null\n    colour: red\n", "unknown key 'colour'", 10);
	refused("skeleton_name:", "skeleton: x\nskeleton_name:", "unknown key 'skeleton'", 5);
	refused("ik_chains: []", "ik_chains: [{bones: [], info_nodes: [], pole: 0, slot_info: 0, slot_offset: 0, root: 0, x: 1}]",
		"unknown key 'x'", 0);
	refused("parent: offsetBone", "parent: nobody", "'nobody' names no bone", 17);
	refused("parent: null", "parent: transformBone", "parents form a cycle", 0);
	refused("parent: offsetBone", "parent: offsetBone\n    hash: 0xD0DECA8E", "same hash", 16);
	refused("name: transformBone", "name: \"caf\\xE9\"", "printable ASCII", 16);
	refused("name: transformBone", "name: \"\"", "empty", 16);
	refused("position: [0.0, 0.0, 0.0]", "position: [0.0, 0.0]", "expected 3 numbers", 10);
	refused("position: [0.0, 0.0, 0.0]", "position: [0.0, 1e39, 0.0]", "does not fit an f32", 10);
	refused("version: [4, 2]", "version: [5, 2]", "version: 5 is out of range", 6);
	refused("version: [4, 2]", "version: [2, 2]", "a clear rig is 3.x or 4.x", 6);
	refused("parent: offsetBone", "parent: 3000000000", "outside i32", 17);
	refused("format: sims3-rig", "format: sims3-jazz", "expected sims3-rig", 0);
}

/* An integer reference that is no bone is kept as given (like the stored opposite 17). */
static void test_integer_refs(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	build(&b, 4, 2, flour, 3, "bagFlour", 0);
	assert_int_equal(edit(&b, "parent: offsetBone", "parent: 1\n    opposite: 99", &out, &d), 0);
	assert_int_equal(af_le32(out.data + out.len - 4 - 12 - 12), 1);
	assert_int_equal(af_le32(out.data + out.len - 4 - 12 - 16), 99);
	assert_true(d.nwarnings > 0); /* opposite 99 is not a bone */
	af_diag_free(&d);
	af_buf_free(&b);
	af_buf_free(&out);
}

/* ---- the samples ---- */

static int sample_rigs(char paths[][1024], int max)
{
	const char *root = ANIMFS_SAMPLES "/sims3-clip";
	DIR *top = opendir(root);
	struct dirent *e, *f;
	int n = 0;
	if (!top)
		return -1;
	while ((e = readdir(top)) && n < max) {
		char dir[600];
		snprintf(dir, sizeof(dir), "%s/%s", root, e->d_name);
		DIR *sub = e->d_name[0] == '.' ? NULL : opendir(dir);
		while (sub && (f = readdir(sub)) && n < max)
			if (strstr(f->d_name, "_RIG.grannyrig"))
				snprintf(paths[n++], 1024, "%s/%s", dir, f->d_name);
		if (sub)
			closedir(sub);
	}
	closedir(top);
	return n;
}

static void test_samples(void **state)
{
	(void)state;
	char paths[16][1024];
	int n = sample_rigs(paths, 16);
	if (n < 0) {
		print_message("skipped: ../shared/samples not found\n");
		skip();
	}
	assert_int_equal(n, 5);
	for (int i = 0; i < n; i++) {
		struct af_buf bin = AF_BUF_INIT, y = AF_BUF_INIT;
		struct af_diag d;
		af_diag_init(&d);
		if (af_read_file_at(AT_FDCWD, paths[i], 1 << 20, &bin, &d))
			fail_msg("%s: %s", paths[i], d.msg);
		assert_true(rig()->bid(strrchr(paths[i], '/') + 1, bin.data, 64) >= 60);
		assert_ptr_equal(af_codec_bid(strrchr(paths[i], '/') + 1, bin.data, 64), rig());
		roundtrip(&bin, &y);
		if (strstr(paths[i], "023ECBDB12A4B889")) { /* plantSmallVine: opposite 17 of 16 */
			assert_non_null(strstr((char *)y.data, "  - name: _FX_talk # bone 15"));
			assert_non_null(strstr((char *)y.data, "    opposite: 17 # not a bone index"));
			assert_non_null(strstr((char *)y.data, "1.0000002"));
		}
		af_diag_free(&d);
		af_buf_free(&bin);
		af_buf_free(&y);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_granny_readonly),
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_major3),
		cmocka_unit_test(test_ik_chains),
		cmocka_unit_test(test_exact_end_and_hostile),
		cmocka_unit_test(test_kept_bits),
		cmocka_unit_test(test_repeated_names),
		cmocka_unit_test(test_refusable_file_readonly),
		cmocka_unit_test(test_many_bones),
		cmocka_unit_test(test_quoted_names),
		cmocka_unit_test(test_edits),
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_integer_refs),
		cmocka_unit_test(test_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
