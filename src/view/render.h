/* render.c: immutable shared text and the identity-keyed render cache (private to src/fs). */
#ifndef ANIMFS_FS_RENDER_H
#define ANIMFS_FS_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "animfs/buf.h"
#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "deps.h"

/* Rendered YAML, shared read-only by the cache and open handles. */
struct af_text {
	unsigned refs; /* atomic */
	unsigned holds; /* open files holding it in memory (af_rcache_hold; the cache's lock) */
	int resident;   /* an entry of the cache has it in memory (the cache's lock) */
	size_t len;
	uint64_t src; /* what it was made of besides its binary (deps.h: their hash), or 0 */
	uint8_t data[];
};
/* A text of len bytes, a copy of data (NULL: the bytes are the caller's to fill). */
struct af_text *af_text_new(const void *data, size_t len);
/* The text of b itself (b is left empty), or NULL on ENOMEM (b unchanged). */
struct af_text *af_text_take(struct af_buf *b);
/* A text rendered in place: af_text_begin gives an empty b the header's room (0 or
 * AF_ENOMEM), the renderer appends after it, and af_text_end makes b's bytes after the
 * room the text without moving them (b is left empty), or NULL on ENOMEM (b unchanged).
 * What af_text_take costs a render (a second pass over every page of the text) is
 * saved. */
int af_text_begin(struct af_buf *b);
struct af_text *af_text_end(struct af_buf *b);
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
	int by_caller;                /* its text read the binary's siblings, as the user
					 it was rendered for: texts kept per user
					 (af_rcache_get_member with af_who_key), not here */
};

/* What the cache has done (.animfs/stats shows it). */
struct af_rcache_stats {
	unsigned long renders;      /* views and members rendered (af_rcache_note_render) */
	unsigned long hits;         /* texts handed out from memory */
	unsigned long spill_writes; /* texts written to the spill file as they left memory */
	unsigned long spill_reads;  /* texts read back from it instead of rendered again */
	unsigned long spill_lost;   /* read back too late: overwritten meanwhile */
	unsigned long archive_opens; /* containers read and parsed (af_rcache_note_open) */
	size_t text_bytes, spill_bytes; /* held now, in memory and in the spill file */
	size_t lent_bytes, lent_max;    /* lent to parses now, and the most at once */
	unsigned long gate_waits;   /* renders that waited at the pool's gate */
};

struct af_rcache;
struct af_rcache *af_rcache_new(size_t max_text_bytes);
void af_rcache_free(struct af_rcache *c);
/* Texts that leave memory are kept in fd (an unlinked file of the daemon's, owned by
 * the cache from now on; -1: none) as a ring of cap bytes, and read back from there. */
void af_rcache_spill(struct af_rcache *c, int fd, uint64_t cap);
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
/* The same for member sub (a hash of its path, never 0) of the container st; a
 * member's read_only (its container is never rewritten) sets info.read_only and
 * info.container_ro. */
int af_rcache_get_member(struct af_rcache *c, const struct stat *st, uint64_t sub,
			 struct af_rinfo *info, struct af_text **text);
void af_rcache_put_member_text(struct af_rcache *c, const struct stat *st, uint64_t sub,
			       const struct af_codec *codec, int read_only, const struct af_fid *names,
			       struct af_text *text);
/* The identity of the user dictionary, the one source of a member's names outside its
 * container: taken before a member's render and given to its put (names; NULL: none
 * read), so that its text and size are used only while the dictionary is the one it
 * was rendered with, and a names-dependent member's (codec.h render_uses_names) size
 * and text then outlive its place in memory as any other's. */
void af_rcache_names_stamp(struct af_fid *out);
/* A text made of other sources than its binary (a view's that read its siblings or the
 * user dictionary: deps, NULL for none) put as st's (sub: 0, or the user it was read
 * as, af_who_key); the entry keeps deps (a reference) for af_rcache_get_made, and hands
 * out no size while it has them (its text, asked for, is checked: bin.c). */
void af_rcache_put_made(struct af_rcache *c, const struct stat *st, uint64_t sub,
			const struct af_codec *codec, struct af_text *text, struct af_deps *deps);
/* af_rcache_get_member, and the sources of its text when it has some (*deps: a
 * reference, taken with the text, or NULL). */
int af_rcache_get_made(struct af_rcache *c, const struct stat *st, uint64_t sub,
		       struct af_rinfo *info, struct af_text **text, struct af_deps **deps);
