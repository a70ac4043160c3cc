/* The codec contract written once (codec.h): what every codec's to_yaml and from_yaml do
 * around the codec's own pipeline, so that no two codecs disagree on what out holds
 * after a failure, or on how a document is read. */
#include <string.h>

#include "animfs/codec.h"
#include "animfs/yamlio.h"

int af_codec_render(af_render_fn *render, const uint8_t *bin, size_t n, const struct af_io *io,
		    struct af_buf *out, struct af_diag *d)
{
	size_t start = out->len;
	int rc = render(bin, n, io, out, d);
	if (rc < 0)
		out->len = start; /* nothing of a failed view stays */
	return rc;
}

int af_codec_encode(af_encode_fn *encode, const uint8_t *yaml, size_t n, const struct af_io *io,
		    struct af_buf *out, struct af_diag *d)
{
	struct af_ydoc doc;
	struct af_ylimits lim = { .max_bytes = io ? io->yaml_max : 0,
				  .more = io ? io->yaml_more : NULL,
				  .more_ctx = io ? io->yaml_more_ctx : NULL };
	size_t start = out->len;
	int rc;
	memset(&doc, 0, sizeof(doc));
	if (!(rc = af_ydoc_parse(&doc, yaml, n, &lim, d)))
		rc = encode(doc.root, io, out, d);
	if (rc < 0)
		out->len = start; /* nor of failed bytes */
	af_ydoc_free(&doc);
	return rc;
}
