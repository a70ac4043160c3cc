/* Diesel animation bytes <-> model: the 32-/64-bit in-place blob with every count
 * and offset checked before use, the layout style detection of spec 6.3, and the
 * writer that rebuilds with that style (the zlib container is in diesel_zlib.c). */
#include <stdio.h>
#include <string.h>

#include "animfs/bytes.h"
#include "diesel.h"

const struct diesel_type_info diesel_types[DSL_NTYPES] = {
	[DSL_POS_U16] = { "pos_u16", 0x1DC686E0u, 0, 12, 3, 0,
		"u16 codes, -1000..+1000 cm in steps of 0.0305 cm: [t, x, y, z] or [t, x, y, z, extra]" },
	[DSL_POS_F32] = { "pos_f32", 0x9D3DE40Du, 0, 16, 3, 0,
		"f32 centimetres: [t, x, y, z]" },
	[DSL_POS_F32_FLAG] = { "pos_f32_flag", 0x1196CFB2u, 0, 20, 3, 1,
		"f32 centimetres + u32 flag (0/1, meaning unknown): [t, x, y, z, flag]" },
	[DSL_ROT_F32] = { "rot_f32", 0x9DFB92B6u, 1, 20, 4, 0,
		"f32 quaternion, stored exactly as typed: [t, x, y, z, w]" },
	[DSL_ROT_PACKED] = { "rot_packed", 0x96ECB85Cu, 1, 8, 4, 0,
		"32-bit \"smallest three\" quaternion: [t, x, y, z, w] (or with the raw u32 code as a 6th value)" },
	[DSL_ROT_F32_FLAG] = { "rot_f32_flag", 0xE91A69BAu, 1, 24, 4, 1,
		"f32 quaternion + u32 flag: [t, x, y, z, w, flag]" },
};

int diesel_type_by_hash(uint32_t hash)
{
	for (int i = 0; i < DSL_NTYPES; i++)
		if (diesel_types[i].hash == hash)
			return i;
	return -1;
}

int diesel_type_by_name(const char *s, size_t n)
{
	for (int i = 0; i < DSL_NTYPES; i++)
		if (strlen(diesel_types[i].name) == n && !memcmp(diesel_types[i].name, s, n))
			return i;
	return -1;
}

void diesel_anim_defaults(struct diesel_anim *m, int width)
{
	memset(m, 0, sizeof(*m));
	m->width = width;
	m->container = width == 32 ? DSL_ZLIB : DSL_RAW;
	m->level = 6;
	m->magic[0] = 0x85, m->magic[1] = 0xCC, m->magic[2] = 0x83, m->magic[3] = 0x08;
	m->size_actual = 1;
	m->unk_same = 1;
	m->evoff_here = 1;
	m->name_pad = m->event_pad = m->track_align = (unsigned)width / 8;
	m->end_pad = 1;
	m->dedupe_events = 1;
}

