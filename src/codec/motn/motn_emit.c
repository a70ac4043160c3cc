/* Shenmue MOTN: model -> YAML text. Written straight into the af_buf with hand-rolled
 * integer writers and a process-wide cache of half-float texts (about a million values in
 * motion.bin, but only 31,567 distinct halves), so no per-value printf. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/num.h"
#include "animfs/yamlio.h"
#include "motn.h"

/* Shortest round-trip text of each half, computed on first use and kept for the life of
 * the process (a mount renders many times). Lock-free and race-free: whoever claims an
 * entry (EMPTY -> BUSY) writes it and publishes it (READY, release); a reader that finds
 * it not READY formats the value itself. */
enum { HALF_EMPTY, HALF_BUSY, HALF_READY };
static atomic_uchar half_state[65536];
static uint8_t half_len[65536];
static char half_txt[65536][14];

struct emit {
	struct af_buf *b;
	uint32_t *name_first, *name_next; /* per block: entries using it, in table order */
};

static char *put_uint(char *o, uint32_t v)
{
	char t[10];
	int n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*o++ = t[--n];
	return o;
}

static char *put_half(char *o, uint16_t h)
{
	static const char hx[] = "0123456789ABCDEF";
	if ((h & 0x7C00) == 0x7C00) { /* inf/NaN: only the raw-bits form reads back */
		*o++ = '0';
		*o++ = 'x';
		for (int s = 12; s >= 0; s -= 4)
			*o++ = hx[h >> s & 15];
		return o;
	}
	if (atomic_load_explicit(&half_state[h], memory_order_acquire) == HALF_READY) {
		memcpy(o, half_txt[h], half_len[h]);
		return o + half_len[h];
	}
	size_t n = af_fmt_f16(o, h); /* at most 11 characters for a finite half */
	unsigned char empty = HALF_EMPTY;
	if (n <= sizeof(half_txt[h]) &&
	    atomic_compare_exchange_strong_explicit(&half_state[h], &empty, HALF_BUSY,
						    memory_order_acquire, memory_order_relaxed)) {
		memcpy(half_txt[h], o, n);
		half_len[h] = (uint8_t)n;
		atomic_store_explicit(&half_state[h], HALF_READY, memory_order_release);
	}
	return o + n;
}

static void hex_id(struct af_buf *b, uint32_t v)
{
	int digits = 1;
	while (digits < 8 && v >> (4 * digits))
		digits++;
	af_y_hex(b, v, digits);
}

/* Opaque bytes as one quoted line, 4 bytes a group. */
static void hex_inline(struct af_buf *b, const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	if (af_buf_reserve(b, 3 * n + 2))
		return;
	char *o = (char *)b->data + b->len;
	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		if (i && i % 4 == 0)
			*o++ = ' ';
		*o++ = hx[p[i] >> 4];
		*o++ = hx[p[i] & 15];
	}
	*o++ = '"';
	b->len = (size_t)(o - (char *)b->data);
}

int motn_name_ascii(const struct motn_entry *en)
{
	for (size_t i = 0; i < en->name_len; i++)
		if (en->name[i] < 0x20 || en->name[i] >= 0x7F)
			return 0;
	return 1;
}

static void put_name(struct af_buf *b, const struct motn_entry *en, const char *key)
{
	af_buf_puts(b, key);
	if (motn_name_ascii(en)) {
		af_buf_puts(b, ": ");
		af_y_str(b, en->name, en->name_len);
	} else { /* any byte, carried exactly */
		af_buf_puts(b, "_hex: ");
		hex_inline(b, (const uint8_t *)en->name, en->name_len);
	}
}

struct stats {
	uint32_t decoded, raw, orphans, chans, flat, ublocks, uextras, upairs, baked, nodes;
	uint64_t types[4];
};

