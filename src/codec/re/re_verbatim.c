/* What is known about the sections carried verbatim (spec 6): MD2/MD1 object counts,
 * TIM size and depth, the ten s16 of the 20-byte block. Written as YAML comment lines
 * only: none of it is read back, the bytes are the truth. */
#include "re.h"
#include "animfs/bytes.h"

static void line(struct af_buf *b, int indent)
{
	af_y_indent(b, indent);
	af_buf_puts(b, "# ");
}

static void md2_info(struct af_buf *b, const uint8_t *p, size_t len, int indent)
{
	if (len < 8)
		return;
	uint32_t count = af_le32(p + 4);
	line(b, indent);
	af_buf_printf(b, "MD2 mesh: length field %u, %u objects (mesh object i is drawn by "
		      "bone i)\n", af_le32(p), count);
	if (!af_fits(8, (uint64_t)count * 24, len))
		return;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *o = p + 8 + 24 * i;
		line(b, indent);
		af_buf_printf(b, "  object %u: %u vertices, %u triangles, %u quads\n", i,
			      af_le32(o + 8), af_le16(o + 20), af_le16(o + 22));
	}
}

static void md1_info(struct af_buf *b, const uint8_t *p, size_t len, int indent)
{
	if (len < 12)
		return;
	line(b, indent);
	af_buf_printf(b, "MD1 mesh: length field %u (where the texture-coordinate tables "
		      "begin), %u objects\n", af_le32(p), af_le32(p + 8) / 2);
}

static void tim_info(struct af_buf *b, const uint8_t *p, size_t len, int indent)
{
	static const unsigned bpp[] = { 4, 8, 16, 24 };
	if (len < 8 || af_le32(p) != 0x10)
		return;
	uint32_t flags = af_le32(p + 4);
	size_t at = 8;
	unsigned cluts = 0, colors = 0;
	if (flags & 8) {
		if (!af_fits(at, 12, len))
			return;
		colors = af_le16(p + at + 8);
		cluts = af_le16(p + at + 10);
		at += af_le32(p + at);
	}
	if (!af_fits(at, 12, len))
		return;
	unsigned mode = flags & 3, units = af_le16(p + at + 8), h = af_le16(p + at + 10);
	unsigned w = mode == 0 ? units * 4 : mode == 1 ? units * 2 : mode == 2 ? units
		: units * 2 / 3;
	line(b, indent);
	af_buf_printf(b, "TIM texture: %u x %u pixels, %u bpp, %u palettes of %u colours\n", w,
		      h, bpp[mode], cluts, colors);
}

static void block20_info(struct af_buf *b, const uint8_t *p, size_t len, int indent)
{
	if (len != 20)
		return;
	line(b, indent);
	af_buf_puts(b, "ten s16 (meaning unknown, moves with the lower-body skeleton):");
	for (int i = 0; i < 10; i++)
		af_buf_printf(b, " %d", (int16_t)af_le16(p + 2 * i));
	af_buf_putc(b, '\n');
}

void re_info(struct af_buf *b, unsigned role, const uint8_t *p, size_t len, int indent)
{
	if (len == 4 && !af_le32(p)) {
		line(b, indent);
		af_buf_puts(b, "empty slot (4 zero bytes)\n");
		return;
	}
	switch (role) {
	case RE_MD2: md2_info(b, p, len, indent); break;
	case RE_MD1: md1_info(b, p, len, indent); break;
	case RE_TIM: tim_info(b, p, len, indent); break;
	case RE_BLOCK20: block20_info(b, p, len, indent); break;
	default: break;
	}
}
