/* re-model against the sample files (skipped when ../shared/samples is absent): edits
 * made in the YAML text come out as exactly the expected bytes, checked by reading the
 * binary by hand; and damaged inputs (flips, truncations, bad directories) never crash
 * and, when they decode, still rebuild byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "re_testutil.h"
#include "animfs/yamlio.h"

#define RE3_PLD "biohazard-utils_re3_pld0_leon_PL00.PLD"
#define RE3_PLW "biohazard-utils_re3_pld0_leon_PL00W0F.PLW"
#define RE3_EMD "biohazard-utils_re3_emd_leon_em50.emd"
#define RE2_PLD "biohazard-utils_re2_pld0_leon_PL00.PLD"
#define RE2_PLW "biohazard-utils_re2_pld0_leon_PL00W00.PLW"

struct sample {
	struct af_buf bin, yaml;
};

static int load(const char *name, struct sample *s)
{
	struct af_diag d;
	memset(s, 0, sizeof(*s));
	if (!re_load_sample(name, &s->bin))
		return 0;
	af_diag_init(&d);
	if (re_dec(s->bin.data, s->bin.len, name, &s->yaml, &d))
		fail_msg("decode %s: %s", name, d.msg);
	af_buf_putc(&s->yaml, 0);
	af_diag_free(&d);
	return 1;
}

static void unload(struct sample *s)
{
	af_buf_free(&s->bin);
	af_buf_free(&s->yaml);
}

#define LOAD_OR_SKIP(name, s)                                                   \
	do {                                                                    \
		if (!load(name, s)) {                                           \
			print_message("SKIP: ../shared/samples not found\n");   \
			skip();                                                 \
		}                                                               \
	} while (0)

static void encode_text(const char *text, struct af_buf *out)
{
	struct af_diag d;
	af_diag_init(&d);
	if (re_enc(text, strlen(text), out, &d))
		fail_msg("encode: %u:%u: %s", d.line, d.col, d.msg);
	af_diag_free(&d);
}

/* Replace the number that starts at `at` (up to ',', ']', a space or the line's end) with `num`. */
static char *replace_number(const char *text, const char *at, const char *num)
{
	size_t len = strcspn(at, ",] \n");
	char old[64];
	assert_true(len < sizeof(old));
	memcpy(old, at, len);
	old[len] = 0;
	/* make `old` unique by anchoring at `at` itself */
	struct af_buf b = AF_BUF_INIT;
	af_buf_append(&b, text, (size_t)(at - text));
	af_buf_puts(&b, num);
	af_buf_puts(&b, at + len);
	af_buf_putc(&b, 0);
	return (char *)af_buf_steal(&b, &len);
}

/* All bytes equal except those in [lo, hi). */
static void same_except(const struct af_buf *a, const struct af_buf *b, size_t lo, size_t hi)
{
	assert_int_equal(a->len, b->len);
	for (size_t i = 0; i < a->len; i++)
		if ((i < lo || i >= hi) && a->data[i] != b->data[i])
			fail_msg("byte 0x%zx changed (%02x -> %02x)", i, a->data[i], b->data[i]);
}

/* One angle (pose 0, bone 0, x) changed to 45 degrees = code 512: only its 12 bits move. */
static void angle_edit(const char *name, unsigned emr_sec, unsigned header, void **state)
{
	struct sample s;
	struct af_buf out = AF_BUF_INIT;
	struct re_dir dir;
	(void)state;
	LOAD_OR_SKIP(name, &s);
	const char *text = (char *)s.yaml.data;
	const char *pose = strstr(text, "      - pose: 0\n");
	assert_non_null(pose);
	const char *bone0 = strstr(pose, "        angles:\n          - [");
	assert_non_null(bone0);
	char *edited = replace_number(text, bone0 + strlen("        angles:\n          - ["), "45");
	encode_text(edited, &out);
	re_read_dir(out.data, out.len, &dir);
	const uint8_t *emr = out.data + dir.off[emr_sec];
	size_t at = dir.off[emr_sec] + af_le16(emr + 2) + header;
	assert_int_equal(out.data[at] | (out.data[at + 1] & 0x0F) << 8, 512);
	assert_int_equal(out.data[at + 1] >> 4, s.bin.data[at + 1] >> 4);
	same_except(&s.bin, &out, at, at + 2);
	free(edited);
	af_buf_free(&out);
	unload(&s);
}