static int cmp_pair(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int count(const struct motn_file *f, const struct emit *e, struct stats *st)
{
	uint64_t *pairs = af_alloc(f->nentries * sizeof(*pairs));
	memset(st, 0, sizeof(*st));
	if (!pairs)
		return AF_ENOMEM;
	for (uint32_t i = 0; i < f->nentries; i++)
		pairs[i] = (uint64_t)f->entries[i].block << 32 | f->entries[i].extra;
	qsort(pairs, f->nentries, sizeof(*pairs), cmp_pair);
	for (uint32_t i = 0; i < f->nentries; i++)
		st->upairs += !i || pairs[i] != pairs[i - 1];
	free(pairs);
	for (uint32_t i = 0; i < f->nextras; i++)
		st->uextras += f->extras[i].referenced;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		const struct motn_block *bl = &f->blocks[i];
		st->ublocks += e->name_first[i] != UINT32_MAX;
		st->orphans += bl->orphan;
		if (bl->raw) {
			st->raw++;
			continue;
		}
		st->decoded++;
		st->baked += bl->kind == MOTN_BAKED;
		st->nodes += bl->kind == MOTN_NODES;
		for (uint32_t k = 0; k < bl->seq.nbones; k++)
			for (int c = 0; c < MOTN_NCH; c++) {
				const struct motn_chan *ch = &bl->seq.bones[k].ch[c];
				if (!(bl->seq.bones[k].mask & (1u << c)))
					continue;
				st->chans++;
				st->flat += ch->nkeys == 2 && !ch->keys[0].type && !ch->keys[1].type;
				for (uint32_t j = 0; j < ch->nkeys; j++)
					st->types[ch->keys[j].type]++;
			}
	}
	return 0;
}

static void emit_head(const struct motn_file *f, const char *filename, const struct stats *st,
		      struct af_buf *b)
{
	af_buf_printf(b, "# animfs view of a Shenmue MOTN motion bank%s%s\n"
		      "# %u entries -> %u distinct blocks, %u distinct extra blobs, %u distinct "
		      "(block, extra) pairs\n"
		      "# %u blocks: %u decoded (%u sequences, %u baked, %u node), %u raw, %u orphans; %u "
		      "channels (%u just [[0, 0], [F-1, 0]]); keys by type 0/1/2/3: %llu/%llu/%llu/%llu\n",
		      filename ? ": " : "", filename ? filename : "", f->nentries, st->ublocks,
		      st->uextras, st->upairs, f->nblocks, st->decoded,
		      st->decoded - st->baked - st->nodes, st->baked, st->nodes, st->raw, st->orphans, st->chans,
		      st->flat, (unsigned long long)st->types[0], (unsigned long long)st->types[1],
		      (unsigned long long)st->types[2], (unsigned long long)st->types[3]);
	af_buf_puts(b,
		    "# A key is [frame, type, value, slopes]: [f, 0] has no value, [f, 1, value],\n"
		    "# [f, 2, value, slope], [f, 3, value, in_slope, out_slope]. Numbers are half floats\n"
		    "# printed as the shortest decimal that reads back to the same bits (0xHHHH = raw\n"
		    "# bits).\n"
		    "# Rotations of sequences in turns (1.0 = 360 degrees), translations in model units,\n"
		    "# slopes per second, 30 fps. 'baked:' and 'nodes:' blocks (rig word bit 15) hold one\n"
		    "# value a frame; their angles are integers, 65536 = one turn. Blocks with 'raw:' are\n"
		    "# non-canonical encodings kept verbatim (hex, read-only); extra data is opaque hex.\n"
		    "# Reference: docs/shenmue-motn.md\n"
		    "format: shenmue-motn\n"
		    "header:\n  attr_high: ");
	hex_id(b, f->attr_high);
	af_buf_puts(b, "   # attr bits 12-31, kept verbatim\n  pad: ");
	hex_inline(b, f->hdr_pad, f->hdr_pad_len);
	af_buf_puts(b, "   # bytes 0x14 up to the table, kept verbatim\n  count: ");
	af_y_u64(b, f->nentries);
	af_buf_puts(b, "   # entries: never add or remove (the game indexes them)\n");
	if (f->names_pad) {
		af_buf_puts(b, "  names_pad: ");
		hex_inline(b, f->names_pad, f->names_pad_len);
		af_buf_puts(b, "   # non-canonical padding before the data section, kept verbatim\n");
	}
	if (f->tail_len) {
		af_buf_puts(b, "  tail: ");
		hex_inline(b, f->tail, f->tail_len);
		af_buf_puts(b, "   # bytes after the size field, kept verbatim\n");
	}
}