void af_rcache_put_member_failed(struct af_rcache *c, const struct stat *st, uint64_t sub,
				 const struct af_codec *codec);
/* A codec ran to render a view or a member; a container was read and parsed (counted
 * for .animfs/stats). */
void af_rcache_note_render(struct af_rcache *c);
void af_rcache_note_open(struct af_rcache *c);
void af_rcache_stats(struct af_rcache *c, struct af_rcache_stats *out);
/* st's text read its siblings (by_caller): a caller's is kept under af_who_key. */
void af_rcache_mark_by_caller(struct af_rcache *c, const struct stat *st);
/* A member's text made of other sources than its container (--rig-dir's rigs, read as
 * a caller: deps) put as member sub's of st (sub: the member's key, or the member's and
 * the caller's, member.c), with the user dictionary it read (names) as
 * af_rcache_put_member_text's. Its text has no src: a member's names are none of its
 * deps, so it is never known by them alone (a spilled one read back neither). */
void af_rcache_put_member_made(struct af_rcache *c, const struct stat *st, uint64_t sub,
			       const struct af_codec *codec, int read_only, const struct af_fid *names,
			       struct af_text *text, struct af_deps *deps);
/* Member sub of st read its rigs as its caller (by_caller): each caller's text is kept
 * under a key of the member's and theirs; sub's own entry keeps only a text of the
 * daemon's that has its deps (a listing's, a prefetch's), never a size. */
void af_rcache_mark_member_by_caller(struct af_rcache *c, const struct stat *st, uint64_t sub,
				     const struct af_codec *codec, int read_only);
/* st's text (just put) is a read-only view (the codec's AF_VIEW_READONLY). */
void af_rcache_mark_read_only(struct af_rcache *c, const struct stat *st);
size_t af_rcache_text_bytes(struct af_rcache *c);

/* The memory bound is one: a parse whose tree outgrows its own share (a save of a big
 * view) borrows the texts' share. af_rcache_lend lends up to want bytes of it (the
 * texts over what is left leave memory for the spill file) and returns what it lent
 * (less when other parses hold the rest); af_rcache_repay gives it back. */
size_t af_rcache_lend(struct af_rcache *c, size_t want);
void af_rcache_repay(struct af_rcache *c, size_t n);
/* A text an open file holds (issue 47: N callers holding N different big texts open
 * at once): af_rcache_hold lends its length from the texts' share for as long as open
 * files hold it (counted once however many do; a text the cache keeps in memory meanwhile
 * is counted there no more), all or nothing: 1 when lent, 0 when the share cannot lend
 * it (other held texts and loans have it). af_rcache_unhold by each holder at its end. */
int af_rcache_hold(struct af_rcache *c, struct af_text *t);
void af_rcache_unhold(struct af_rcache *c, struct af_text *t);
/* A text that af_rcache_hold could not lend: an unlinked file of the daemon's holding its
 * bytes (in the folder af_rcache_hold_dir named: the spill file's), read from there, its
 * bytes counted against cap in all until af_rcache_unhold_file: the descriptor, or
 * -EFBIG (no folder, past cap) or -errno (the disk refused). */
void af_rcache_hold_dir(struct af_rcache *c, int dirfd, uint64_t cap);
int af_rcache_hold_file(struct af_rcache *c, const struct af_text *t);
void af_rcache_unhold_file(struct af_rcache *c, size_t len);
/* One parse's loan from c (af_loan_more as af_ylimits.more / af_io.yaml_more, then
 * af_loan_end once the parse's documents are freed). */
struct af_loan af_rcache_loan(struct af_rcache *c);
/* A render's memory bound (the 64 MiB beside --cache-mb hold the renders in flight):
 * its text (yaml.bound = &rb.b) takes up to AF_RENDER_OWN bytes from the renders' pool
 * as it grows, then borrows from the texts' share, counted twice (the binary and the
 * codec's model grow with it), and fails with yaml.over past what the cache can lend;
 * the codec's model (af_io.mem_room = af_render_mem_room, and the render's own guess
 * from the binary's size) takes up to AF_RENDER_MODEL_OWN from the pool, then borrows
 * the same way, and is refused (rb.refused) past it. The pool (AF_RENDER_POOL) is the
 * mount's, shared by every render in flight: one render alone has what it always had,
 * several at once (a listing's workers, readers) share it and then the cache's loans,
 * so their sum stays within the bound (4 views of 12 MB rendered by 2 workers under
 * --cache-mb=16 peaked at 84 MiB with an allowance each, bound 80). A render refused
 * while others shared the pool is no verdict: the caller does it again alone (alone: it
 * waits for the renders in flight and holds back new ones, so it has the pool and the
 * loans as a render alone always had). af_render_bound_end once the text is in the
 * cache (which then counts it) or dropped. */