/* Claire's RE2 PL01W07.PLW (not a sample) has non-zero bits after the last angle of
 * pose 291; the same kind is made here from the RE2 PLW sample (bank 0: 15 bones,
 * 80-byte keyframes, so the 4 bits above the last angle's nibble). The bank decodes
 * (no 'verbatim'), pose 291 alone shows stray_bits, the bytes rebuild, and an angle
 * edit of pose 290 moves only that angle's 12 bits. */
static void test_stray_bits_bank(void **state)
{
	struct af_buf bin = AF_BUF_INIT, yaml = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	struct re_dir dir;
	(void)state;
	if (!re_load_sample(RE2_PLW, &bin)) {
		print_message("SKIP: ../shared/samples not found\n");
		skip();
	}
	re_read_dir(bin.data, bin.len, &dir);
	const uint8_t *emr = bin.data + dir.off[1];
	assert_int_equal(af_le16(emr + 2), 8); /* header only */
	assert_int_equal(af_le16(emr + 6), 80);
	size_t kf291 = dir.off[1] + 8 + 291 * 80;
	assert_true(kf291 + 80 <= dir.off[2]);
	assert_int_equal(bin.data[kf291 + 79] >> 4, 0);
	bin.data[kf291 + 79] |= 0xA0;
	af_diag_init(&d);
	if (re_dec(bin.data, bin.len, "PL01W07.PLW", &yaml, &d))
		fail_msg("decode: %s", d.msg);
	assert_int_equal(d.nwarnings, 0);
	af_buf_putc(&yaml, 0);
	const char *text = (char *)yaml.data;
	assert_null(strstr(text, "verbatim:"));
	const char *p291 = strstr(text, "      - pose: 291\n");
	assert_non_null(p291);
	const char *stray = strstr(text, "        stray_bits: ");
	assert_true(stray > p291 && stray < strstr(p291, "      - pose: 292\n"));
	assert_true(!strncmp(stray, "        stray_bits: 0xA   #", 27));
	assert_null(strstr(stray + 27, "stray_bits:"));
	if (re_enc(text, yaml.len - 1, &out, &d))
		fail_msg("encode: %u:%u: %s", d.line, d.col, d.msg);
	assert_int_equal(out.len, bin.len);
	assert_memory_equal(out.data, bin.data, bin.len);
	/* pose 290, bone 0, x -> 45 degrees (code 512): bytes 12 and the low nibble of 13 */
	const char *bone0 = strstr(strstr(text, "      - pose: 290\n"), "        angles:\n          - [");
	char *edited = replace_number(text, bone0 + strlen("        angles:\n          - ["), "45");
	af_buf_reset(&out);
	encode_text(edited, &out);
	size_t at = dir.off[1] + 8 + 290 * 80 + 12;
	assert_int_equal(out.data[at] | (out.data[at + 1] & 0x0F) << 8, 512);
	assert_int_equal(out.data[at + 1] >> 4, bin.data[at + 1] >> 4);
	same_except(&bin, &out, at, at + 2);
	free(edited);
	af_diag_free(&d);
	af_buf_free(&bin);
	af_buf_free(&yaml);
	af_buf_free(&out);
}

/* A frame that names a pose past the pool (here: the PLD's last sequence, pose_start
 * 448, relative pose 200 = pose 648 of 503) is kept, marked outside, instead of
 * turning the bank into bytes; an edit elsewhere in the bank still moves only its byte. */