static size_t align_up(size_t v, unsigned a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* ---------------------------------------------------------------- reading */

/* Offsets as found, for style detection. */
struct diesel_offs {
	uint64_t names, unk, events, pos, rot, first_hdr;
	uint64_t keys_end; /* the end of the last key bytes in the blob */
};

struct blobrd {
	const uint8_t *p;
	size_t n;
	unsigned w; /* word size: 4 or 8 */
	size_t hsize; /* header bytes: no table, string or key lies there */
	struct af_diag *d;
	struct af_arena *a;
	uint64_t str_total; /* bytes of all strings referenced (bounds aliasing blow-ups) */
	uint64_t key_total;
	uint64_t keys_end;
};

static uint64_t word(const struct blobrd *r, uint64_t off)
{
	return r->w == 4 ? af_le32(r->p + off) : af_le64(r->p + off);
}

/* count entries of size bytes at off, as claimed by the field at byte field */
static int need(struct blobrd *r, uint64_t field, uint64_t off, uint64_t count, uint64_t size,
		const char *what)
{
	if (off > r->n)
		return af_diag_at_offset(r->d, AF_EINVAL, field,
					 "%s: offset 0x%llx is outside the %zu-byte blob", what,
					 (unsigned long long)off, r->n);
	uint64_t left = r->n - off;
	if (count && off < r->hsize)
		return af_diag_at_offset(r->d, AF_EINVAL, field,
					 "%s: offset 0x%llx points into the %zu-byte header", what,
					 (unsigned long long)off, r->hsize);
	if (count > left / size)
		return af_diag_at_offset(r->d, AF_EINVAL, field,
					 "%s claim %llu entries of %llu bytes, %llu bytes remain",
					 what, (unsigned long long)count, (unsigned long long)size,
					 (unsigned long long)left);
	return 0;
}

static int read_str(struct blobrd *r, uint64_t field, uint64_t off, const char **s, size_t *len,
		    const char *what)
{
	if (off >= r->n)
		return af_diag_at_offset(r->d, AF_EINVAL, field,
					 "%s: string offset 0x%llx is outside the %zu-byte blob",
					 what, (unsigned long long)off, r->n);
	if (off < r->hsize)
		return af_diag_at_offset(r->d, AF_EINVAL, field,
					 "%s: string offset 0x%llx points into the %zu-byte header",
					 what, (unsigned long long)off, r->hsize);
	const uint8_t *nul = memchr(r->p + off, 0, r->n - (size_t)off);
	if (!nul)
		return af_diag_at_offset(r->d, AF_EINVAL, field,
					 "%s: the string at 0x%llx has no NUL before the end of the blob",
					 what, (unsigned long long)off);
	*s = (const char *)r->p + off;
	*len = (size_t)(nul - (r->p + off));
	r->str_total += *len + 1;
	if (r->str_total > (uint64_t)r->n * 4)
		return af_diag_at_offset(r->d, AF_EINVAL, field,
					 "%s: strings are referenced far more often than the blob could hold (aliasing)",
					 what);
	return 0;
}

static void read_keys(const uint8_t *p, int type, uint32_t n, struct diesel_key *k)
{
	unsigned stride = diesel_types[type].stride;
	for (uint32_t i = 0; i < n; i++, p += stride, k++) {
		k->t = af_f32_from_bits(af_le32(p));
		switch (type) {
		case DSL_POS_U16:
			for (int j = 0; j < 4; j++)
				k->c[j] = af_le16(p + 4 + 2 * j);
			break;
		case DSL_ROT_PACKED:
			k->u = af_le32(p + 4);
			break;
		default: {
			unsigned nf = diesel_types[type].nval;
			for (unsigned j = 0; j < nf; j++)
				k->f[j] = af_f32_from_bits(af_le32(p + 4 + 4 * j));
			if (diesel_types[type].has_flag)
				k->u = af_le32(p + 4 + 4 * nf);
		}
		}
	}
}

static int read_tracks(struct blobrd *r, uint64_t field, uint64_t tab, uint32_t count, int rot,
		       struct diesel_anim *m, uint64_t *first_hdr)
{
	const char *slot = rot ? "rotation" : "position";
	unsigned w = r->w, ts = 2 * w, hs = 3 * w;
	int rc = need(r, field, tab, count, ts, rot ? "rotation tracks" : "position tracks");
	for (uint32_t i = 0; !rc && i < count; i++) {
		uint64_t e = tab + (uint64_t)i * ts;
		uint64_t hash = word(r, e), hdr = word(r, e + w);
		int type = hash > UINT32_MAX ? -1 : diesel_type_by_hash((uint32_t)hash);
		if (type < 0)
			return af_diag_at_offset(r->d, AF_EUNSUP, e,
						 "%s track %u (%.*s): unknown track type hash 0x%08llX (key size unknown)",
						 slot, i, (int)m->obj[i].name_len, m->obj[i].name,
						 (unsigned long long)hash);
		if (diesel_types[type].is_rot != rot)
			return af_diag_at_offset(r->d, AF_EINVAL, e,
						 "%s track %u (%.*s) has the %s type %s",
						 slot, i, (int)m->obj[i].name_len, m->obj[i].name,
						 rot ? "position" : "rotation", diesel_types[type].name);
		if ((rc = need(r, e + w, hdr, 1, hs, "track header")))
			return rc;
		if (i == 0)
			*first_hdr = hdr;
		struct diesel_track *t = rot ? &m->obj[i].rot : &m->obj[i].pos;
		uint64_t nk = word(r, hdr + w), koff = word(r, hdr + 2 * w);
		unsigned stride = diesel_types[type].stride;
		if (nk == 0)
			return af_diag_at_offset(r->d, AF_EUNSUP, hdr + w,
						 "%s track %u (%.*s) has no keys (never seen in real files)",
						 slot, i, (int)m->obj[i].name_len, m->obj[i].name);
		if ((rc = need(r, hdr + 2 * w, koff, nk, stride, "keys")))
			return rc;
		r->key_total += nk * stride;
		if (koff + nk * stride > r->keys_end)
			r->keys_end = koff + nk * stride;
		if (r->key_total > r->n)
			return af_diag_at_offset(r->d, AF_EINVAL, hdr + w,
						 "%s track %u: tracks claim more key bytes than the blob holds (overlapping tracks)",
						 slot, i);
		t->type = type;
		t->reserved = word(r, hdr);
		t->nkeys = (uint32_t)nk;
		t->keys_off = koff;
		t->keys = af_arena_array(r->a, t->nkeys, sizeof(*t->keys));
		if (!t->keys)
			return af_diag_error(r->d, AF_ENOMEM, "out of memory");
		read_keys(r->p + koff, type, t->nkeys, t->keys);
	}
	return rc;
}

static int read_events(struct blobrd *r, uint64_t field, uint64_t off, uint64_t count,
		       struct diesel_anim *m)
{
	unsigned es = r->w == 4 ? 8 : 16;
	int rc = need(r, field, off, count, es, "events");
	if (rc || count == 0)
		return rc;
	struct diesel_strset set;
	int saw_shared = 0, saw_copy = 0;
	m->nev = (uint32_t)count;
	m->ev = af_arena_array(r->a, m->nev, sizeof(*m->ev));
	if (!m->ev || diesel_strset_init(&set, r->a, m->nev))
		return af_diag_error(r->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < m->nev; i++) {
		uint64_t e = off + (uint64_t)i * es, so = r->w == 4 ? af_le32(r->p + e + 4)
								     : af_le64(r->p + e + 8);
		struct diesel_event *ev = &m->ev[i];
		int found;
		ev->frac = af_f32_from_bits(af_le32(r->p + e));
		ev->off = e;
		if ((rc = read_str(r, e + (r->w == 4 ? 4 : 8), so, &ev->name, &ev->name_len,
				   "event name")))
			return rc;
		size_t slot = diesel_strset_put(&set, ev->name, ev->name_len, &found);
		if (!found)
			set.val[slot] = so;
		else if (set.val[slot] == so)
			saw_shared = 1;
		else
			saw_copy = 1;
	}
	/* a repeated name with its own copy means the writer does not de-duplicate */
	m->dedupe_events = saw_copy && !saw_shared ? 0 : 1;
	m->dedupe_known = saw_copy || saw_shared;
	return 0;
}

static int parse_blob(const uint8_t *p, size_t n, unsigned w, struct af_arena *a,
		      struct diesel_anim *m, struct diesel_offs *o, struct af_diag *d)
{
	size_t hsize = w == 4 ? 60 : 120, tbl = w == 4 ? 0x14 : 0x28;
	struct blobrd r = { p, n, w, hsize, d, a, 0, 0, 0 };
	uint64_t cnt[5], off[5];
	int rc;
	diesel_anim_defaults(m, (int)w * 8);
	if (n < hsize)
		return af_diag_at_offset(d, AF_EINVAL, 0,
					 "blob is %zu bytes, shorter than the %zu-byte %u-bit header",
					 n, hsize, w * 8);
	memcpy(m->magic, p, 4);
	m->version = af_le32(p + 4);
	if (w == 4) {
		m->location = af_le32(p + 8);
		m->size_value = af_le32(p + 12);
		m->length = af_f32_from_bits(af_le32(p + 16));
	} else {
		m->location = af_le64(p + 8);
		m->size_value = af_le64(p + 16);
		m->hpad0 = af_le64(p + 24);
		m->length = af_f32_from_bits(af_le32(p + 32));
		m->hpad1 = af_le32(p + 36);
	}
	m->size_actual = m->size_value == n;
	for (int i = 0; i < 5; i++) {
		cnt[i] = word(&r, tbl + (size_t)i * 2 * w);
		off[i] = word(&r, tbl + (size_t)i * 2 * w + w);
	}
	o->names = off[0], o->unk = off[1], o->events = off[2], o->pos = off[3], o->rot = off[4];
	o->first_hdr = 0;
	if (cnt[1] != 0)
		return af_diag_at_offset(d, AF_EUNSUP, tbl + 2 * w,
					 "the beat-time section has %llu entries; its layout is unknown",
					 (unsigned long long)cnt[1]);
	/* every claim against the real size first, then the count equality */
	if ((rc = need(&r, tbl, off[0], cnt[0], w, "object names")) ||
	    (rc = need(&r, tbl + 4 * w, off[2], cnt[2], w == 4 ? 8 : 16, "events")) ||
	    (rc = need(&r, tbl + 6 * w, off[3], cnt[3], 2 * w, "position tracks")) ||
	    (rc = need(&r, tbl + 8 * w, off[4], cnt[4], 2 * w, "rotation tracks")))
		return rc;
	if (cnt[0] != cnt[3] || cnt[0] != cnt[4])
		return af_diag_at_offset(d, AF_EUNSUP, tbl,
					 "%llu object names but %llu position and %llu rotation tracks; they must be equal",
					 (unsigned long long)cnt[0], (unsigned long long)cnt[3],
					 (unsigned long long)cnt[4]);
	m->nobj = (uint32_t)cnt[0];
	m->obj = af_arena_array(a, m->nobj ? m->nobj : 1, sizeof(*m->obj));
	if (!m->obj)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < m->nobj; i++) {
		uint64_t e = off[0] + (uint64_t)i * w;
		if ((rc = read_str(&r, e, word(&r, e), &m->obj[i].name, &m->obj[i].name_len,
				   "object name")))
			return rc;
	}
	if ((rc = read_events(&r, tbl + 4 * w, off[2], cnt[2], m)))
		return rc;
	if ((rc = read_tracks(&r, tbl + 6 * w, off[3], m->nobj, 0, m, &o->first_hdr)))
		return rc;
	uint64_t unused;
	rc = read_tracks(&r, tbl + 8 * w, off[4], m->nobj, 1, m, &unused);
	o->keys_end = r.keys_end;
	return rc;
}

