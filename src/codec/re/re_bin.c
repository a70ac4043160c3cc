/* RE2/RE3 model container (spec 2-3): the kind tables, the cheap bid, the directory
 * reader with its checks (errors carry byte offsets) and the exact-rebuild writer. */
#include <string.h>
#include <strings.h>

#include "re.h"
#include "animfs/bytes.h"

#define EDD(b) { RE_EDD, b, 0 }
#define EMR(b, f) { RE_EMR, b, f }
#define RAW(r) { r, -1, 0 }

static const struct re_slot re3_pld[] = { EDD(0), EMR(0, 0), RAW(RE_MD2), RAW(RE_UNKNOWN),
					  RAW(RE_TIM) };
static const struct re_slot re3_plw[] = { EDD(0), EMR(0, RE_SLOT_HEADER_ONLY), EDD(1),
					  EMR(1, RE_SLOT_SEVEN), RAW(RE_BLOCK20), EDD(2),
					  EMR(2, 0), RAW(RE_MD2), RAW(RE_TIM) };
static const struct re_slot re3_emd[] = { RAW(RE_UNKNOWN), RAW(RE_UNKNOWN), EDD(0), EMR(0, 0),
					  EDD(1), EMR(1, 0), EDD(2), EMR(2, 0),
					  RAW(RE_BLOCK20), EDD(3), EMR(3, RE_SLOT_SEVEN),
					  EDD(4), EMR(4, 0), RAW(RE_MD2), RAW(RE_MD2) };
static const struct re_slot re2_pld[] = { EDD(0), EMR(0, 0), RAW(RE_MD1), RAW(RE_TIM) };
static const struct re_slot re2_plw[] = { EDD(0), EMR(0, RE_SLOT_HEADER_ONLY), RAW(RE_MD1),
					  RAW(RE_TIM) };
static const struct re_slot re2_emd[] = { RAW(RE_UNKNOWN), EDD(0), EMR(0, 0), EDD(1),
					  EMR(1, RE_SLOT_HEADER_ONLY), EDD(2), EMR(2, 0),
					  RAW(RE_MD1) };

static const char *const one_bank[] = { "body" };
static const char *const plw_banks[] = { "armed full body (uses the PLD skeleton)",
					 "lower body overlay", "upper body overlay" };
static const char *const re3_emd_banks[] = { "bank 0", "bank 1", "bank 2", "lower body overlay",
					     "upper body overlay" };
static const char *const re2_plw_banks[] = { "weapon set (uses the PLD skeleton)" };
static const char *const re2_emd_banks[] = { "bank 0", "bank 1 (uses bank 0's skeleton)",
					     "bank 2" };

static const struct re_layout layouts[] = {
	{ RE_GAME3, RE_PLD, 5, 1, "PLD", re3_pld, one_bank },
	{ RE_GAME3, RE_PLW, 9, 3, "PLW", re3_plw, plw_banks },
	{ RE_GAME3, RE_EMD, 15, 5, "EMD", re3_emd, re3_emd_banks },
	{ RE_GAME2, RE_PLD, 4, 1, "PLD", re2_pld, one_bank },
	{ RE_GAME2, RE_PLW, 4, 1, "PLW", re2_plw, re2_plw_banks },
	{ RE_GAME2, RE_EMD, 8, 3, "EMD", re2_emd, re2_emd_banks },
};
#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

static const char *extension(const char *name)
{
	const char *dot = name ? strrchr(name, '.') : NULL;
	return dot ? dot + 1 : NULL;
}

static int model_ext(const char *ext)
{
	return ext && (!strcasecmp(ext, "PLD") || !strcasecmp(ext, "PLW") || !strcasecmp(ext, "EMD"));
}

/* A model extension must match the section count (a 5-section .EMD is not a model).
 * Without one (a pipe, `decode --format`) the count alone decides; 4 sections are
 * then taken as an RE2 PLD: the PLW layout is identical, the bytes rebuild the same. */
const struct re_layout *re_layout_find(unsigned nsec, const char *name)
{
	const char *ext = extension(name);
	for (size_t i = 0; i < NLAYOUTS; i++) {
		if (layouts[i].nsec != nsec)
			continue;
		if (!model_ext(ext) || !strcasecmp(ext, layouts[i].ext))
			return &layouts[i];
	}
	return NULL;
}

const struct re_layout *re_layout_by(unsigned game, unsigned kind)
{
	for (size_t i = 0; i < NLAYOUTS; i++)
		if (layouts[i].game == game && layouts[i].kind == kind)
			return &layouts[i];
	return NULL;
}

