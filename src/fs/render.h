/* render.c: immutable shared text and the identity-keyed render cache (private to src/fs). */
#ifndef ANIMFS_FS_RENDER_H
#define ANIMFS_FS_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "animfs/buf.h"
#include "animfs/codec.h"

/* Rendered YAML, shared read-only by the cache and open handles. */
struct af_text {
	unsigned refs; /* atomic */
	size_t len;
	uint8_t data[];
};
struct af_text *af_text_new(const void *data, size_t len);
/* The text of b itself (b is left empty), or NULL on ENOMEM (b unchanged). */
struct af_text *af_text_take(struct af_buf *b);
struct af_text *af_text_ref(struct af_text *t);
void af_text_unref(struct af_text *t);

/* What is known about one backing file identity. */
struct af_rinfo {
	const struct af_codec *codec; /* NULL: no codec claims it (plain pass-through) */
	int failed;                   /* claimed but does not decode: pass-through */
	int read_only;                /* decodes, but would not rebuild byte for byte:
					 shown without write permission, saves refused */
	int container_ro;             /* read_only because a container holding it is
					 (no writer): opens for writing get EROFS */
	int have_size;
	size_t size;                  /* rendered length when have_size */
	uint64_t name_hash;           /* the name the bid was made for (bids read names) */
};

struct af_rcache;
struct af_rcache *af_rcache_new(size_t max_text_bytes);
void af_rcache_free(struct af_rcache *c);
/* The entry for st's identity: 1 when known (info filled; *text gets a reference
 * when the text is still cached and text != NULL), 0 when unknown. */
int af_rcache_get(struct af_rcache *c, const struct stat *st, struct af_rinfo *info,
		  struct af_text **text);
/* Record the bid result, or a render (text != NULL) or a failure for st. */
void af_rcache_put_bid(struct af_rcache *c, const struct stat *st, uint64_t name_hash,
		       const struct af_codec *codec);
void af_rcache_put_text(struct af_rcache *c, const struct stat *st, const struct af_codec *codec,
			struct af_text *text);
void af_rcache_put_failed(struct af_rcache *c, const struct stat *st, const struct af_codec *codec);
/* st's text (just put) is a read-only view (the codec's AF_VIEW_READONLY). */
void af_rcache_mark_read_only(struct af_rcache *c, const struct stat *st);
size_t af_rcache_text_bytes(struct af_rcache *c);
/* Keep the known sizes in dirfd/name (atomic replace), and read them back into an
 * empty cache at the next mount (returns the count; a missing or foreign file: 0). */
int af_rcache_save(struct af_rcache *c, int dirfd, const char *name);
int af_rcache_load(struct af_rcache *c, int dirfd, const char *name);

#endif