/* ---------------------------------------------------------------- style */

static size_t names_end(const struct diesel_anim *m)
{
	size_t w = (size_t)m->width / 8, end = (w == 4 ? 60 : 120) + w * m->nobj;
	for (uint32_t i = 0; i < m->nobj; i++)
		end += m->obj[i].name_len + 1;
	return end;
}

static size_t events_end(const struct diesel_anim *m, size_t start, struct af_arena *a)
{
	size_t end = start + (size_t)(m->width == 32 ? 8 : 16) * m->nev;
	struct diesel_strset set;
	int found = 0;
	if (m->dedupe_events && diesel_strset_init(&set, a, m->nev))
		return 0;
	for (uint32_t i = 0; i < m->nev; i++) {
		if (m->dedupe_events)
			diesel_strset_put(&set, m->ev[i].name, m->ev[i].name_len, &found);
		if (!found)
			end += m->ev[i].name_len + 1;
	}
	return end;
}

static unsigned first_align(size_t from, uint64_t to, unsigned dflt)
{
	const unsigned cand[5] = { dflt, 1, 4, 8, 2 };
	for (int i = 0; i < 5; i++)
		if (align_up(from, cand[i]) == to)
			return cand[i];
	return dflt;
}

/* Zero bytes from the end of the last key to an alignment that ends the blob
 * (diesel-x64.md 5, end_pad); 1 when there are none. */