static void test_outside_frame_bank(void **state)
{
	struct af_buf bin = AF_BUF_INIT, yaml = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	struct re_dir dir;
	(void)state;
	if (!re_load_sample(RE3_PLD, &bin)) {
		print_message("SKIP: ../shared/samples not found\n");
		skip();
	}
	re_read_dir(bin.data, bin.len, &dir);
	const uint8_t *edd = bin.data + dir.off[0];
	unsigned nseq = af_le16(edd + 2) / 8;
	const uint8_t *last = edd + 8 * (nseq - 1);
	assert_int_equal(af_le32(last + 4), 448);
	size_t at = dir.off[0] + af_le16(last + 2); /* its first frame's pose byte */
	bin.data[at] = 200;
	af_diag_init(&d);
	if (re_dec(bin.data, bin.len, "PL00.PLD", &yaml, &d))
		fail_msg("decode: %s", d.msg);
	assert_int_equal(d.nwarnings, 0);
	af_buf_putc(&yaml, 0);
	const char *text = (char *)yaml.data;
	assert_null(strstr(text, "verbatim:"));
	const char *fr = strstr(text, ", outside]");
	assert_non_null(fr);
	assert_null(strstr(fr + 1, ", outside]"));
	const char *line = fr;
	while (line > text && line[-1] != '\n')
		line--;
	assert_true(!strncmp(line, "          - [200, ", 18));
	if (re_enc(text, yaml.len - 1, &out, &d))
		fail_msg("encode: %u:%u: %s", d.line, d.col, d.msg);
	assert_int_equal(out.len, bin.len);
	assert_memory_equal(out.data, bin.data, bin.len);
	/* sequence 0, frame 1: flags 0x00 -> 0x04 */
	char *edited = re_replace(text, "# sequence 0:", "- [1, none]", "- [1, 0x04]");
	af_buf_reset(&out);
	encode_text(edited, &out);
	size_t f1 = dir.off[0] + af_le16(edd + 2) + 3;
	assert_int_equal(out.data[f1], 4);
	same_except(&bin, &out, f1, f1 + 1);
	free(edited);
	af_diag_free(&d);
	af_buf_free(&bin);
	af_buf_free(&yaml);
	af_buf_free(&out);
}

/* The 7-bone bank (PLW section 3): each field of pose 5's record edited through the
 * YAML changes exactly its own bytes. K = 88 (7-bone skeleton), records of 32 bytes. */
struct rec7_edit {
	const char *key;     /* "        right_foot_angles: [" */
	unsigned item;       /* which number of the value (0 for a scalar) */
	const char *value;
	unsigned lo, hi;     /* the record bytes that may change */
	unsigned want_bits;  /* what to check: 16 = s16 at lo, 12 = 12-bit value k at lo */
	int want;
	unsigned k;
};

static void test_seven_record_edits(void **state)
{
	static const struct rec7_edit edits[] = {
		{ "        motion: [", 0, "-1234", 0, 2, 16, -1234, 0 },
		{ "        y_offset8: ", 0, "-14000", 6, 8, 16, -14000, 0 },
		/* 12-bit value 0 (even): byte 8 and the low nibble of 9 */
		{ "        right_unknown: ", 0, "-5", 8, 10, 12, 4091, 0 },
		/* value 2 (even, right_foot_angles y): byte 11, low nibble of 12; 45 deg = 512 */
		{ "        right_foot_angles: [", 1, "45", 11, 13, 12, 512, 2 },
		/* value 4 (even): byte 14, low nibble of 15 */
		{ "        left_unknown: ", 0, "100", 14, 16, 12, 100, 4 },
		/* value 7 (odd, left_foot_angles z): high nibble of 18, byte 19; -90 deg = 3072 */
		{ "        left_foot_angles: [", 2, "-90", 18, 20, 12, 3072, 7 },
		{ "        right_foot: [", 1, "-1300", 22, 24, 16, -1300, 0 },
		{ "        left_foot: [", 2, "2000", 30, 32, 16, 2000, 0 },
	};
	struct sample s;
	struct re_dir dir;
	(void)state;
	LOAD_OR_SKIP("biohazard-utils_re3_pld0_leon_PL00W00.PLW", &s);
	const char *text = (char *)s.yaml.data;
	const char *pose = strstr(strstr(text, "  - bank: 1\n"), "      - pose: 5\n");
	assert_non_null(pose);
	re_read_dir(s.bin.data, s.bin.len, &dir);
	assert_int_equal(af_le16(s.bin.data + dir.off[3] + 2), 88);
	const size_t rec = dir.off[3] + 88 + 5 * 32;
	for (size_t e = 0; e < sizeof(edits) / sizeof(edits[0]); e++) {
		const struct rec7_edit *x = &edits[e];
		struct af_buf out = AF_BUF_INIT;
		const char *at = strstr(pose, x->key);
		assert_non_null(at);
		at += strlen(x->key);
		for (unsigned i = 0; i < x->item; i++)
			at = strchr(at, ',') + 2;
		char *edited = replace_number(text, at, x->value);
		encode_text(edited, &out);
		const uint8_t *r = out.data + rec;
		if (x->want_bits == 16)
			assert_int_equal((int16_t)af_le16(r + x->lo), x->want);
		else
			assert_int_equal(x->k % 2 ? r[3 * x->k / 2 + 8] >> 4 | r[3 * x->k / 2 + 9] << 4
					 : r[3 * x->k / 2 + 8] | (r[3 * x->k / 2 + 9] & 0x0F) << 8,
					 x->want);
		/* a 12-bit value keeps the nibble it shares with its neighbour */
		if (x->want_bits == 12 && x->k % 2 == 0)
			assert_int_equal(r[x->lo + 1] >> 4, s.bin.data[rec + x->lo + 1] >> 4);
		if (x->want_bits == 12 && x->k % 2 == 1)
			assert_int_equal(r[x->lo] & 0x0F, s.bin.data[rec + x->lo] & 0x0F);
		same_except(&s.bin, &out, rec + x->lo, rec + x->hi);
		free(edited);
		af_buf_free(&out);
	}
	unload(&s);
}

