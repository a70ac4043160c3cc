/* The container descriptor table. A container is an archive of members (a Sims 3
 * package; later Shenmue PKS, AFS, ...) that the mount shows as a folder and the
 * command line reads as `X/member`. Like a codec it bids on a file; it lists its
 * members, names the codec of each (by name: a container knows bytes, not codecs),
 * gives each member its own af_io (its siblings inside the container), renders a
 * read-only index.yaml, and rebuilds itself with exactly one member replaced.
 * Running the codecs on members is the table's work (af_member_*), for the mount
 * and the command line alike. */
#ifndef ANIMFS_CONTAINER_H
#define ANIMFS_CONTAINER_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/io.h"
#include "animfs/nameidx.h"
#include "animfs/pieces.h"

#define AF_INDEX_NAME "index.yaml" /* the read-only list of every member */
#define AF_MEMBER_NAME_MAX 128

/* What a container may ask of its caller while it opens: whether a codec claims a
 * member's bytes (the content check of a typed member; len: the member's length,
 * UINT64_MAX when not known): > 0 yes, 0 no, < 0 this build has no codec of that name
 * (keep the member: the mount shows it raw, read-only). */
struct af_container_env {
	int (*claims)(void *ctx, const char *codec, const char *name, const uint8_t *head, size_t n,
		      uint64_t len);
	void *ctx;
	/* The container file's siblings (an AFS reads the IDX beside it), or NULL. */
	const struct af_io *io;
};

struct af_member {
	char name[AF_MEMBER_NAME_MAX];  /* its name in the folder ("petgardening.jazz") */
	char alias[AF_MEMBER_NAME_MAX]; /* another name it answers to, or "" */
	const char *codec;              /* the codec of its bytes, by name; NULL: a raw member
					   (shown as its bytes, read-only) */
};

/* A member as an open archive keeps it (struct af_member's fields, the strings packed in
 * the archive's arena: 24 bytes and its names a member, not 264; a 1 M-entry archive
 * holds its names in ~40 MB, not 264 MB). */
struct af_archive_member {
	const char *name;
	const char *alias; /* "" when none */
	const char *codec;
};