static unsigned detect_end_pad(const uint8_t *p, size_t n, uint64_t keys_end, unsigned dflt)
{
	const unsigned cand[4] = { dflt, 4, 2, 8 };
	if (keys_end >= n)
		return 1;
	for (size_t i = (size_t)keys_end; i < n; i++)
		if (p[i])
			return 1;
	for (int i = 0; i < 4; i++)
		if (align_up((size_t)keys_end, cand[i]) == n)
			return cand[i];
	return 1;
}

/* Greedy, in file order, stock values first (spec 6.3). */
static void detect_style(struct diesel_anim *m, const struct diesel_offs *o, const uint8_t *p, size_t n,
			 struct af_arena *a)
{
	unsigned w = (unsigned)m->width / 8;
	size_t end = names_end(m);
	uint64_t target = m->nev == 0 && o->events == 0 ? o->pos : o->events;
	m->name_pad = first_align(end, target, w);
	size_t here = align_up(end, m->name_pad);
	if (m->nev == 0) {
		m->evoff_here = o->events == here;
		m->evoff_value = o->events;
	}
	m->unk_same = o->unk == o->events;
	m->unk_value = o->unk;
	size_t ev_start = m->nev || m->evoff_here ? here : (size_t)o->events;
	m->event_pad = first_align(events_end(m, m->nev ? ev_start : here, a), o->pos, w);
	if (m->nobj)
		m->track_align = first_align(o->pos + (uint64_t)2 * w * m->nobj, o->first_hdr, w);
	m->end_pad = detect_end_pad(p, n, o->keys_end, w);
	/* A 64-bit file with one mark of the community converter (final padding,
	 * copied event names) takes its values for the undecidable keys too, so an
	 * edit is laid out as the converter would (diesel-x64.md 5). */
	if (m->width == 64 && (m->end_pad > 1 || (m->dedupe_known && !m->dedupe_events))) {
		if (m->end_pad == 1 && o->keys_end == n && n % 8 == 0)
			m->end_pad = 8;
		if (!m->dedupe_known)
			m->dedupe_events = 0;
	}
}

