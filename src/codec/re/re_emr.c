/* EMR sections (spec 5): skeleton (relpos, child lists) and the keyframe pool with
 * LSB-first packed 12-bit angles; also the degree text of an angle code (5.5, 7)
 * and the tree check shared with the YAML parser. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "re.h"
#include "animfs/bytes.h"
#include "animfs/num.h"

static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

unsigned re_kf_header(unsigned game) { return game == RE_GAME3 ? 8 : 12; }

unsigned re_kf_size(unsigned game, unsigned nbones)
{
	return (unsigned)align4(re_kf_header(game) + (9 * nbones + 1) / 2);
}

unsigned re_stray_width(unsigned game, unsigned nbones, unsigned keyframe_size)
{
	size_t bits = 8 * (size_t)keyframe_size, used = 8 * (size_t)re_kf_header(game) +
		36 * (size_t)nbones;
	return bits > used ? (unsigned)(bits - used) : 0;
}

/* The stray bits start on a nibble (36 bits a bone) and are at most 28 (spec 5.3:
 * a half byte, then up to 3 bytes of fill), so they are read and written a nibble at
 * a time. area is the angle area; width from re_stray_width. */
static uint32_t stray_get(const uint8_t *area, unsigned n, unsigned width)
{
	uint32_t v = 0;
	for (unsigned j = 0; 4 * j < width && j < 8; j++) {
		size_t nib = 9 * (size_t)n + j;
		v |= (uint32_t)(nib & 1 ? area[nib / 2] >> 4 : area[nib / 2] & 0x0F) << 4 * j;
	}
	return v;
}

static void stray_put(uint8_t *area, unsigned n, unsigned width, uint32_t v)
{
	for (unsigned j = 0; 4 * j < width && j < 8; j++) {
		size_t nib = 9 * (size_t)n + j;
		unsigned x = v >> 4 * j & 0x0F;
		area[nib / 2] = (uint8_t)(nib & 1 ? (area[nib / 2] & 0x0F) | x << 4
					  : (area[nib / 2] & 0xF0) | x);
	}
}

uint16_t re_angle_get(const uint8_t *area, unsigned k)
{
	size_t i = 3 * (size_t)k / 2;
	if (k % 2 == 0)
		return (uint16_t)(area[i] | (area[i + 1] & 0x0F) << 8);
	return (uint16_t)(area[i] >> 4 | area[i + 1] << 4);
}

void re_angle_put(uint8_t *area, unsigned k, uint16_t code)
{
	size_t i = 3 * (size_t)k / 2;
	if (k % 2 == 0) {
		area[i] = (uint8_t)code;
		area[i + 1] = (uint8_t)((area[i + 1] & 0xF0) | (code >> 8 & 0x0F));
	} else {
		area[i] = (uint8_t)((area[i] & 0x0F) | (code & 0x0F) << 4);
		area[i + 1] = (uint8_t)(code >> 4);
	}
}

/* Multiply first, then divide, in double: every implementation that follows the
 * spec gets the same code, including for typed-in half-way values. */
int re_deg_quantize(double deg, uint16_t *code)
{
	if (!isfinite(deg) || deg < -360.0 || deg > 360.0)
		return -1;
	double q = floor(deg * 4096.0 / 360.0 + 0.5);
	long c = (long)q % 4096;
	if (c < 0)
		c += 4096;
	*code = (uint16_t)c;
	return 0;
}

/* The signed view (codes above 2048 are negative) with the fewest decimals (0..2)
 * that quantize back to the same code: printf's rounding, then strtod and the
 * quantizer. The reference, which re_deg_fmt must equal on all 4096 codes. */
size_t re_deg_fmt_slow(char *out, uint16_t code)
{
	int c = code > 2048 ? (int)code - 4096 : (int)code;
	double v = c * 45.0 / 512.0;
	for (int dec = 0; dec <= 9; dec++) {
		int n = snprintf(out, AF_NUM_MAX, "%.*f", dec, v);
		uint16_t back;
		if (!re_deg_quantize(strtod(out, NULL), &back) && back == code &&
		    strcmp(out, "-0") != 0)
			return (size_t)n;
	}
	return (size_t)snprintf(out, AF_NUM_MAX, "%.9f", v); /* not reached: 2 suffice */
}