struct af_container {
	const char *name;        /* "sims3-package" */
	const char *description; /* one line for `animfs formats` */
	unsigned version;        /* bump when what it shows changes (cache keys) */
	const char *noun;        /* "package", in messages */
	const char *plural;      /* "packages", for `animfs check`'s summary */
	const char *member_noun; /* "resource", in messages */
	const char *members;     /* what its members are, in that summary ("Jazz") */
	/* Cheap claim from the base name and up to 64 first bytes: 0 = not mine, 1 = by
	 * its name alone (the mount then asks check), 2 or more = by its content. */
	int (*bid)(const char *name, const uint8_t *head, size_t n);
	/* Whether the file (fd, size bytes) is one it shows as a folder, from as few reads
	 * as it can (a listing asks): 0, or AF_E* with d saying why not. */
	int (*check)(int fd, uint64_t size, struct af_diag *d);
	/* Parse a copy of the whole file. 0, or AF_E* (damage: AF_EINVAL with the offset). */
	int (*open)(const uint8_t *data, size_t n, const struct af_container_env *env, void **st,
		    struct af_diag *d);
	void (*close)(void *st);
	size_t (*count)(void *st);
	void (*member)(void *st, size_t i, struct af_member *m);
	/* Member i's bytes (unpacked), appended to out. */
	int (*body)(void *st, size_t i, struct af_buf *out, struct af_diag *d);
	/* Optional: member i's bytes as the file stores them (packed), appended to out:
	 * what the mount shows, raw and read-only, of a member whose body does not unpack
	 * (NULL: such a member cannot be read). */
	int (*stored)(void *st, size_t i, struct af_buf *out, struct af_diag *d);
	/* Member i's window on the container (what its codec may read beside it). */
	void (*member_io)(void *st, size_t i, struct af_io *io);
	/* The read-only index.yaml of the container named name. */
	int (*index_yaml)(void *st, const char *name, struct af_buf *out);
	/* The whole container anew with member i's bytes replaced by body (re-read and
	 * checked), every other member byte for byte. Warnings go to d. NULL: a read-only
	 * container (saves refused with AF_EROFS). */
	int (*replace)(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
		       struct af_diag *d);
	/* Optional: open from src (pieces.h), a file's descriptor, reading only what it
	 * shows (its tables, the first bytes of each member); body reads a member where it
	 * is asked. The state keeps a descriptor of its own (src->fd stays the caller's).
	 * From memory (src->mem: a nested archive's bytes, which outlive the state) the
	 * bytes are borrowed, not copied. NULL: the table reads the whole file and calls
	 * open. */
	int (*open_src)(const struct af_src *src, const struct af_container_env *env, void **st,
			struct af_diag *d);
	/* Optional: replace as pieces (pieces.h) of the bytes it was opened from: a copy of
	 * every range that stays, new bytes for the member and the tables that change
	 * (appended to out). NULL: the table wraps replace's whole image. */
	int (*plan)(void *st, size_t i, const uint8_t *body, size_t n, struct af_pieces *out,
		    struct af_diag *d);
	/* Optional (with open_src): where member i's bytes lie in the file, when they are
	 * stored there as they are: 1 with *off and *len, else 0 (NULL: never). Lets a
	 * large member be compared in pieces, never held whole. */
	int (*span)(void *st, size_t i, uint64_t *off, uint64_t *len);
	/* Optional: the first n bytes (or fewer: *got) of member i, without the rest (what
	 * a nested container's bid reads: a listing then reads no large member whole). */
	int (*head)(void *st, size_t i, uint8_t *buf, size_t n, size_t *got, struct af_diag *d);
	/* Optional: member i's bytes as the state holds them in memory (a layer's inflated
	 * bytes), lent to the archive opened inside it for as long as the state is open; NULL
	 * (or a NULL return): the member is read with body. */
	const uint8_t *(*lend)(void *st, size_t i, size_t *n);
	/* Optional: the bytes the state holds for its tables (directory, names), counted
	 * against the memory bound while it is open (af_archive_held). */
	size_t (*tables)(void *st);
	/* Optional: member i's bytes as a descriptor of the state's own (a large layer
	 * inflated into a temporary file), valid while the state is open: 1 with *src, 0
	 * when it holds none (then lend or body), AF_E* on failure. An archive inside is
	 * opened from it (open_src: its tables only). */
	int (*member_src)(void *st, size_t i, struct af_src *src, struct af_diag *d);
	/* Optional, for a layer (gzip): the whole container anew as pieces (appended to out),
	 * member i's new bytes given as pieces (inner, taken: left empty) of its current bytes
	 * as lend gives them; so an archive inside the layer is planned, not rebuilt, and
	 * the layer's own bytes are made as the file is written (a GZIP piece). */
	int (*plan_in)(void *st, size_t i, struct af_pieces *inner, struct af_pieces *out,
		       struct af_diag *d);
	/* Optional: member i's CRC-32 and length, known without reading it (a gzip
	 * trailer's): 1, else 0. Lets a comparison tell two members apart for free. */
	int (*digest)(void *st, size_t i, uint32_t *crc, uint64_t *len);
	/* Optional: member i's bytes handed to put in order, in chunks, without holding them
	 * whole (a layer inflated as it is handed). 0, or put's error / AF_E*. */
	int (*each)(void *st, size_t i,
		    int (*put)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d), void *ctx,
		    struct af_diag *d);
	/* A rebuild with nothing changed (for `animfs check`); NULL: the file itself. */
	int (*rebuild)(void *st, struct af_buf *image, struct af_diag *d);
	/* Optional: the same bytes as pieces (appended to out) of the bytes it was opened
	 * from (*src): the plan of no change, which `animfs check` compares with the file as
	 * af_pieces_each hands it over, in memory that does not grow with it. NULL:
	 * rebuild's image. */
	int (*rebuild_plan)(void *st, struct af_pieces *out, const struct af_src **src,
			    struct af_diag *d);
	/* Optional (NULL: members are never added): the whole container anew with a new
	 * member called name ("x.jazz": the container picks its kind and key from the name)
	 * of the codec named codec, holding body, every other member byte for byte (any
	 * name index the container keeps learns the new name). AF_EINVAL with d saying why
	 * when it takes no such member: a name or extension it cannot hold, a codec that is
	 * not the one of that extension, a member of that key already there. */
	int (*add)(void *st, const char *name, const char *codec, const uint8_t *body, size_t n,
		   struct af_buf *image, struct af_diag *d);
	/* Optional (NULL: members are never removed): the whole container anew without
	 * member i (nor what only names it), every other member byte for byte. */
	int (*remove)(void *st, size_t i, struct af_buf *image, struct af_diag *d);
	/* Optional, for a mod folder over the game (`--overlay`), when the game loads a file
	 * of this container's name from the mod folder together with its own and a member of
	 * the mod's overrides the game's of the same key (a Sims 3 package). overlay_merge:
	 * the game's container base with the members of the mod's over on top, into image
	 * (what the view shows); overlay_reduce: of merged (base with changes), only the
	 * members that differ from base's, with what names them, into image (left empty when
	 * none differ). NULL: the mod folder holds the whole rebuilt container (copy-up). */
	int (*overlay_merge)(const uint8_t *base, size_t nb, const uint8_t *over, size_t no,
			     struct af_buf *image, struct af_diag *d);
	int (*overlay_reduce)(const uint8_t *base, size_t nb, const uint8_t *merged, size_t nm,
			      struct af_buf *image, struct af_diag *d);
	/* Optional, with overlay_merge: where the mod folder's file goes among the game's
	 * mods so that it never replaces the file it overrides (a mod being fixed has that
	 * name) and the game reads it above that file: `animfs overlay status` says it. */
	const struct af_overlay_install {
		const char *folder; /* the folder of the game's mods it goes in ("Overrides") */
		const char *tag;    /* put before the name's extension ("override": x.override.package) */
		const char *how;    /* what makes the game read that folder above the others */
		/* the file of the game's mods folder that makes it so ("Resource.cfg"), and the
		 * lines it must hold for it ('\n' after each): `animfs overlay ship` adds them
		 * when any is missing; NULL: none */
		const char *config, *config_lines;
	} *overlay_install;
	/* Optional: the keys of index.yaml's member entries that only say where a member's
	 * bytes lie (offsets, stored sizes: a rebuild recomputes them, so one changed member
	 * moves every later one's), NULL-ended. `animfs decode --review` of the whole
	 * container (git's textconv) leaves them out; index.yaml always shows them. */
	const char *const *layout_keys;
	/* A layer (gzip): one member, and when that member is itself a container the folder
	 * shows that container in its place (the layer only shows in index.yaml). */
	int layer;
	/* Optional: its "  - format: ..." entry of index.yaml's layers list. When set, the
	 * table writes index.yaml (file, size, the layers outermost first, each enclosing
	 * layer's entry then this one's) and index_yaml gives the members part only. */
	int (*layer_yaml)(void *st, struct af_buf *out);
};