/* ---------------------------------------------------------------- container */

static int zlib_header_ok(const uint8_t *p, size_t n)
{
	return n >= 2 && p[0] == 0x78 && (p[0] * 256 + p[1]) % 31 == 0 && !(p[1] & 0x20);
}

size_t diesel_blob_size(const uint8_t *bin, size_t n)
{
	if (!zlib_header_ok(bin, n))
		return n;
	uint32_t want = n >= 6 ? af_le32(bin + n - 4) : 0;
	/* a trailer no zlib stream of this size can keep: the decode says why by itself */
	return want <= DSL_MAX_BLOB && (uint64_t)want <= (uint64_t)(n - 4) * DSL_MAX_RATIO ? want : 0;
}

static int magic_ok(const uint8_t *p, size_t n)
{
	static const uint8_t le[4] = { 0x85, 0xCC, 0x83, 0x08 }, sw[4] = { 0x08, 0x83, 0xCC, 0x85 };
	return n >= 4 && (!memcmp(p, le, 4) || !memcmp(p, sw, 4));
}

static void copy_diag(struct af_diag *to, const struct af_diag *from)
{
	if (from->offset >= 0)
		af_diag_at_offset(to, from->code, (uint64_t)from->offset, "%s", from->msg);
	else
		af_diag_error(to, from->code, "%s", from->msg);
}

static int build_blob(const struct diesel_anim *m, const uint8_t *src, struct af_buf *out,
		      struct af_diag *d);

/* The layout must rebuild byte for byte before the file is shown as editable
 * (spec 6.3, "verify at load time"). The key bytes are copied from the blob rather
 * than written value by value: read_keys took every byte of each key into the model
 * and write_keys puts them back unchanged, so only where they land is in question. */
static int verify_rebuild(const struct diesel_anim *m, const uint8_t *blob, size_t n,
			  struct af_diag *d)
{
	struct af_buf re = AF_BUF_INIT;
	int rc = af_buf_reserve(&re, n) ? af_diag_error(d, AF_ENOMEM, "out of memory")
					: build_blob(m, blob, &re, d);
	if (!rc && (re.len != n || memcmp(re.data, blob, n))) {
		size_t i = 0, lim = re.len < n ? re.len : n;
		while (i < lim && re.data[i] == blob[i])
			i++;
		rc = af_diag_at_offset(d, AF_EUNSUP, i,
				       "the animation decodes, but its layout does not rebuild byte for byte "
				       "(first difference here, %zu bytes rebuilt for %zu); animfs cannot write it back",
				       re.len, n);
	}
	af_buf_free(&re);
	return rc;
}

/* track_align is detected from the first track header only; when a later track
 * contradicts it (an aligned-by-chance start), the other values are tried. */