/* A view written before the 7-bone records were decoded ('keyframes: opaque' and the pool
 * as a data entry, role emr-pool) still encodes to the same bytes. */
static void test_seven_opaque_compat(void **state)
{
	struct sample s;
	struct re_dir dir;
	struct af_buf doc = AF_BUF_INIT, out = AF_BUF_INIT;
	(void)state;
	LOAD_OR_SKIP("biohazard-utils_re3_pld0_leon_PL00W00.PLW", &s);
	const char *text = (char *)s.yaml.data;
	const char *from = strstr(text, "    keyframes:   # 102 lower-body records");
	const char *to = strstr(text, "  - bank: 2\n");
	assert_non_null(from);
	assert_true(to > from);
	re_read_dir(s.bin.data, s.bin.len, &dir);
	af_buf_append(&doc, text, (size_t)(from - text));
	af_buf_puts(&doc, "    keyframes: opaque\n");
	af_buf_puts(&doc, to);
	af_buf_puts(&doc, "  - section: 3\n    role: emr-pool\n    length: 3264\n    base64: ");
	af_y_base64block(&doc, s.bin.data + dir.off[3] + 88, 3264, 6);
	af_buf_putc(&doc, 0);
	encode_text((char *)doc.data, &out);
	assert_int_equal(out.len, s.bin.len);
	assert_memory_equal(out.data, s.bin.data, s.bin.len);
	af_buf_free(&doc);
	af_buf_free(&out);
	unload(&s);
}

static void test_angle_edit_re3(void **state) { angle_edit(RE3_PLD, 1, 8, state); }
static void test_angle_edit_re2(void **state) { angle_edit(RE2_PLD, 1, 12, state); }

/* Root motion x of pose 0 in the PLW's upper-body bank (section 6). */
static void test_root_edit_plw(void **state)
{
	struct sample s;
	struct af_buf out = AF_BUF_INIT;
	struct re_dir dir;
	(void)state;
	LOAD_OR_SKIP(RE3_PLW, &s);
	const char *text = (char *)s.yaml.data;
	const char *pose = strstr(strstr(text, "  - bank: 2"), "      - pose: 0\n");
	assert_non_null(pose);
	char *edited = replace_number(text, strstr(pose, "motion: [") + 9, "-1234");
	encode_text(edited, &out);
	re_read_dir(out.data, out.len, &dir);
	size_t at = dir.off[6] + af_le16(out.data + dir.off[6] + 2);
	assert_int_equal((int16_t)af_le16(out.data + at), -1234);
	same_except(&s.bin, &out, at, at + 2);
	free(edited);
	af_buf_free(&out);
	unload(&s);
}

