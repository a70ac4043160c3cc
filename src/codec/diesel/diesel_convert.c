/* Diesel animation: the rules that move a decoded file to the other width
 * (formats/diesel-x64.md section 6). Only the style changes; keys, events and
 * names stay as they are. `animfs convert` and a `layout:` changed in an editor
 * both come here, so the two give the same bytes. */
#include <string.h>

#include "diesel.h"

int diesel_style_by_name(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int style;
	} names[] = { { "converter", DSL_STYLE_CONVERTER },
		      { "native", DSL_STYLE_NATIVE },
		      { "stock", DSL_STYLE_STOCK } };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == n && !memcmp(names[i].name, s, n))
			return names[i].style;
	return -1;
}

static int refuse(struct af_diag *d, const char **why, const char *reason, const char *detail)
{
	*why = reason;
	return af_diag_error(d, AF_EUNSUP, "%s", detail);
}

/* The container and the keys every target writes the same way. */
static void common_keys(struct diesel_anim *m, int width)
{
	m->width = width;
	m->container = width == 64 ? DSL_RAW : DSL_ZLIB;
	m->level = 6;
	m->zhdr_custom = 0;
	m->zhdr[0] = 0x78, m->zhdr[1] = 0x9C;
	m->zextra = NULL, m->nzextra = 0;
	m->zstream = NULL, m->nzstream = 0;
	m->size_actual = 1;
	m->unk_same = 1;
	m->evoff_here = 1;
	m->hpad0 = 0, m->hpad1 = 0;
	m->name_pad = m->event_pad = m->track_align = (unsigned)width / 8;
	m->decoded_width = width;
}

/* To 64-bit. The converter (X1) copies version, location and the reserved
 * words, pads after every track including the last, and gives each event its
 * own name string; the game-style rules (X3) zero those words, de-duplicate and
 * stop after the last key. Both refuse the byte-swapped magic, as X1 does. */
static int to64(struct diesel_anim *m, int style, const char **why, struct af_diag *d)
{
	static const uint8_t le[4] = { 0x85, 0xCC, 0x83, 0x08 };
	if (style != DSL_STYLE_CONVERTER && style != DSL_STYLE_NATIVE)
		return refuse(d, why, "style is not one for x64",
			      "64-bit files are written in the converter or the native style");
	if (memcmp(m->magic, le, 4))
		return refuse(d, why, "byte-swapped magic (PD2ModelParser)",
			      "the magic is byte-swapped (08 83 CC 85, a PD2ModelParser file); the 64-bit readers refuse it, so animfs does not convert it");
	/* the converter refuses this too (diesel-x64.md 2.3): a size field of 0 is an old
	 * writer's, any other value says the file is not what it seems */
	if (m->width == 32 && !m->size_actual && m->size_value != 0)
		return refuse(d, why, "size field neither 0 nor the length",
			      "the header's size field is neither 0 nor the data's length; the converter refuses such a file, and so does animfs");
	common_keys(m, 64);
	if (style == DSL_STYLE_CONVERTER) {
		m->end_pad = 8;
		m->dedupe_events = 0;
		return 0;
	}
	m->end_pad = 1;
	m->dedupe_events = 1;
	m->version = 0;
	m->location = 0;
	for (uint32_t i = 0; i < m->nobj; i++)
		m->obj[i].pos.reserved = m->obj[i].rot.reserved = 0;
	return 0;
}

/* To the stock 32-bit layout, where every word fits. */
static int to32(struct diesel_anim *m, int style, const char **why, struct af_diag *d)
{
	if (style != DSL_STYLE_STOCK)
		return refuse(d, why, "style is not one for x32", "32-bit files are written in the stock style");
	if (m->location > UINT32_MAX)
		return refuse(d, why, "a 64-bit word does not fit 32 bits",
			      "the header's location does not fit the 32-bit layout's 32-bit word");
	if (m->hpad0 || m->hpad1)
		return refuse(d, why, "non-zero 64-bit header padding",
			      "the 64-bit header's padding words are not zero, and the 32-bit layout has no room for them");
	for (uint32_t i = 0; i < m->nobj; i++)
		if (m->obj[i].pos.reserved > UINT32_MAX || m->obj[i].rot.reserved > UINT32_MAX)
			return refuse(d, why, "a 64-bit word does not fit 32 bits",
				      "a track header's reserved word does not fit the 32-bit layout's 32-bit word");
	common_keys(m, 32);
	m->end_pad = 1;
	m->dedupe_events = 1;
	return 0;
}

int diesel_convert(struct diesel_anim *m, int width, int style, const char **why, struct af_diag *d)
{
	*why = NULL;
	if (style == DSL_STYLE_DEFAULT)
		style = width == 64 ? DSL_STYLE_CONVERTER : DSL_STYLE_STOCK;
	return width == 64 ? to64(m, style, why, d) : to32(m, style, why, d);
}