static int verify_style(struct diesel_anim *m, const uint8_t *p, size_t n, struct af_diag *d)
{
	const unsigned cand[4] = { 4, 8, 2, 1 };
	int rc = verify_rebuild(m, p, n, d);
	for (int i = 0; rc == AF_EUNSUP && i < 4; i++) {
		struct diesel_anim t = *m;
		struct af_diag dd;
		if (cand[i] == m->track_align)
			continue;
		t.track_align = cand[i];
		af_diag_init(&dd);
		if (!verify_rebuild(&t, p, n, &dd)) {
			m->track_align = cand[i];
			af_diag_clear(d);
			rc = 0;
		}
		af_diag_free(&dd);
	}
	return rc;
}

/* Parse both widths; keep the best-ranked reading that also rebuilds exactly
 * (spec 2, "Width": never decide by the size field alone). A blob whose 64-bit
 * size field holds its length is 64-bit: read as 32-bit it would be an empty
 * animation, so only the 64-bit reading's checks are reported (diesel-x64.md 4).
 * When no reading rebuilds, the best one that looks like a real header (names
 * right after it) is returned with DSL_READONLY and the reason in d. */
static int parse_either(const uint8_t *p, size_t n, struct af_arena *a, struct diesel_anim *m,
			struct af_diag *d)
{
	struct diesel_anim r[2];
	struct diesel_offs o[2];
	struct af_diag dd[2];
	int rc[2], first, done = 0, view = -1;
	int says64 = n >= 120 && af_le64(p + 16) == n && af_le32(p + 12) != n;
	af_diag_init(&dd[0]);
	af_diag_init(&dd[1]);
	rc[0] = says64 ? af_diag_at_offset(&dd[0], AF_EINVAL, 16, "a 64-bit blob")
		       : parse_blob(p, n, 4, a, &r[0], &o[0], &dd[0]);
	rc[1] = n >= 120 ? parse_blob(p, n, 8, a, &r[1], &o[1], &dd[1])
			 : af_diag_at_offset(&dd[1], AF_EINVAL, 0, "too short for the 64-bit header");
	if (rc[0] && rc[1]) {
		/* report the reading whose size field matches, else the 32-bit one */
		first = says64;
		copy_diag(d, &dd[first]);
		done = rc[first];
		goto out;
	}
	if (!rc[0] && !rc[1]) {
		int s4 = r[0].size_actual * 4 + (o[0].names == 60) * 2 + (r[0].nobj != 0);
		int s8 = r[1].size_actual * 4 + (o[1].names == 120) * 2 + (r[1].nobj != 0);
		first = s8 > s4;
	} else {
		first = rc[0] ? 1 : 0;
	}
	for (int i = 0; i < 2; i++) {
		int k = i ? !first : first;
		if (rc[k])
			continue;
		af_diag_clear(&dd[k]);
		detect_style(&r[k], &o[k], p, n, a);
		if (!(rc[k] = verify_style(&r[k], p, n, &dd[k]))) {
			*m = r[k];
			done = 0;
			goto out;
		}
		if (view < 0 && rc[k] == AF_EUNSUP && o[k].names == (k ? 120u : 60u))
			view = k;
		if (i == 0)
			done = k + 1; /* report the first candidate's failure */
	}
	if (view >= 0) {
		*m = r[view];
		copy_diag(d, &dd[view]);
		done = DSL_READONLY;
		goto out;
	}
	copy_diag(d, &dd[done - 1]);
	done = rc[done - 1];
out:
	af_diag_free(&dd[0]);
	af_diag_free(&dd[1]);
	return done;
}