static void test_relpos_edit(void **state)
{
	struct sample s;
	struct af_buf out = AF_BUF_INIT;
	struct re_dir dir;
	(void)state;
	LOAD_OR_SKIP(RE3_PLD, &s);
	const char *text = (char *)s.yaml.data;
	const char *bone = strstr(strstr(text, "      - {bone: 1,"), "relpos: [");
	size_t n = strcspn(bone, "]");
	char old[64];
	memcpy(old, bone, n + 1);
	old[n + 1] = 0;
	char *edited = re_replace(text, "      - {bone: 1,", old, "relpos: [11, -22, 33]");
	encode_text(edited, &out);
	re_read_dir(out.data, out.len, &dir);
	size_t at = dir.off[1] + 8 + 6;
	assert_int_equal((int16_t)af_le16(out.data + at), 11);
	assert_int_equal((int16_t)af_le16(out.data + at + 2), -22);
	assert_int_equal((int16_t)af_le16(out.data + at + 4), 33);
	same_except(&s.bin, &out, at, at + 6);
	free(edited);
	af_buf_free(&out);
	unload(&s);
}

struct edd_view {
	size_t nseq, len;
	const uint8_t *p;
};

static void edd_view(const struct af_buf *b, unsigned sec, struct edd_view *v)
{
	struct re_dir dir;
	re_read_dir(b->data, b->len, &dir);
	v->p = b->data + dir.off[sec];
	v->len = dir.len[sec];
	v->nseq = af_le16(v->p + 2) / 8;
	assert_int_equal(af_le32(v->p + v->len - 4), v->len - 4);
}

/* Sections other than `sec` keep their bytes. */
static void others_same(const struct af_buf *a, const struct af_buf *b, unsigned skip1,
			unsigned skip2)
{
	struct re_dir da, db;
	re_read_dir(a->data, a->len, &da);
	re_read_dir(b->data, b->len, &db);
	assert_int_equal(da.count, db.count);
	for (unsigned i = 0; i < da.count; i++) {
		if (i == skip1 || i == skip2)
			continue;
		assert_int_equal(da.len[i], db.len[i]);
		assert_memory_equal(a->data + da.off[i], b->data + db.off[i], da.len[i]);
	}
}

/* A frame [0, 0x00] in front of sequence 0: its count +1, later lists 2 bytes on,
 * the FF FF pad toggles, trailer recomputed, other sections untouched. */
static void test_add_frame(void **state)
{
	struct sample s;
	struct af_buf out = AF_BUF_INIT;
	struct edd_view a, b;
	(void)state;
	LOAD_OR_SKIP(RE3_PLD, &s);
	char *edited = re_replace((char *)s.yaml.data, NULL, "        frames:\n",
				  "        frames:\n          - [0, 0x00]\n");
	encode_text(edited, &out);
	edd_view(&s.bin, 0, &a);
	edd_view(&out, 0, &b);
	assert_int_equal(a.nseq, b.nseq);
	assert_int_equal(af_le16(b.p), af_le16(a.p) + 1);
	assert_int_equal(af_le32(b.p + 4), af_le32(a.p + 4));
	size_t frames = 0;
	for (size_t i = 0; i < a.nseq; i++) {
		if (i) {
			assert_int_equal(af_le16(b.p + 8 * i + 2), af_le16(a.p + 8 * i + 2) + 2);
			assert_int_equal(af_le16(b.p + 8 * i), af_le16(a.p + 8 * i));
		}
		frames += af_le16(a.p + 8 * i);
	}
	size_t lists = 8 * a.nseq;
	assert_int_equal(b.p[lists], 0);
	assert_int_equal(b.p[lists + 1], 0);
	assert_memory_equal(b.p + lists + 2, a.p + lists, 2 * frames);
	size_t end = lists + 2 * (frames + 1);
	if (end % 4 == 2) {
		assert_int_equal(b.p[end], 0xFF);
		assert_int_equal(b.p[end + 1], 0xFF);
		end += 2;
	}
	assert_int_equal(b.len, end + 4);
	others_same(&s.bin, &out, 0, 0);
	free(edited);
	af_buf_free(&out);
	unload(&s);
}