/* The same in integers: the angle is exactly c * 45 / 512, so printf's rounding to
 * dec decimals is r = (c * 45 * 10^dec) / 512 rounded half to even, and strtod of
 * that text is r / 10^dec correctly rounded, which is one double division of two
 * exact doubles. */
static size_t deg_text(char *out, uint16_t code)
{
	static const int p10[3] = { 1, 10, 100 };
	int c = code > 2048 ? (int)code - 4096 : (int)code;
	for (int dec = 0; dec <= 2; dec++) {
		int num = c * 45 * p10[dec], a = num < 0 ? -num : num;
		int r = a >> 9, rem = a & 511;
		r += rem > 256 || (rem == 256 && (r & 1));
		uint16_t back;
		if (re_deg_quantize((double)(num < 0 ? -r : r) / p10[dec], &back) || back != code ||
		    (dec == 0 && num < 0 && r == 0))
			continue;
		r = num < 0 ? -r : r; /* not 0 when num < 0: "-0" is skipped, "-0.0" fails */
		return dec ? af_fmt_dec(out, r, dec) : af_fmt_i64(out, r);
	}
	return re_deg_fmt_slow(out, code); /* not reached: 2 decimals suffice */
}

/* A pose repeats the same few angles: each code's text is made once per process on
 * first use and kept in one word (7 characters + the length), loaded and stored
 * atomically, so threads that race on a code both store the same word. */
static _Atomic uint64_t deg_memo[4096];

size_t re_deg_fmt(char *out, uint16_t code)
{
	unsigned char w[8];
	uint64_t word;
	if (code >= 4096)
		return deg_text(out, code);
	word = atomic_load_explicit(&deg_memo[code], memory_order_relaxed);
	if (word) {
		memcpy(w, &word, 8);
		memcpy(out, w, 7);
		out[w[7]] = 0;
		return w[7];
	}
	size_t n = deg_text(out, code);
	if (n < 8) {
		memset(w, 0, 8);
		memcpy(w, out, n);
		w[7] = (unsigned char)n;
		memcpy(&word, w, 8);
		atomic_store_explicit(&deg_memo[code], word, memory_order_relaxed);
	}
	return n;
}

/* Tree rooted at bone 0: parent[0] == -1, the others in range, no cycles.
 * On failure *bad is the bone and *why says what is wrong. */
int re_tree_check(const int *parent, unsigned n, unsigned *bad, const char **why)
{
	if (n == 0 || parent[0] != -1) {
		*bad = 0;
		*why = "bone 0 must be the root (parent -1)";
		return -1;
	}
	for (unsigned b = 1; b < n; b++) {
		if (parent[b] < 0 || (unsigned)parent[b] >= n || (unsigned)parent[b] == b) {
			*bad = b;
			*why = "its parent must be another bone of the skeleton (only bone 0 is "
			       "the root)";
			return -1;
		}
		unsigned steps = 0;
		int p = parent[b];
		while (p > 0 && steps++ <= n)
			p = parent[p];
		if (p != 0) {
			*bad = b;
			*why = "it is not reachable from bone 0 (cycle)";
			return -1;
		}
	}
	return 0;
}

void re_rec7_get(const uint8_t *p, struct re_rec7 *r)
{
	for (int x = 0; x < 3; x++) {
		r->motion[x] = (int16_t)af_le16(p + 2 * x);
		r->feet[0][x] = (int16_t)af_le16(p + 20 + 2 * x);
		r->feet[1][x] = (int16_t)af_le16(p + 26 + 2 * x);
	}
	r->y8 = (int16_t)af_le16(p + 6);
	for (unsigned k = 0; k < 8; k++)
		r->v[k] = re_angle_get(p + 8, k);
}