int diesel_read(const uint8_t *bin, size_t n, struct af_arena *a, struct diesel_anim *m,
	     struct af_buf *blob, struct af_diag *d)
{
	struct diesel_anim tmp;
	const uint8_t *p = bin;
	size_t np = n;
	int rc;
	diesel_anim_defaults(&tmp, 32);
	if (zlib_header_ok(bin, n)) {
		if ((rc = diesel_unzip(bin, n, &tmp, blob, d)))
			return rc;
		p = blob->data, np = blob->len;
		if (!magic_ok(p, np))
			return af_diag_at_offset(d, AF_EINVAL, 0,
						 "the inflated data does not start with the animation magic 85 CC 83 08");
	} else if (magic_ok(bin, n)) {
		tmp.container = DSL_RAW;
	} else {
		return af_diag_at_offset(d, AF_EINVAL, 0,
					 "not a Diesel animation: neither a zlib stream (78 9C ...) nor a raw blob (85 CC 83 08 ...)");
	}
	if ((rc = parse_either(p, np, a, m, d)) < 0) {
		char t[sizeof(d->msg)];
		int64_t off = d->offset;
		if (p[0] == 0x08 && rc == AF_EINVAL) {
			snprintf(t, sizeof(t),
				 "byte-swapped magic and not readable as little-endian: a big-endian (console) file? Not supported (%.600s)",
				 d->msg);
			rc = AF_EUNSUP;
		} else if (tmp.container == DSL_ZLIB && off >= 0) {
			snprintf(t, sizeof(t), "in the inflated data: %.700s", d->msg);
		} else {
			return rc;
		}
		af_diag_clear(d);
		if (off >= 0)
			return af_diag_at_offset(d, rc, (uint64_t)off, "%s", t);
		return af_diag_error(d, rc, "%s", t);
	}
	m->container = tmp.container;
	m->level = tmp.level;
	m->zhdr_custom = tmp.zhdr_custom;
	memcpy(m->zhdr, tmp.zhdr, 2);
	m->zextra = tmp.zextra, m->nzextra = tmp.nzextra;
	m->zstream = tmp.zstream, m->nzstream = tmp.nzstream;
	m->blob = p;
	return rc; /* 0 or DSL_READONLY */
}

/* ---------------------------------------------------------------- writing */

struct wr {
	struct af_buf *b;
	unsigned w;
	const uint8_t *src; /* the blob the model was read from (its keys_off are valid), or NULL */
};

static void put_word(struct wr *o, uint64_t v)
{
	if (o->w == 4)
		af_buf_put_u32le(o->b, (uint32_t)v);
	else
		af_buf_put_u64le(o->b, v);
}

static void patch_word(struct wr *o, size_t at, uint64_t v)
{
	if (o->w == 4)
		af_buf_patch_u32le(o->b, at, (uint32_t)v);
	else
		af_buf_patch_u64le(o->b, at, v);
}

static void write_keys(struct af_buf *b, const struct diesel_track *t)
{
	const struct diesel_type_info *ti = &diesel_types[t->type];
	for (uint32_t i = 0; i < t->nkeys; i++) {
		const struct diesel_key *k = &t->keys[i];
		af_buf_put_f32le(b, k->t);
		if (t->type == DSL_POS_U16) {
			for (int j = 0; j < 4; j++)
				af_buf_put_u16le(b, k->c[j]);
		} else if (t->type == DSL_ROT_PACKED) {
			af_buf_put_u32le(b, k->u);
		} else {
			for (unsigned j = 0; j < ti->nval; j++)
				af_buf_put_f32le(b, k->f[j]);
			if (ti->has_flag)
				af_buf_put_u32le(b, k->u);
		}
	}
}

static size_t write_tracks(struct wr *o, const struct diesel_anim *m, int rot)
{
	size_t tab = o->b->len;
	af_buf_fill(o->b, 0, (size_t)2 * o->w * m->nobj);
	for (uint32_t i = 0; i < m->nobj; i++) {
		const struct diesel_track *t = rot ? &m->obj[i].rot : &m->obj[i].pos;
		af_buf_align(o->b, m->track_align);
		size_t hdr = o->b->len;
		if (o->b->failed)
			return 0;
		patch_word(o, tab + (size_t)2 * o->w * i, diesel_types[t->type].hash);
		patch_word(o, tab + (size_t)2 * o->w * i + o->w, hdr);
		put_word(o, t->reserved);
		put_word(o, t->nkeys);
		put_word(o, hdr + 3 * o->w);
		if (o->src) /* the keys were read from these bytes, field by field: the same */
			af_buf_append(o->b, o->src + t->keys_off,
				      (size_t)t->nkeys * diesel_types[t->type].stride);
		else
			write_keys(o->b, t);
	}
	return tab;
}

