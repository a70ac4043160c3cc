/* A big view as a folder of small documents (`animfs decode --split DIR`, `encode DIR`,
 * the mount's --split-over), as fontTools' `ttx -s` does: the codec names the top-level
 * lists to cut (its descriptor's `split`, codec.h); each element, or each run of
 * neighbours that share the codec's name value, becomes a part file holding the one key
 * with those items, and the index keeps everything else, listing the parts' file names
 * in order where the items were. Nothing here knows a format.
 *
 * Parts and index are whole YAML documents, each valid against its own JSON Schema
 * (af_split_schema), named by its yaml-language-server modeline. The join puts the
 * parsed parts back in the index's tree and encodes that through the codec's from_doc,
 * so a save of any part is a save of the whole binary; a mistake is reported in the
 * file it is in, at that file's line:col. */
#ifndef ANIMFS_SPLIT_H
#define ANIMFS_SPLIT_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/codec.h"
#include "animfs/diag.h"

#define AF_SPLIT_INDEX "index.yaml"
#define AF_SPLIT_NAME_MAX 128 /* a part's file name, with its NUL */

struct af_split_part {
	char name[AF_SPLIT_NAME_MAX]; /* "blocks-0007-0x1E6A.yaml": a plain base name */
	struct af_buf text;
};

struct af_split {
	struct af_buf index;          /* index.yaml */
	struct af_split_part *parts;  /* in document order */
	size_t n;
};

/* Whether c's views can be split (it names lists and has from_doc). */
int af_split_able(const struct af_codec *c);

/* Cut yaml (a whole view of c, as to_yaml writes it, with or without its modeline) into
 * s. schema_dir as af_codec_modeline's (NULL or "none": no modelines). A list that is
 * not written as a block list stays whole in the index. lim (NULL: none): what the
 * parsed text may take (its max_bytes and more; the rest of it unused). 0, AF_ENOMEM,
 * or AF_EINVAL with d (the text does not parse, or needs more than lim lets it). */
int af_split_view(const struct af_codec *c, const uint8_t *yaml, size_t n, const char *schema_dir,
		  const struct af_ylimits *lim, struct af_split *s, struct af_diag *d);
void af_split_free(struct af_split *s);

/* Whether name may be a part's file name: a plain base name ending in ".yaml", not
 * the index's, not starting with a dot, shorter than AF_SPLIT_NAME_MAX. */
int af_split_part_name_ok(const char *name, size_t len);

/* The text of the part called name, appended to out: 0, or AF_E* with d set. */
typedef int af_split_read_fn(void *ctx, const char *name, struct af_buf *out, struct af_diag *d);

/* The binary of a split view: the index's text and each part it names (read through rd)
 * put together and encoded by c's from_doc, appended to out. After a failure out is as
 * on entry, d->line:col are in the file whose name is in where ("index.yaml" or the
 * part's), and d's warnings are lines "NAME:line:col: text". io->yaml_max bounds the
 * trees of the index and the parts together. c: the codec the
 * index's `format:` names (the caller's af_codec_for_save). */
int af_split_join(const struct af_codec *c, const uint8_t *index, size_t n, af_split_read_fn *rd,
		  void *ctx, const struct af_io *io, struct af_buf *out, struct af_diag *d,
		  char *where, size_t wsize);

/* The JSON Schema of a split view's index (key NULL) or of a part of the list key,
 * derived from c's schema: 0, AF_ENOMEM, AF_EUNSUP (no schema, or key is not one c
 * splits). Their file names beside "<c->name>.json": af_split_schema_name. */
int af_split_schema(const struct af_codec *c, const char *key, struct af_buf *out);
/* "<codec>.index.json" (key NULL) or "<codec>.<key>.json", into out. */
void af_split_schema_name(const struct af_codec *c, const char *key, char *out, size_t size);

#endif