static void put16(uint8_t *p, int16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)((uint16_t)v >> 8);
}

void re_rec7_put(const struct re_rec7 *r, uint8_t *p)
{
	memset(p, 0, RE_SEVEN_RECORD);
	for (int x = 0; x < 3; x++) {
		put16(p + 2 * x, r->motion[x]);
		put16(p + 20 + 2 * x, r->feet[0][x]);
		put16(p + 26 + 2 * x, r->feet[1][x]);
	}
	put16(p + 6, r->y8);
	for (unsigned k = 0; k < 8; k++)
		re_angle_put(p + 8, k, r->v[k] & 0x0FFF);
}

static int zero_run(const uint8_t *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Skeleton part (5.2); child lists must be the running, ascending, tree-shaped
 * form that the encoder rebuilds from parents. */
static int read_skeleton(const uint8_t *p, size_t K, uint64_t base, struct re_emr *m,
			 struct af_arena *a, struct af_diag *d)
{
	const unsigned n = m->nbones;
	const size_t A = align4(8 + 6 * (size_t)n);
	if (m->armature_offset != A || A + 4 * (size_t)n > K)
		return af_diag_at_offset(d, AF_EINVAL, base, "armature offset %u, expected %zu "
					 "for %u bones", m->armature_offset, A, n);
	if (!zero_run(p, 8 + 6 * (size_t)n, A))
		return af_diag_at_offset(d, AF_EINVAL, base + 8 + 6 * n,
					 "non-zero bytes between relpos and armature table");
	m->relpos = af_arena_array(a, n, sizeof(*m->relpos));
	m->parent = af_arena_array(a, n, sizeof(*m->parent));
	if (!m->relpos || !m->parent)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (unsigned b = 0; b < n; b++) {
		for (int x = 0; x < 3; x++)
			m->relpos[b][x] = (int16_t)af_le16(p + 8 + 6 * b + 2 * x);
		m->parent[b] = b ? -2 : -1;
	}
	size_t run = 4 * (size_t)n;
	for (unsigned b = 0; b < n; b++) {
		size_t at = A + 4 * (size_t)b;
		unsigned cnt = af_le16(p + at), off = af_le16(p + at + 2);
		if (off != run || A + run + cnt > K)
			return af_diag_at_offset(d, AF_EINVAL, base + at, "bone %u: child list "
						 "at %u with %u children, expected at %zu below "
						 "the pool", b, off, cnt, run);
		for (unsigned c = 0; c < cnt; c++) {
			unsigned ch = p[A + run + c];
			if (ch == 0 || ch >= n || m->parent[ch] != -2 ||
			    (c && ch <= p[A + run + c - 1]))
				return af_diag_at_offset(d, AF_EINVAL, base + A + run + c,
							 "bone %u: child %u is out of range, "
							 "repeated or not ascending", b, ch);
			m->parent[ch] = (int)b;
		}
		run += cnt;
	}
	unsigned bad;
	const char *why;
	if (run - 4 * (size_t)n != n - 1u || re_tree_check(m->parent, n, &bad, &why))
		return af_diag_at_offset(d, AF_EINVAL, base + A, "child lists do not form a "
					 "tree rooted at bone 0");
	if (K != align4(A + run) || !zero_run(p, A + run, K))
		return af_diag_at_offset(d, AF_EINVAL, base + 2, "keyframe offset %zu, expected "
					 "%zu after zero fill", K, align4(A + run));
	return AF_OK;
}

static void pack_pose(const struct re_pose *ps, unsigned game, unsigned n, unsigned ks,
		      uint8_t *kf)
{
	unsigned H = re_kf_header(game);
	unsigned at = 0;
	if (game == RE_GAME2)
		for (int x = 0; x < 3; x++, at += 2)
			kf[at] = (uint8_t)ps->offset[x], kf[at + 1] = (uint8_t)(ps->offset[x] >> 8);
	for (int x = 0; x < 3; x++, at += 2)
		kf[at] = (uint8_t)ps->motion[x], kf[at + 1] = (uint8_t)(ps->motion[x] >> 8);
	if (game == RE_GAME3)
		kf[6] = (uint8_t)ps->y_offset, kf[7] = (uint8_t)(ps->y_offset >> 8);
	for (unsigned k = 0; k < 3 * n; k++)
		re_angle_put(kf + H, k, ps->codes[k]);
	if (ps->stray)
		stray_put(kf + H, n, re_stray_width(game, n, ks), ps->stray);
}

static int read_pool(const uint8_t *p, size_t len, size_t K, unsigned game, uint64_t base,
		     struct re_emr *m, struct af_arena *a, struct af_diag *d)
{
	const unsigned n = m->nbones, H = re_kf_header(game), ks = m->keyframe_size;
	const unsigned stray = re_stray_width(game, n, ks);
	const size_t plen = len - K;
	int rc = AF_OK;
	if (ks != re_kf_size(game, n))
		return af_diag_at_offset(d, AF_EINVAL, base + 6, "keyframe size %u does not match "
					 "%u bones (expected %u)", ks, n, re_kf_size(game, n));
	/* A partial keyframe at the end is kept as the pool's tail: it must not hide the
	 * whole ones before it. */
	m->nposes = plen / ks;
	m->tail_len = plen % ks;
	m->tail = p + len - m->tail_len;
	m->poses = af_arena_array(a, m->nposes ? m->nposes : 1, sizeof(*m->poses));
	uint16_t *codes = af_arena_array(a, m->nposes ? m->nposes : 1, 3 * (size_t)n * 2);
	uint8_t *kf = af_alloc(ks);
	if (!m->poses || !codes || !kf) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m->nposes; i++) {
		const uint8_t *src = p + K + i * ks;
		struct re_pose *ps = &m->poses[i];
		const uint8_t *mo = src + (game == RE_GAME2 ? 6 : 0);
		for (int x = 0; x < 3; x++) {
			ps->motion[x] = (int16_t)af_le16(mo + 2 * x);
			if (game == RE_GAME2)
				ps->offset[x] = (int16_t)af_le16(src + 2 * x);
		}
		if (game == RE_GAME3)
			ps->y_offset = (int16_t)af_le16(src + 6);
		ps->codes = codes + i * 3 * n;
		for (unsigned k = 0; k < 3 * n; k++)
			ps->codes[k] = re_angle_get(src + H, k);
		/* Bits after the last angle are zero in every sample; a pose with others
		 * (RE2 PL01W07.PLW, pose 291) keeps them as its own field, so that one
		 * pose never turns its whole bank into bytes. */
		ps->stray = stray_get(src + H, n, stray);
		/* every bit of the keyframe is a field now: re-pack and compare, a guard */
		memset(kf, 0, ks);
		pack_pose(ps, game, n, ks, kf);
		if (memcmp(kf, src, ks)) {
			rc = af_diag_at_offset(d, AF_EINVAL, base + K + i * ks, "keyframe %zu does "
					       "not rebuild from its fields", i);
			goto out;
		}
	}
out:
	free(kf);
	return rc;
}