#define AF_RENDER_OWN ((size_t)16 << 20)
#define AF_RENDER_MODEL_OWN ((size_t)32 << 20)
#define AF_RENDER_POOL (AF_RENDER_OWN + AF_RENDER_MODEL_OWN)
struct af_render_bound {
	struct af_buf_bound b;
	struct af_loan loan;
	struct af_rcache *cache;
	size_t text_pool, model_pool; /* what each took from the pool */
	size_t text_over, model_over; /* what each borrowed past it (the text's counted twice) */
	size_t model_want;            /* the model refused, when refused */
	int refused;
	int pool_short; /* the pool had less than it asked for (others held it) */
	size_t guess;   /* what it guessed it would take (af_render_bound_init) */
};
/* guess: what the render will most likely take (a binary's: af_render_guess; 0 when
 * not known). While other renders or parses are in and its guess and theirs are more than
 * the pool and half of what the cache can lend, it waits for them: started then, it
 * would most likely be refused and done again alone, its work thrown away. */
void af_render_bound_init(struct af_render_bound *rb, struct af_rcache *c, int alone, size_t guess);
/* What a render of a binary of n bytes will most likely take of the pool: its model
 * (af_model_of, what it asks first) and a text as large (the samples' decodes peak at
 * 13-15x the binary, text included), asked as the text grows: in powers of two, up to
 * its own part of the pool. */
size_t af_render_guess(uint64_t n);
/* A hold on the same pool (a render's gate, with want 0; a YAML tree's own share: a
 * save's, a split view's cut's, af_ytree_budget): what is free of want now, beside the
 * renders in flight (alone: all of it, once they are done; new ones wait), until
 * af_rcache_pool_end. The tree borrows from the
 * cache past it; one refused with less than want is done again alone. A tree share of
 * 0 is no limit to af_ylimits: pass at least 1. */
size_t af_rcache_pool_begin(struct af_rcache *c, size_t want, int alone);
void af_rcache_pool_end(struct af_rcache *c, size_t held);
/* The end of a parse's hold (held of want, its loan ended too): 1 when it failed (rc)
 * short of room while others held the pool, to be done again alone (*loan then new). */
int af_rcache_pool_parsed(struct af_rcache *c, size_t held, size_t want, int alone, int rc,
			  struct af_loan *loan);
/* One render or parse within the memory bound, done again alone once when it was
 * refused short of room while others held the renders' pool: attempt(ctx, alone)
 * returns AF_AGAIN_ALONE for that (alone 0 only; its other results are 0 or negative),
 * and undoes what it made before it does. The one place the rule is written. */
#define AF_AGAIN_ALONE 1
int af_budget_run(int (*attempt)(void *ctx, int alone), void *ctx);
/* A parse's share of the bound (a save's, a member's save's, a split view's cut): the
 * tree's own share of the renders' pool for n bytes of YAML (af_ytree_budget(0, n)),
 * and the texts' loan past it (af_loan_more with &p->loan as its context).
 * af_parse_begin returns the most the tree may take (never 0: no limit to af_ylimits);
 * af_parse_end(p, rc) ends both once the parse's trees are freed: AF_AGAIN_ALONE when rc
 * failed short of room while others held the pool, else rc. */
struct af_parse_share {
	struct af_rcache *c;
	size_t held, want;
	int alone;
	struct af_loan loan;
};
size_t af_parse_begin(struct af_parse_share *p, struct af_rcache *c, size_t n, int alone);
int af_parse_end(struct af_parse_share *p, int rc);
/* af_io.mem_room over a struct af_render_bound. */
int af_render_mem_room(void *ctx, size_t want);
void af_render_bound_end(struct af_render_bound *rb);
/* Keep the known sizes in dirfd/name (atomic replace), and read them back into an
 * empty cache at the next mount (returns the count; a missing or foreign file: 0). */
int af_rcache_save(struct af_rcache *c, int dirfd, const char *name);
int af_rcache_load(struct af_rcache *c, int dirfd, const char *name);

#endif