static int write_events(struct wr *o, const struct diesel_anim *m, struct af_arena *a)
{
	size_t es = o->w == 4 ? 8 : 16, tab = o->b->len;
	struct diesel_strset set;
	if (m->dedupe_events && diesel_strset_init(&set, a, m->nev))
		return AF_ENOMEM;
	af_buf_fill(o->b, 0, es * m->nev);
	for (uint32_t i = 0; i < m->nev && !o->b->failed; i++) {
		const struct diesel_event *ev = &m->ev[i];
		size_t at = o->b->len, slot = 0;
		int found = 0;
		if (m->dedupe_events) {
			slot = diesel_strset_put(&set, ev->name, ev->name_len, &found);
			if (found)
				at = (size_t)set.val[slot];
			else
				set.val[slot] = at;
		}
		if (!found) {
			af_buf_append(o->b, ev->name, ev->name_len);
			af_buf_putc(o->b, 0);
		}
		if (o->b->failed)
			break;
		af_buf_patch_u32le(o->b, tab + es * i, af_f32_bits(ev->frac));
		patch_word(o, tab + es * i + (o->w == 4 ? 4 : 8), at);
	}
	return o->b->failed ? AF_ENOMEM : 0;
}

static int build_blob(const struct diesel_anim *m, const uint8_t *src, struct af_buf *out,
		      struct af_diag *d)
{
	struct wr o = { out, (unsigned)m->width / 8, src };
	struct af_arena a;
	size_t hsize = o.w == 4 ? 60 : 120, tbl = o.w == 4 ? 0x14 : 0x28;
	int rc = AF_OK;
	af_arena_init(&a);
	af_buf_reset(out);
	af_buf_fill(out, 0, hsize);
	af_buf_fill(out, 0, (size_t)o.w * m->nobj);
	for (uint32_t i = 0; i < m->nobj && !out->failed; i++) {
		patch_word(&o, hsize + (size_t)o.w * i, out->len);
		af_buf_append(out, m->obj[i].name, m->obj[i].name_len);
		af_buf_putc(out, 0);
	}
	af_buf_align(out, m->name_pad);
	size_t here = out->len;
	uint64_t ev_off = m->nev || m->evoff_here ? here : m->evoff_value;
	if ((rc = write_events(&o, m, &a)))
		goto out;
	af_buf_align(out, m->event_pad);
	size_t pos = write_tracks(&o, m, 0);
	af_buf_align(out, m->track_align);
	size_t rot = write_tracks(&o, m, 1);
	af_buf_align(out, m->end_pad);
	if (out->failed) {
		rc = AF_ENOMEM;
		goto out;
	}
	if (o.w == 4 && out->len > UINT32_MAX) {
		rc = af_diag_error(d, AF_EINVAL, "the animation is too large for the 32-bit layout");
		goto out;
	}
	memcpy(out->data, m->magic, 4);
	af_buf_patch_u32le(out, 4, m->version);
	patch_word(&o, 8, m->location);
	patch_word(&o, o.w == 4 ? 12 : 16, m->size_actual ? out->len : m->size_value);
	if (o.w == 8) {
		af_buf_patch_u64le(out, 24, m->hpad0);
		af_buf_patch_u32le(out, 36, m->hpad1);
	}
	af_buf_patch_u32le(out, o.w == 4 ? 16 : 32, af_f32_bits(m->length));
	const uint64_t sec[5][2] = { { m->nobj, hsize },
				     { 0, m->unk_same ? ev_off : m->unk_value },
				     { m->nev, ev_off },
				     { m->nobj, pos },
				     { m->nobj, rot } };
	for (int i = 0; i < 5; i++) {
		patch_word(&o, tbl + (size_t)i * 2 * o.w, sec[i][0]);
		patch_word(&o, tbl + (size_t)i * 2 * o.w + o.w, sec[i][1]);
	}
out:
	if (rc == AF_ENOMEM)
		af_diag_error(d, AF_ENOMEM, "out of memory while building the animation");
	af_arena_free(&a);
	return rc;
}

int diesel_build_blob(const struct diesel_anim *m, struct af_buf *out, struct af_diag *d)
{
	return build_blob(m, NULL, out, d);
}

int diesel_write(const struct diesel_anim *m, const struct af_io *io, struct af_buf *out,
	      struct af_diag *d)
{
	struct af_buf blob = AF_BUF_INIT;
	int rc = diesel_build_blob(m, &blob, d);
	if (rc)
		goto out;
	if (m->container == DSL_ZLIB)
		rc = diesel_zlib_write(m, &blob, io, out, d);
	else if (af_buf_append(out, blob.data, blob.len))
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
out:
	af_buf_free(&blob);
	return rc;
}