/* A copy of pose 0 appended to the pool and a new last sequence showing it. */
static void test_add_pose_and_sequence(void **state)
{
	struct sample s;
	struct af_buf out = AF_BUF_INIT;
	struct edd_view a, b;
	struct re_dir da, db;
	char line[4096], seq[128];
	(void)state;
	LOAD_OR_SKIP(RE3_PLD, &s);
	const char *text = (char *)s.yaml.data;
	re_read_dir(s.bin.data, s.bin.len, &da);
	const uint8_t *emr = s.bin.data + da.off[1];
	size_t K = af_le16(emr + 2), ks = af_le16(emr + 6), npose = (da.len[1] - K) / ks;
	const char *p0 = strstr(text, "      - pose: 0\n"), *p1 = strstr(text, "      - pose: 1\n");
	assert_true(p0 && p1 > p0);
	const char *body = p0 + strlen("      - pose: 0\n");
	assert_true((size_t)(p1 - body) + 64 < sizeof(line));
	snprintf(line, sizeof(line), "\n      - pose: %zu\n%.*sdata:", npose, (int)(p1 - body), body);
	snprintf(seq, sizeof(seq), "      - pose_start: %zu\n        frames:\n          - [0, 0x04]\n"
		 "    keyframes:", npose);
	char *t1 = re_replace(text, NULL, "\ndata:", line);
	char *t2 = re_replace(t1, NULL, "    keyframes:", seq);
	free(t1);
	t1 = t2;
	t2 = NULL;
	encode_text(t1, &out);
	re_read_dir(out.data, out.len, &db);
	assert_int_equal(db.len[1], da.len[1] + ks);
	assert_memory_equal(out.data + db.off[1], emr, da.len[1]);
	assert_memory_equal(out.data + db.off[1] + da.len[1], emr + K, ks);
	edd_view(&s.bin, 0, &a);
	edd_view(&out, 0, &b);
	assert_int_equal(b.nseq, a.nseq + 1);
	const uint8_t *r = b.p + 8 * a.nseq;
	assert_int_equal(af_le16(r), 1);
	assert_int_equal(af_le32(r + 4), npose);
	size_t at = af_le16(r + 2);
	assert_int_equal(b.p[at], 0);
	assert_int_equal(b.p[at + 1], 4);
	others_same(&s.bin, &out, 0, 1);
	free(t1);
	free(t2);
	af_buf_free(&out);
	unload(&s);
}

/* What a person reads: bone names where the spec names the skeleton (RE3 human, also
 * for the PLW's header-only bank, and the 7-bone lower body), bone_<i> otherwise (RE2,
 * the 9-bone upper body); flags by name. An edit through a flag name moves one byte. */
static void test_names(void **state)
{
	struct sample s, w, r2;
	struct af_buf out = AF_BUF_INIT;
	(void)state;
	LOAD_OR_SKIP(RE3_PLD, &s);
	LOAD_OR_SKIP(RE3_PLW, &w);
	LOAD_OR_SKIP(RE2_PLD, &r2);
	const char *y = (char *)s.yaml.data, *wy = (char *)w.yaml.data, *y2 = (char *)r2.yaml.data;
	assert_non_null(strstr(y, "      - {bone: 3, parent: 2, relpos: [-11, 485, -80]}   # right_elbow\n"));
	assert_non_null(strstr(y, "        angles:\n          - [0, -0.35, -11.95]      # 0 hips\n"));
	assert_non_null(strstr(y, "  # 14 left_foot\n      - pose: 1\n"));
	assert_non_null(strstr(y, "          - [5, footfall]\n"));
	assert_non_null(strstr(y, "          - [24, footfall2]\n"));
	assert_null(strstr(y, ", 0x00]"));
	const char *b1 = strstr(wy, "  - bank: 1"), *b2 = strstr(wy, "  - bank: 2");
	assert_true(strstr(wy, "  # 14 left_foot\n") < b1);
	assert_true(strstr(b1, "relpos: [-57, 839, -8]}   # right_foot\n") < b2);
	assert_non_null(strstr(b2, "  # bone_8\n"));
	assert_null(strstr(b2, "hips"));
	assert_non_null(strstr(y2, "  # bone_14\n"));
	assert_null(strstr(y2, "right_"));
	assert_non_null(strstr(y2, "          - [7, 0x4]\n"));
	/* sequence 0, frame 5: footfall (0x02) -> footfall2 (0x06), the frame's flag byte */
	char *edited = re_replace(y, NULL, "[5, footfall]", "[5, footfall2]");
	encode_text(edited, &out);
	struct re_dir dir;
	re_read_dir(s.bin.data, s.bin.len, &dir);
	size_t at = dir.off[0] + af_le16(s.bin.data + dir.off[0] + 2) + 2 * 5 + 1;
	assert_int_equal(s.bin.data[at], 0x02);
	assert_int_equal(out.data[at], 0x06);
	same_except(&s.bin, &out, at, at + 1);
	free(edited);
	af_buf_free(&out);
	unload(&s);
	unload(&w);
	unload(&r2);
}