static void emit_tables(const struct motn_file *f, struct af_buf *b)
{
	af_buf_puts(b, "entries:   # table order is the game's motion index: never reorder, insert or "
		    "delete; re-point block/extra to change a motion\n");
	for (uint32_t i = 0; i < f->nentries; i++) {
		const struct motn_entry *en = &f->entries[i];
		af_buf_puts(b, "  - {");
		put_name(b, en, "name");
		af_buf_puts(b, ", block: ");
		hex_id(b, f->blocks[en->block].orig);
		af_buf_puts(b, ", extra: ");
		hex_id(b, f->extras[en->extra].orig);
		af_buf_puts(b, "}\n");
	}
	af_buf_puts(b, "extras:   # opaque per-entry extra data (flags, frame events), each unique blob "
		    "once, keyed by its original offset, in file order\n");
	for (uint32_t i = 0; i < f->nextras; i++) {
		af_buf_puts(b, "  ");
		hex_id(b, f->extras[i].orig);
		af_buf_puts(b, ": ");
		hex_inline(b, f->extras[i].bytes, f->extras[i].len);
		af_buf_puts(b, f->extras[i].referenced ? "\n" : "   # referenced by no entry\n");
	}
}

static void emit_chan(struct emit *e, const struct motn_chan *ch, int c)
{
	struct af_buf *b = e->b;
	af_buf_puts(b, "        ");
	af_buf_puts(b, motn_chan_names[c]);
	af_buf_puts(b, ":\n");
	for (uint32_t k = 0; k < ch->nkeys; k++) {
		const struct motn_key *key = &ch->keys[k];
		if (af_buf_reserve(b, 16 + 3 * AF_NUM_MAX + 16))
			return;
		char *o = (char *)b->data + b->len;
		memcpy(o, "          - [", 13);
		o = put_uint(o + 13, key->frame);
		*o++ = ',';
		*o++ = ' ';
		*o++ = (char)('0' + key->type);
		if (key->type) { /* value first for people; the file stores it last */
			*o++ = ',';
			*o++ = ' ';
			o = put_half(o, key->w[key->type - 1]);
			for (unsigned w = 0; w + 1 < key->type; w++) {
				*o++ = ',';
				*o++ = ' ';
				o = put_half(o, key->w[w]);
			}
		}
		*o++ = ']';
		*o++ = '\n';
		b->len = (size_t)(o - (char *)b->data);
	}
}

static void emit_seq(struct emit *e, const struct motn_seq *s)
{
	struct af_buf *b = e->b;
	af_buf_puts(b, "    frames: ");
	af_y_u64(b, s->frames);
	af_buf_printf(b, "   # 30 fps; keys run 0..%u\n    rig: ", s->frames - 1u);
	hex_id(b, s->rig);
	af_buf_puts(b, s->rig == 0 || s->rig == 0x0D ? "   # human\n" : "\n");
	af_buf_puts(b, s->wide ? "    wide_counts: true\n" : "    wide_counts: false\n");
	af_buf_puts(b, "    bones:\n");
	for (uint32_t i = 0; i < s->nbones; i++) {
		const struct motn_bone *bone = &s->bones[i];
		const char *nm = motn_bone_name(bone->id);
		af_buf_puts(b, "      - bone: ");
		af_y_u64(b, bone->id);
		if (nm)
			af_buf_printf(b, "   # %s\n", nm);
		else
			af_buf_printf(b, "   # Bone%02u\n", bone->id);
		for (int c = 0; c < MOTN_NCH; c++)
			if (bone->mask & (1u << c))
				emit_chan(e, &bone->ch[c], c);
	}
}

/* A list of count u16 on one line: halves (shortest text) or int16 angles. */
static void emit_row(struct af_buf *b, const uint16_t *v, size_t count, size_t stride, int angles)
{
	if (af_buf_reserve(b, count * (AF_NUM_MAX + 2) + 4))
		return;
	char *o = (char *)b->data + b->len;
	*o++ = '[';
	for (size_t i = 0; i < count; i++) {
		uint16_t w = v[i * stride];
		if (i) {
			*o++ = ',';
			*o++ = ' ';
		}
		if (!angles) {
			o = put_half(o, w);
		} else if (w & 0x8000) {
			*o++ = '-';
			o = put_uint(o, 0x10000u - w);
		} else {
			o = put_uint(o, w);
		}
	}
	*o++ = ']';
	b->len = (size_t)(o - (char *)b->data);
}

static void bone_comment(struct af_buf *b, unsigned id)
{
	const char *nm = motn_bone_name(id);
	if (MOTN_HINGE(id))
		af_buf_printf(b, "   # Bone%02u, a hinge (knee or elbow): one angle\n", id);
	else if (nm)
		af_buf_printf(b, "   # %s\n", nm);
	else
		af_buf_printf(b, "   # Bone%02u\n", id);
}