/* NULL-terminated table. */
extern const struct af_container *const af_containers[];
const struct af_container *af_container_bid(const char *name, const uint8_t *head, size_t n);
/* The container of that name, or NULL. */
const struct af_container *af_container_by_name(const char *name);
/* Tests: bid with c too (a container defined in a test). 0, or -1 when full. */
int af_container_add_for_tests(const struct af_container *c);

/* An open container: the descriptor, its state, and its members. A member that is
 * itself a container (by content) is opened on demand as a nested archive. */
#define AF_NEST_MAX 8 /* containers nested deeper are shown as raw members */
struct af_archive {
	const struct af_container *c;
	void *st;
	size_t n;
	struct af_archive_member *m;
	struct af_arena names;     /* m's strings */
	size_t size;               /* the bytes it was opened from */
	struct af_archive *parent; /* the archive this one is member `at` of, or NULL */
	size_t at;
	unsigned depth;            /* 0 for a file's own container */
	struct af_archive **sub;   /* per member: its nested archive once asked, or NULL */
	unsigned char *probed;     /* per member: asked already */
	/* member names and aliases by hash (af_archive_find; over m, which never moves) */
	struct af_nameidx by_name, by_alias;
	struct af_buf own; /* a nested archive's bytes, which its state borrows (or empty) */
	/* a member's save: the most its YAML tree may take (struct af_io.yaml_max), set by
	 * the caller on the outermost archive; 0: no limit; and who lends more (yaml_more,
	 * as struct af_io's) */
	size_t yaml_max;
	af_ymore_fn *yaml_more;
	void *yaml_more_ctx;
	/* the archives nested in it (a member that is itself an archive: its bytes when read
	 * whole, and its tables): nest_room, set by the caller on the outermost archive
	 * (NULL: no bound), is asked for all that the outermost holds with them, its own
	 * tables (af_archive_held) included, before a nested one is read and as its tables
	 * grow (as struct af_io.mem_room is; member: the nested one's name in its parent):
	 * 1 when they fit; one refused is shown as its raw member from then on. nested:
	 * what those opened hold (the outermost's count) */
	int (*nest_room)(void *ctx, const char *member, size_t want);
	void *nest_ctx;
	size_t nested;
};
/* Open with the codec table's content checks. 0 or AF_E*. */
int af_archive_open(struct af_archive *a, const struct af_container *c, const uint8_t *data,
		    size_t n, struct af_diag *d);