/* ---------------------------------------------------------------- siblings */

struct fake_dir {
	const char *name[2];
	const struct af_buf *bytes[2];
};

static int fake_read(void *ctx, const char *name, struct af_buf *out)
{
	const struct fake_dir *f = ctx;
	for (int i = 0; i < 2; i++)
		if (f->name[i] && !strcmp(f->name[i], name))
			return af_buf_append(out, f->bytes[i]->data, f->bytes[i]->len);
	return AF_EIO;
}

/* PLW bank 0 animates the PLD beside it: a PLD with another bone count is refused;
 * a PLW whose bank lost a sequence against the file it replaces is only warned about. */
static void test_plw_beside_pld(void **state)
{
	struct sample s, pld;
	struct af_buf out = AF_BUF_INIT, other = AF_BUF_INIT;
	struct af_diag d;
	(void)state;
	LOAD_OR_SKIP(RE3_PLW, &s);
	LOAD_OR_SKIP(RE3_PLD, &pld);
	const char *plw_name = "PL00W0F.PLW";
	struct fake_dir dir = { { "PL00.PLD", plw_name }, { &pld.bin, &s.bin } };
	struct af_io io = { .name = plw_name, .read_sibling = fake_read, .ctx = &dir };
	af_diag_init(&d);
	const char *y = (char *)s.yaml.data;
	assert_int_equal(re_codec()->from_yaml(s.yaml.data, strlen(y), &io, &out, &d), 0);
	assert_int_equal(d.nwarnings, 0);
	/* a PLD with 3 bones: built from the example */
	struct af_buf ex = AF_BUF_INIT;
	char path[4096];
	snprintf(path, sizeof(path), "%s/examples/re3_tiny.PLD.yaml", ANIMFS_SOURCE_DIR);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char tmp[8192];
	size_t got = fread(tmp, 1, sizeof(tmp), f);
	fclose(f);
	assert_int_equal(re_enc(tmp, got, &other, &d), 0);
	dir.bytes[0] = &other;
	af_buf_reset(&out);
	assert_int_not_equal(re_codec()->from_yaml(s.yaml.data, strlen(y), &io, &out, &d), 0);
	if (!strstr(d.msg, "bank 0 has 15 bones / 76-byte keyframes but PL00.PLD has 3 / 24"))
		fail_msg("%s", d.msg);
	assert_int_equal(d.line, re_line_of(y, "  - bank: 0"));
	/* drop the last sequence of bank 1 (the lower-body overlay) */
	const char *b1 = strstr(y, "  - bank: 1");
	const char *last = NULL, *p = b1;
	while ((p = strstr(p + 1, "      - pose_start:")) && p < strstr(b1, "    keyframes:"))
		last = p;
	assert_non_null(last);
	struct af_buf cut = AF_BUF_INIT;
	af_buf_append(&cut, y, (size_t)(last - y));
	af_buf_puts(&cut, strstr(last, "    keyframes:"));
	dir.bytes[0] = &pld.bin;
	af_diag_free(&d);
	af_diag_init(&d);
	af_buf_reset(&out);
	if (re_codec()->from_yaml(cut.data, cut.len, &io, &out, &d))
		fail_msg("%u:%u: %s", d.line, d.col, d.msg);
	assert_int_equal(d.nwarnings, 1);
	assert_non_null(strstr((char *)d.warnings.data, "banks[1]: "));
	assert_non_null(strstr((char *)d.warnings.data, "the game expects a fixed set"));
	af_buf_free(&cut);
	af_buf_free(&ex);
	af_buf_free(&other);
	af_buf_free(&out);
	af_diag_free(&d);
	unload(&s);
	unload(&pld);
}