void re_bank_slots(const struct re_layout *L, unsigned bank, struct re_bank *k)
{
	for (unsigned s = 0; s < L->nsec; s++) {
		if (L->slots[s].bank != (int)bank)
			continue;
		if (L->slots[s].role == RE_EDD)
			k->edd_sec = s;
		else
			k->emr_sec = s;
	}
}

const char *re_kind_name(unsigned kind)
{
	return kind == RE_PLD ? "pld" : kind == RE_PLW ? "plw" : "emd";
}

const char *re_role_name(unsigned role)
{
	static const char *const names[] = { "edd", "emr", "mesh-md2", "mesh-md1", "tim",
					     "block20", "unknown" };
	return role < sizeof(names) / sizeof(names[0]) ? names[role] : "?";
}

/* Name + the 8-byte header only: the real size (and so the directory) is not known
 * here, which is why the full check waits for to_yaml. */
int re_bid(const char *name, const uint8_t *head, size_t n)
{
	const char *ext = extension(name);
	if (!ext || n < 8)
		return 0;
	uint32_t dir = af_le32(head), count = af_le32(head + 4);
	if (count < 1 || count > 15)
		return 0;
	for (size_t i = 0; i < NLAYOUTS; i++) {
		if (layouts[i].nsec != count || strcasecmp(ext, layouts[i].ext))
			continue;
		/* every section holds at least 4 bytes */
		if ((uint64_t)dir < 8 + 4ull * count)
			return 0;
		/* a PLD/PLW starts with an EDD: empty, or a first frame list at a whole
		 * number of records (spec 4.3) */
		if (layouts[i].kind != RE_EMD && n >= 12 && af_le32(head + 8)) {
			unsigned R = layouts[i].game == RE_GAME3 ? 8 : 4, first = af_le16(head + 10);
			if (!first || first % R || first >= dir)
				return 0;
		}
		return 80;
	}
	return 0;
}

int re_dir_read(const uint8_t *bin, size_t n, const char *name, struct re_file *f,
		   struct af_arena *a, struct af_diag *d)
{
	if (n < 8)
		return af_diag_at_offset(d, AF_EINVAL, 0,
					 "file of %zu bytes is too short for the 8-byte header", n);
	uint32_t dir = af_le32(bin), count = af_le32(bin + 4);
	if (count < 1 || (uint64_t)dir + 4ull * count != n)
		return af_diag_at_offset(d, AF_EINVAL, 0,
					 "directory at 0x%x with %u entries does not end at the end of "
					 "the file (%zu bytes)", dir, count, n);
	f->lay = re_layout_find(count, name);
	if (!f->lay)
		return af_diag_at_offset(d, AF_EUNSUP, 4,
					 "%u sections with the name '%s' is not an RE2/RE3 "
					 "PLD/PLW/EMD layout", count, name ? name : "");
	f->sec = af_arena_array(a, count, sizeof(*f->sec));
	f->bank = af_arena_array(a, f->lay->nbanks, sizeof(*f->bank));
	if (!f->sec || !f->bank)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < count; i++) {
		uint64_t at = (uint64_t)dir + 4ull * i;
		uint32_t off = af_le32(bin + at);
		uint32_t end = i + 1 < count ? af_le32(bin + at + 4) : dir;
		if (i == 0 && off != 8)
			return af_diag_at_offset(d, AF_EINVAL, at,
						 "section 0 starts at 0x%x, not right after the "
						 "header (0x8)", off);
		if (end <= off || end > dir)
			return af_diag_at_offset(d, AF_EINVAL, at,
						 "section %u runs from 0x%x to 0x%x: offsets must "
						 "ascend and stay before the directory (0x%x)",
						 i, off, end, dir);
		f->sec[i].p = bin + off;
		f->sec[i].len = end - off;
		f->sec[i].file_off = off;
	}
	return AF_OK;
}

int re_dir_write(const struct re_sec *sec, unsigned nsec, struct af_buf *out,
		    struct af_diag *d)
{
	uint64_t total = 8;
	for (unsigned i = 0; i < nsec; i++)
		total += sec[i].len;
	if (total + 4ull * nsec > UINT32_MAX)
		return af_diag_error(d, AF_EINVAL, "the model would be %llu bytes, past the 32-bit "
				     "offsets of the directory", (unsigned long long)total);
	af_buf_put_u32le(out, (uint32_t)total);
	af_buf_put_u32le(out, nsec);
	for (unsigned i = 0; i < nsec; i++)
		af_buf_append(out, sec[i].p, sec[i].len);
	uint32_t off = 8;
	for (unsigned i = 0; i < nsec; i++) {
		af_buf_put_u32le(out, off);
		off += (uint32_t)sec[i].len;
	}
	return out->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : AF_OK;
}