void af_archive_close(struct af_archive *a);
/* The same with the file's siblings (io, may be NULL; used while it opens only). */
int af_archive_open_io(struct af_archive *a, const struct af_container *c, const uint8_t *data,
		       size_t n, const struct af_io *io, struct af_diag *d);
/* The same from src (pieces.h): the container's open_src when it has one and src is a
 * descriptor (then only its tables are read, and src->fd may be closed after), else the
 * whole file read (bounded by AF_MAX_FILE) and open. */
int af_archive_open_src(struct af_archive *a, const struct af_container *c,
			const struct af_src *src, const struct af_io *io, struct af_diag *d);
/* The member of that name (or alias), or -1. */
long af_archive_find(const struct af_archive *a, const char *name);
/* The name a member is listed under in its folder (the mount; CONTAINER/NAME paths of
 * the command line), so that no listed name is listed twice, is the folder's own
 * (".", "..", index.yaml), or is another member's view: the member's name, with '/'
 * written %2F (a container that escapes its own names, as Shenmue's do, has none); "", "."
 * and ".." as %00, %2E and %2E%2E; when shown raw (its bytes, or a nested folder) and
 * ending in ".yaml", that dot as %2E; when shown as a view (view: the caller adds
 * ".yaml") and named "index", as %69ndex. Into out (size AF_MEMBER_NAME_MAX * 3 holds
 * any). */
void af_member_shown(const char *name, int view, char *out, size_t size);
/* The member name a listed name (n bytes) stands for: every %XX undone, %00 alone the
 * empty name. 0, or -1 when it is none (too long, or a NUL inside). */
int af_member_unshown(const char *shown, size_t n, char *out, size_t size);
/* The member listed as shown: the member of that name (or alias), else of that name with
 * its escapes undone (af_member_unshown), and only one listed so (or answering to it as
 * its alias); -1 when none. Its name in raw (AF_MEMBER_NAME_MAX) when raw is not NULL. */
long af_archive_find_shown(const struct af_archive *a, const char *shown, char *raw);
/* Member i as a nested archive (opened on the first ask and kept until a closes), or
 * NULL when its bytes are no container (or nest deeper than AF_NEST_MAX). */
struct af_archive *af_archive_sub(struct af_archive *a, size_t i);
/* The archive whose members a's folder shows: a itself, or through layers (gzip) the
 * container inside. */
struct af_archive *af_archive_shown(struct af_archive *a);
/* Walk "A/B/leaf" inside a's folder: every component but the last is the listed name
 * (af_member_shown) of a member that is a nested archive. The archive holding the leaf (shown), *leaf pointing into path;
 * NULL when a component is no nested archive. */
struct af_archive *af_archive_walk(struct af_archive *a, const char *path, const char **leaf);
/* The name of a's folder: its member's name in the container holding it (through
 * layers), or file for the file's own container. */
const char *af_archive_name(const struct af_archive *a, const char *file);
/* Whether saves into a are refused: it or a container around it is read-only. */
int af_archive_read_only(const struct af_archive *a);
/* Where member i of a file's own archive (no parent) lies in the file (the span hook):
 * 1 with *off and *len, else 0. */
int af_archive_span(const struct af_archive *a, size_t i, uint64_t *off, uint64_t *len);
/* Member i's bytes as its container holds them in memory (the lend hook: a layer's
 * inflated bytes), n in *n; NULL when it does not (read them with af_archive_body). */
const uint8_t *af_archive_lent(const struct af_archive *a, size_t i, size_t *n);
/* The bytes an open archive holds in memory for its members (what its container lends:
 * a layer's inflated bytes), its own member table (names, indexes) and the state's
 * tables (struct af_container.tables), for a cache's count. */
size_t af_archive_held(const struct af_archive *a);
/* Whether member i of a and of b (archives of the same container) hold the same bytes,
 * told without holding either whole where the container can (digest, each; the other
 * one's bytes lent): 1 the same, 0 not, -1 not told here (compare the bodies). */