int re_emr_decode(const uint8_t *p, size_t len, unsigned game, int seven, uint64_t base,
		     struct re_emr *m, struct af_arena *a, struct af_diag *d)
{
	memset(m, 0, sizeof(*m));
	if (len == 4 && zero_run(p, 0, 4)) {
		m->empty = 1;
		return AF_OK;
	}
	if (len < 8)
		return af_diag_at_offset(d, AF_EINVAL, base, "EMR of %zu bytes is shorter than "
					 "its 8-byte header", len);
	m->armature_offset = af_le16(p);
	size_t K = af_le16(p + 2);
	m->nbones = af_le16(p + 4);
	m->keyframe_size = af_le16(p + 6);
	if (m->nbones < 1 || m->nbones > 256 || K < 8 || K > len)
		return af_diag_at_offset(d, AF_EINVAL, base, "EMR header: %u bones, keyframes at "
					 "%zu in a %zu-byte section", m->nbones, K, len);
	m->has_skeleton = K > 8;
	if (m->has_skeleton) {
		int rc = read_skeleton(p, K, base, m, a, d);
		if (rc)
			return rc;
	}
	if (seven && m->nbones == 7 && m->keyframe_size == 40) {
		size_t plen = len - K;
		m->nposes = plen / RE_SEVEN_RECORD;
		m->tail_len = plen % RE_SEVEN_RECORD;
		m->tail = p + len - m->tail_len;
		m->recs = af_arena_array(a, m->nposes ? m->nposes : 1, sizeof(*m->recs));
		if (!m->recs)
			return af_diag_error(d, AF_ENOMEM, "out of memory");
		for (size_t i = 0; i < m->nposes; i++)
			re_rec7_get(p + K + i * RE_SEVEN_RECORD, &m->recs[i]);
		return AF_OK;
	}
	return read_pool(p, len, K, game, base, m, a, d);
}