/* ---------------------------------------------------------------- damage */

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint32_t next32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static void damage(const char *name, unsigned rounds)
{
	struct af_buf bin = AF_BUF_INIT;
	if (!re_load_sample(name, &bin)) {
		print_message("SKIP: ../shared/samples not found\n");
		skip();
	}
	uint8_t *m = malloc(bin.len);
	assert_non_null(m);
	uint32_t dir = af_le32(bin.data);
	for (unsigned r = 0; r < rounds; r++) {
		memcpy(m, bin.data, bin.len);
		unsigned flips = 1 + next32() % 4;
		/* aim most flips at the banks and the directory, where the parsing is */
		for (unsigned f = 0; f < flips; f++) {
			size_t at = next32() % 3 ? next32() % (dir < 40000 ? dir : 40000)
				: dir + next32() % (bin.len - dir);
			m[at] ^= (uint8_t)(1u << (next32() % 8));
		}
		re_survive(m, bin.len, name);
		re_survive(m, next32() % bin.len, name); /* truncated */
	}
	/* directory entries pointing outside the file */
	memcpy(m, bin.data, bin.len);
	af_buf_patch_u32le(&bin, dir + 4, 0xFFFFFFF0u);
	re_survive(bin.data, bin.len, name);
	free(m);
	af_buf_free(&bin);
}

static void test_damage_pld(void **state) { (void)state; damage(RE3_PLD, 20); }
static void test_damage_plw(void **state) { (void)state; damage(RE3_PLW, 40); }
static void test_damage_emd(void **state) { (void)state; damage(RE3_EMD, 15); }
static void test_damage_re2(void **state) { (void)state; damage(RE2_PLD, 15); }

/* Damaged YAML text never crashes the parser/encoder. */
static void test_damage_yaml(void **state)
{
	struct sample s;
	(void)state;
	LOAD_OR_SKIP(RE3_PLW, &s);
	size_t n = s.yaml.len - 1;
	size_t data = (size_t)(strstr((char *)s.yaml.data, "\ndata:") - (char *)s.yaml.data);
	char *m = malloc(n + 1);
	assert_non_null(m);
	static const char junk[] = "-[]{}:, 0x9#\n\"'&*!|>%@`";
	for (int r = 0; r < 40; r++) {
		memcpy(m, s.yaml.data, n + 1);
		for (int f = 0; f < 3; f++)
			m[next32() % data] = junk[next32() % (sizeof(junk) - 1)];
		struct af_buf out = AF_BUF_INIT;
		struct af_diag d;
		af_diag_init(&d);
		if (re_enc(m, n, &out, &d))
			assert_true(d.msg[0] != 0);
		af_buf_free(&out);
		af_diag_free(&d);
	}
	free(m);
	unload(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_angle_edit_re3),
		cmocka_unit_test(test_angle_edit_re2),
		cmocka_unit_test(test_stray_bits_bank),
		cmocka_unit_test(test_outside_frame_bank),
		cmocka_unit_test(test_seven_record_edits),
		cmocka_unit_test(test_seven_opaque_compat),
		cmocka_unit_test(test_root_edit_plw),
		cmocka_unit_test(test_relpos_edit),
		cmocka_unit_test(test_add_frame),
		cmocka_unit_test(test_add_pose_and_sequence),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_plw_beside_pld),
		cmocka_unit_test(test_damage_pld),
		cmocka_unit_test(test_damage_plw),
		cmocka_unit_test(test_damage_emd),
		cmocka_unit_test(test_damage_re2),
		cmocka_unit_test(test_damage_yaml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