int af_archive_same_member(const struct af_archive *a, const struct af_archive *b, size_t i,
			   struct af_diag *d);
/* Member i's bytes, appended to out. */
int af_archive_body(const struct af_archive *a, size_t i, struct af_buf *out, struct af_diag *d);
/* Member i's bytes as its file stores them (the stored hook); AF_EUNSUP without one. */
int af_archive_stored(const struct af_archive *a, size_t i, struct af_buf *out, struct af_diag *d);
/* A rebuild of a without changes handed to put in order (the container's rebuild_plan
 * through af_pieces_each, else its rebuild's image in one call): 0, put's error or AF_E* with d; AF_EUNSUP when
 * the container rebuilds nothing. */
int af_archive_rebuild_each(const struct af_archive *a,
			    int (*put)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d),
			    void *ctx, struct af_diag *d);
/* The outermost file anew with member i of a replaced by body: each enclosing container
 * is rebuilt in turn. AF_EROFS when one of them is read-only (replace NULL). */
int af_archive_replace(const struct af_archive *a, size_t i, const uint8_t *body, size_t n,
		       struct af_buf *image, struct af_diag *d);
/* The same as pieces (appended to out) of the bytes the outermost archive was opened
 * from. When the outermost container plans (its plan hook), the ranges that stay are
 * copies and only the member and the tables are new bytes. A member of a nested archive:
 * the innermost archive is planned when it plans; a layer around it (plan_in: gzip)
 * takes those pieces as they are (its stream is made as the file is written), any other
 * archive between gets its member's new bytes made from them in memory and is planned
 * (or rebuilt), up to the outermost. When none plans: one piece, the whole image. */
int af_archive_plan(const struct af_archive *a, size_t i, const uint8_t *body, size_t n,
		    struct af_pieces *out, struct af_diag *d);
/* index.yaml of a's folder (composed through layers, see layer_yaml; the members that
 * are archives themselves listed under "nested", each with its own index). */
int af_archive_index(struct af_archive *a, const char *name, struct af_buf *out);

/* Member i as its codec's YAML (AF_VIEW_READONLY as the codec says), rendered with the
 * defaults, or with the options opts (io.h; NULL: the defaults). */
int af_member_yaml(const struct af_archive *a, size_t i, struct af_buf *yaml, struct af_diag *d);
int af_member_yaml_opts(const struct af_archive *a, size_t i, const struct af_opts *opts,
			struct af_buf *yaml, struct af_diag *d);
/* The same within the caller's memory bound (struct af_io.mem_room): once the member's
 * bytes are read, af_model_of their size is asked for (io.h) and the codec may ask for
 * more; AF_ENOMEM with d saying how much when it is refused. */
int af_member_yaml_room(const struct af_archive *a, size_t i, const struct af_opts *opts,
			int (*mem_room)(void *ctx, size_t want), void *mem_ctx, struct af_buf *yaml,
			struct af_diag *d);
/* Encode yaml for member i (the one rule: its format must be the member's codec).
 * When it gives the member's current bytes *changed is 0 and image stays empty;
 * otherwise image is the whole new outermost file (af_archive_replace). Nothing is
 * produced on error. */
int af_member_commit(const struct af_archive *a, size_t i, const uint8_t *yaml, size_t n,
		     struct af_buf *image, int *changed, struct af_diag *d);
/* The same with the new outermost file as pieces (af_archive_plan), appended to out. */
int af_member_commit_plan(const struct af_archive *a, size_t i, const uint8_t *yaml, size_t n,
			  struct af_pieces *out, int *changed, struct af_diag *d);
/* Encode yaml as a new member called name (no member has that name or alias): its
 * codec is the one a new file of that name gets (af_codec_for_save), the container's
 * add builds image, the whole new container. AF_EUNSUP when the container adds no
 * members; nothing is produced on error. */
int af_member_add(const struct af_archive *a, const char *name, const uint8_t *yaml, size_t n,
		  struct af_buf *image, struct af_diag *d);
/* The whole container without member i, into image; AF_EUNSUP when it removes none. */
int af_member_remove(const struct af_archive *a, size_t i, struct af_buf *image,
		     struct af_diag *d);
/* decode -> encode of member i gives its bytes back (a raw member: 0). */
int af_member_roundtrip(const struct af_archive *a, size_t i, struct af_diag *d);

#endif