int re_emr_encode(const struct re_emr *m, unsigned game, struct af_buf *out,
		     struct af_diag *d)
{
	const unsigned n = m->nbones;
	int rc = AF_OK;
	uint8_t *kf = NULL;
	if (m->empty)
		return af_buf_put_u32le(out, 0) ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
	size_t start = out->len;
	if (!m->has_skeleton) {
		af_buf_put_u16le(out, m->armature_offset);
		af_buf_put_u16le(out, 8);
		af_buf_put_u16le(out, (uint16_t)n);
		af_buf_put_u16le(out, m->keyframe_size);
	} else {
		size_t A = align4(8 + 6 * (size_t)n), C = 0;
		af_buf_put_u16le(out, (uint16_t)A);
		af_buf_put_u16le(out, 0); /* patched below */
		af_buf_put_u16le(out, (uint16_t)n);
		af_buf_put_u16le(out, m->keyframe_size);
		for (unsigned b = 0; b < n; b++)
			for (int x = 0; x < 3; x++)
				af_buf_put_u16le(out, (uint16_t)m->relpos[b][x]);
		af_buf_fill(out, 0, start + A - out->len);
		for (unsigned b = 0; b < n; b++) {
			unsigned cnt = 0;
			for (unsigned c = 1; c < n; c++)
				cnt += m->parent[c] == (int)b;
			af_buf_put_u16le(out, (uint16_t)cnt);
			af_buf_put_u16le(out, (uint16_t)(4 * n + C));
			C += cnt;
		}
		for (unsigned b = 0; b < n; b++)
			for (unsigned c = 1; c < n; c++)
				if (m->parent[c] == (int)b)
					af_buf_put_u8(out, (uint8_t)c);
		af_buf_fill(out, 0, start + align4(A + 4 * n + C) - out->len);
		if (!out->failed)
			af_buf_patch_u16le(out, start + 2, (uint16_t)(out->len - start));
	}
	if (m->opaque_pool) {
		af_buf_append(out, m->pool, m->pool_len);
	} else if (m->recs) {
		uint8_t r[RE_SEVEN_RECORD];
		for (size_t i = 0; i < m->nposes; i++) {
			re_rec7_put(&m->recs[i], r);
			af_buf_append(out, r, sizeof(r));
		}
	} else if (m->nposes) {
		const unsigned ks = m->keyframe_size;
		kf = af_alloc(ks);
		if (!kf)
			goto nomem;
		for (size_t i = 0; i < m->nposes; i++) {
			memset(kf, 0, ks);
			pack_pose(&m->poses[i], game, n, ks, kf);
			af_buf_append(out, kf, ks);
		}
	}
	af_buf_append(out, m->tail, m->tail_len);
	if (!out->failed)
		goto out;
nomem:
	rc = af_diag_error(d, AF_ENOMEM, "out of memory");
out:
	free(kf);
	return rc;
}