/* Rig bit 15, baked: per bone its channels, each one value a frame (docs: "Baked"). */
static void emit_baked(struct emit *e, const struct motn_baked *k)
{
	struct af_buf *b = e->b;
	size_t col = 0;
	af_buf_puts(b, "    baked:   # rig word bit 15: one pose a frame, no keys; halves for root "
		    "translation, angles as integers (65536 = one turn)\n      frames: ");
	af_y_u64(b, k->frames);
	af_buf_puts(b, "   # 30 fps; every list has one value a frame\n      rig: ");
	hex_id(b, k->rig);
	af_buf_puts(b, "   # the rig word without bit 15\n      bones:\n        - bone: 0   # Root\n");
	for (int c = 0; c < MOTN_NCH; c++, col++) {
		af_buf_printf(b, "          %s: ", motn_chan_names[c]);
		emit_row(b, k->w + col, k->frames, k->nwords, c >= MOTN_RX);
		af_buf_putc(b, '\n');
	}
	for (unsigned id = 1; id < 64; id++) {
		if (!(k->mask >> id & 1))
			continue;
		af_buf_puts(b, "        - bone: ");
		af_y_u64(b, id);
		bone_comment(b, id);
		for (int c = 0; c < (MOTN_HINGE(id) ? 1 : 3); c++, col++) {
			af_buf_printf(b, "          %s: ", MOTN_HINGE(id) ? "hinge" : motn_chan_names[MOTN_RX + c]);
			emit_row(b, k->w + col, k->frames, k->nwords, 1);
			af_buf_putc(b, '\n');
		}
	}
}

/* Rig 0xFFFF: per node its scale, rotation tracks and translation (docs: "Nodes"). */
static void emit_nodes(struct emit *e, const struct motn_nodes *s)
{
	struct af_buf *b = e->b;
	size_t samples = (size_t)s->frames + 1;
	af_buf_puts(b, "    nodes:   # rig word 0xFFFF: per-node tracks sampled once a frame, 0..frames; "
		    "angles as integers (65536 = one turn)\n      frames: ");
	af_y_u64(b, s->frames);
	af_buf_printf(b, "   # 30 fps; a track has frames + 1 = %zu samples\n      unknown: [", samples);
	hex_id(b, s->unknown[0]);
	af_buf_puts(b, ", ");
	hex_id(b, s->unknown[1]);
	af_buf_puts(b, "]   # header words +4, +6: meaning unknown, kept\n      list:\n");
	for (uint32_t i = 0; i < s->n; i++) {
		const struct motn_node *nd = &s->node[i];
		af_buf_printf(b, "        - scale: ");
		if (nd->scale_track) {
			af_buf_puts(b, "[");
			for (size_t k = 0; k < samples; k++) {
				af_buf_puts(b, k ? ", " : "");
				emit_row(b, nd->scale_track + 3 * k, 3, 1, 0);
			}
			af_buf_puts(b, "]");
		} else {
			emit_row(b, nd->scale, 3, 1, 0);
		}
		af_buf_printf(b, "   # node %u\n", i);
		for (int c = 0; c < 3; c++) {
			af_buf_printf(b, "          %s: ", motn_chan_names[MOTN_RX + c]);
			if (nd->rot_track[c])
				emit_row(b, nd->rot_track[c], samples, 1, 1);
			else /* a constant: one number, no list */
				af_y_i64(b, (int16_t)nd->rot[c]);
			af_buf_putc(b, '\n');
		}
		af_buf_puts(b, "          t: ");
		emit_row(b, nd->trans, 3, 1, 0);
		af_buf_putc(b, '\n');
	}
}

/* A non-canonical raw block as the game reads it, as comments: read-only by construction.
 * Uncommenting these lines in place of raw/size/hex turns it into a canonical block. */
static void emit_view(struct emit *e, const struct motn_seq *s)
{
	struct af_buf *b = e->b, tmp = AF_BUF_INIT;
	af_buf_puts(b, "    # what the game reads from it (read-only; to edit, replace raw, size and "
		    "hex by these lines without '# '):\n");
	e->b = &tmp;
	emit_seq(e, s);
	e->b = b;
	for (size_t i = 0; i < tmp.len;) {
		const uint8_t *nl = memchr(tmp.data + i, '\n', tmp.len - i);
		size_t end = nl ? (size_t)(nl - tmp.data) + 1 : tmp.len;
		af_buf_puts(b, "    # ");
		af_buf_append(b, tmp.data + i + 4, end - i - 4);
		i = end;
	}
	if (tmp.failed)
		b->failed = 1;
	af_buf_free(&tmp);
}

