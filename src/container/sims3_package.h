/* The Sims 3 package container's model (private to src/container/ and its tests): the
 * package parsed, its members (records of the types it shows whose bodies pass their
 * codec's content check) with readable names, the unpacked _KEY maps. */
#ifndef ANIMFS_SIMS3_PACKAGE_H
#define ANIMFS_SIMS3_PACKAGE_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/container.h"
#include "animfs/diag.h"
#include "dbpf.h"

#define AF_PKG_NAME_MAX AF_MEMBER_NAME_MAX
#define AF_DBPF_TYPE_CLIP 0x6B20C4F3u
#define AF_DBPF_TYPE_RIG 0x8EAF13DEu

/* A resource type shown as members (one row of sims3_package.c's table). */
struct af_pkg_type {
	uint32_t type;
	const char *ext;   /* the member's extension (".jazz") */
	const char *codec; /* its codec, by name */
	const char *what;  /* for index.yaml's notes */
	/* the instance of a name (spec 5.2, 5.3), or NULL: the type has no rule */
	uint64_t (*hash)(const char *s, size_t n);
};
/* The type whose extension ends name ("x.jazz"), with the stem's length; or NULL. */
const struct af_pkg_type *af_pkg_type_of_name(const char *name, size_t *stem);
/* Whether s can be a member's name: printable ASCII, no slash, not hidden, not 0x... */
int af_pkg_name_safe(const char *s, size_t n);
/* The instance a new resource of type t named s gets: its rule, else FNV-1 64. */
uint64_t af_pkg_instance_of(const struct af_pkg_type *t, const char *s, size_t n);

struct af_pkg_item {
	char name[AF_PKG_NAME_MAX]; /* "petgardening.jazz", else the s3pe name */
	char s3pe[AF_PKG_NAME_MAX]; /* "S3_02D5DF13_00000000_91B95750336A8701.jazz" */
	const char *codec;          /* its codec, by name */
	uint32_t entry;             /* index record in pkg.e */
};

struct af_pkgview {
	struct af_buf file; /* an owned copy of the package bytes (af_pkgview_open) */
	int fd, has_fd;     /* or a descriptor of its own the bytes are read from (_src) */
	struct af_dbpf pkg;
	struct af_pkg_item *items;
	size_t nitems;
	char **notes; /* per index record: why a record of a shown type is no member, or NULL */
	struct af_buf *keys; /* per index record: the unpacked _KEY name map (else empty) */
	/* what open learns once, so that nothing after is quadratic in the record count:
	 * items by name and by s3pe name; per record its item + 1 (uint32_t, 0: none) and
	 * whether it is a _KEY an earlier live one has the key of (uint8_t); every _KEY
	 * map entry sorted by instance (struct af_pkg_keyref) */
	struct af_nameidx by_name, by_s3pe;
	struct af_buf item_at, dup_key, keyrefs;
};

/* Parse a package (copied). Not DBPF 2.0: AF_EUNSUP; damaged: AF_EINVAL with the byte
 * offset. env (may be NULL) gives the content checks. */
int af_pkgview_open(struct af_pkgview *v, const uint8_t *data, size_t n,
		    const struct af_container_env *env, struct af_diag *d);
/* The same from src (pieces.h): only the header, the index, the _KEY maps and the first
 * bytes of each record of a shown type are read; a descriptor is duplicated (src->fd
 * stays the caller's) and bodies are read from it when asked; bytes in memory are
 * borrowed (they must outlive v). */
int af_pkgview_open_src(struct af_pkgview *v, const struct af_src *src,
			const struct af_container_env *env, struct af_diag *d);
void af_pkgview_close(struct af_pkgview *v);
/* By display name or by s3pe name ("x.jazz"); NULL when absent. */
const struct af_pkg_item *af_pkgview_find(const struct af_pkgview *v, const char *name);
/* The resource's decompressed bytes, appended to out. */
int af_pkgview_body(const struct af_pkgview *v, const struct af_pkg_item *it, struct af_buf *out,
		    struct af_diag *d);
/* sims3_members.c: the package anew with a new resource called name ("x.jazz": type
 * from the extension, group 0, instance by the type's rule, a _KEY entry; or the key of
 * an s3pe name) of codec's bytes body; or without member it (and the _KEY entries that
 * named only it). Every other record byte for byte. AF_EINVAL with d saying why. */
int af_pkgview_add(const struct af_pkgview *v, const char *name, const char *codec,
		   const uint8_t *body, size_t n, struct af_buf *image, struct af_diag *d);
int af_pkgview_remove(const struct af_pkgview *v, const struct af_pkg_item *it,
		      struct af_buf *image, struct af_diag *d);
/* Whether a _KEY body (spec 5.5) parses to its exact end; *has: whether it maps key. */
int af_pkg_keymap_whole(const uint8_t *p, size_t n, uint64_t key, int *has);
/* sims3_overlay.c (--overlay): base with the resources of the override package over
 * on top (same key: replaced; the game's _KEY names kept, the override's for other
 * instances added); and of merged (base changed), only the resources whose bodies differ
 * from base's under the same key, with the _KEY entries naming them (image left empty
 * when none differ). */
int af_pkg_overlay_merge(const uint8_t *base, size_t nb, const uint8_t *over, size_t no,
			 struct af_buf *image, struct af_diag *d);
int af_pkg_overlay_reduce(const uint8_t *base, size_t nb, const uint8_t *merged, size_t nm,
			  struct af_buf *image, struct af_diag *d);
/* The read-only index.yaml: every record of the package. */
int af_pkgview_index_yaml(const struct af_pkgview *v, const char *pkgname, struct af_buf *out);

#endif
