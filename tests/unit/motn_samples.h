/* Shared by the shenmue-motn sample tests: loading and rendering the samples, encoding,
 * and an independent reader of one channel of a sequence block (spec 4.1-4.6). */
#ifndef TEST_MOTN_SAMPLES_H
#define TEST_MOTN_SAMPLES_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fileio.h"

#define SAMPLE_DIR ANIMFS_SAMPLES "/shenmue/"
#define WALK_REL 0xCEBB2u
#define WALK_LEN 1778u

struct sample {
	struct af_buf bin;
	char *yaml;
};

static struct sample orig_s, alt_s;

static int load(struct sample *s, const char *name)
{
	struct af_diag d;
	struct af_buf y = AF_BUF_INIT;
	int rc;
	af_diag_init(&d);
	af_buf_init(&s->bin);
	rc = af_read_file_at(AT_FDCWD, name, AF_MAX_FILE, &s->bin, &d);
	if (!rc)
		rc = af_codec_by_name("shenmue-motn")->to_yaml(s->bin.data, s->bin.len, NULL, &y, &d);
	af_buf_putc(&y, 0);
	s->yaml = (char *)af_buf_steal(&y, NULL);
	af_diag_free(&d);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	if (load(&orig_s, SAMPLE_DIR "dashgl_motion.bin") ||
	    load(&alt_s, SAMPLE_DIR "dashgl_motion_alt.bin"))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	af_buf_free(&orig_s.bin);
	af_buf_free(&alt_s.bin);
	free(orig_s.yaml);
	free(alt_s.yaml);
	return 0;
}

static inline int encode(const char *yaml, struct af_buf *out, struct af_diag *d)
{
	af_diag_init(d);
	return af_codec_by_name("shenmue-motn")->from_yaml((const uint8_t *)yaml, strlen(yaml), NULL,
							   out, d);
}

/* Independent reader (spec 4.1-4.6, header offsets): channel c of bone id `bone`. */
static inline unsigned read_chan(const uint8_t *s, unsigned bone, unsigned c, uint16_t *frames,
					 uint8_t *types, uint16_t *values)
{
	unsigned F = af_le16(s) & 0x7FFF, o2 = af_le16(s + 4), o3 = af_le16(s + 6);
	unsigned o4 = af_le16(s + 8), o5 = af_le16(s + 10), w3 = F > 255 ? 2 : 1;
	unsigned ch = 0, q3 = o3, q4 = o4, q5 = o5;
	for (unsigned p = 12; af_le16(s + p); p += 2) {
		unsigned e = af_le16(s + p);
		for (unsigned b = 0; b < 6; b++) {
			if (!(e & (0x100u >> b)))
				continue;
			unsigned n = s[o2 + ch] + 2;
			for (unsigned k = 0; k < n; k++) {
				unsigned t = s[q4 + k / 4] >> (6 - 2 * (k % 4)) & 3;
				if (e >> 9 == bone && b == c) {
					frames[k] = (uint16_t)(k == 0 ? 0 : k == n - 1 ? F - 1
							       : w3 == 2 ? af_le16(s + q3 + 2 * (k - 1))
							       : s[q3 + k - 1]);
					types[k] = (uint8_t)t;
					values[k] = t ? af_le16(s + q5 + 2 * (t - 1)) : 0;
				}
				q5 += 2 * t;
			}
			if (e >> 9 == bone && b == c)
				return n;
			q3 += w3 * (n - 2);
			q4 += (n + 3) / 4;
			ch++;
		}
	}
	return 0;
}

static int samples_absent(void)
{
	FILE *f = fopen(SAMPLE_DIR "dashgl_motion.bin", "rb");
	if (!f) {
		printf("SKIP: ../shared/samples not found\n");
		return 1;
	}
	fclose(f);
	return 0;
}

#endif