static void emit_names(struct emit *e, const struct motn_file *f, uint32_t bi)
{
	struct af_buf *b = e->b;
	uint32_t n = 0;
	af_buf_puts(b, "    names: [");
	for (uint32_t i = e->name_first[bi]; i != UINT32_MAX; i = e->name_next[i], n++) {
		if (n)
			af_buf_puts(b, ", ");
		const struct motn_entry *en = &f->entries[i];
		if (motn_name_ascii(en))
			af_y_str(b, en->name, en->name_len);
		else
			af_buf_puts(b, "\"(name_hex)\"");
	}
	if (n > 1)
		af_buf_printf(b, "]   # shared by %u names: an edit here changes all of them\n", n);
	else
		af_buf_puts(b, "]   # read-only: derived from entries\n");
}

static void emit_blocks(struct emit *e, const struct motn_file *f)
{
	struct af_buf *b = e->b;
	af_buf_puts(b, "blocks:   # every data block once, in file order; ids are the original data "
		    "offsets (labels only: the encoder recomputes offsets)\n");
	for (uint32_t i = 0; i < f->nblocks; i++) {
		const struct motn_block *bl = &f->blocks[i];
		af_buf_puts(b, "  - block: ");
		hex_id(b, bl->orig);
		af_buf_putc(b, '\n');
		if (bl->orphan)
			af_buf_puts(b, "    orphan: true   # referenced by no entry; kept\n");
		else
			emit_names(e, f, i);
		if (!bl->raw) {
			if (bl->kind == MOTN_BAKED)
				emit_baked(e, &bl->baked);
			else if (bl->kind == MOTN_NODES)
				emit_nodes(e, &bl->nodes);
			else
				emit_seq(e, &bl->seq);
			continue;
		}
		af_buf_puts(b, "    raw: ");
		af_y_cstr(b, bl->why ? bl->why : "kept verbatim");
		af_buf_puts(b, "   # kept verbatim; read-only\n    size: ");
		af_y_u64(b, bl->len);
		af_buf_puts(b, "\n    hex: ");
		af_y_hexblock(b, bl->bytes, bl->len, 6);
		if (bl->view)
			emit_view(e, &bl->seq);
	}
}

static void emit_trailer(const struct motn_file *f, struct af_buf *b)
{
	char stamp[64];
	size_t k = 0;
	for (size_t i = 0; i < f->trailer_len && k + 1 < sizeof(stamp); i++) {
		char c = (char)f->trailer[i];
		if (c < 0x20 || c > 0x7E)
			break;
		stamp[k++] = c;
	}
	stamp[k] = 0;
	af_buf_puts(b, "trailer: ");
	hex_inline(b, f->trailer, f->trailer_len);
	if (k)
		af_buf_printf(b, "   # build stamp \"%s\", kept verbatim", stamp);
	af_buf_putc(b, '\n');
}

int motn_emit(const struct motn_file *f, const char *filename, struct af_buf *out,
	      struct af_diag *d)
{
	struct emit e = { out, NULL, NULL };
	struct stats st;
	int rc = AF_ENOMEM;
	e.name_first = af_alloc(((size_t)f->nblocks + 1) * sizeof(uint32_t));
	e.name_next = af_alloc(((size_t)f->nentries + 1) * sizeof(uint32_t));
	if (!e.name_first || !e.name_next)
		goto out;
	memset(e.name_first, 0xFF, ((size_t)f->nblocks + 1) * sizeof(uint32_t));
	for (uint32_t i = f->nentries; i-- > 0;) {
		e.name_next[i] = e.name_first[f->entries[i].block];
		e.name_first[f->entries[i].block] = i;
	}
	if (count(f, &e, &st))
		goto out;
	emit_head(f, filename, &st, out);
	emit_tables(f, out);
	emit_blocks(&e, f);
	emit_trailer(f, out);
	rc = out->failed ? AF_ENOMEM : 0;
out:
	free(e.name_first);
	free(e.name_next);
	return rc ? af_diag_error(d, rc, "out of memory rendering YAML") : 0;
}
