/* A Sims 3 `.package` seen as a folder of resources, for the command line and the
 * mount alike: the Jazz state machines inside with readable names, their YAML, a
 * commit of an edited YAML into a new package image, and a read-only index.yaml. */
#ifndef ANIMFS_PKGVIEW_H
#define ANIMFS_PKGVIEW_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/dbpf.h"
#include "animfs/diag.h"

#define AF_PKG_INDEX_NAME "index.yaml"
#define AF_PKG_NAME_MAX 128

/* One editable resource (a Jazz state machine whose body passes the Jazz check). */
struct af_pkg_item {
	char name[AF_PKG_NAME_MAX]; /* "petgardening.jazz", else the s3pe name */
	char s3pe[AF_PKG_NAME_MAX]; /* "S3_02D5DF13_00000000_91B95750336A8701.jazz" */
	uint32_t entry;             /* index record in pkg.e */
};

struct af_pkgview {
	struct af_buf file; /* an owned copy of the package bytes */
	struct af_dbpf pkg;
	struct af_pkg_item *items;
	size_t nitems;
	char **notes; /* per index record: why a Jazz record is not editable, or NULL */
	struct af_buf *keys; /* per index record: the unpacked _KEY name map (else empty) */
};

/* Parse a package (copied). Not DBPF 2.0: AF_EUNSUP; damaged: AF_EINVAL with the byte
 * offset; the caller then shows the file as the plain file it is. */
int af_pkgview_open(struct af_pkgview *v, const uint8_t *data, size_t n, struct af_diag *d);
void af_pkgview_close(struct af_pkgview *v);

/* By display name or by s3pe name ("x.jazz"); NULL when absent. */
const struct af_pkg_item *af_pkgview_find(const struct af_pkgview *v, const char *name);
/* The resource's decompressed bytes, appended to out. */
int af_pkgview_body(const struct af_pkgview *v, const struct af_pkg_item *it, struct af_buf *out,
		    struct af_diag *d);
/* The resource as a sims3-jazz YAML document (names from the package's _KEY maps). */
int af_pkgview_read(const struct af_pkgview *v, const struct af_pkg_item *it, struct af_buf *yaml,
		    struct af_diag *d);
/* Encode yaml for the resource. When it gives the resource's current bytes, *changed
 * is 0 and image stays empty; otherwise image holds the whole new package (checked by
 * re-reading it). On any error nothing is produced. */
int af_pkgview_commit(const struct af_pkgview *v, const struct af_pkg_item *it,
		      const uint8_t *yaml, size_t n, struct af_buf *image, int *changed,
		      struct af_diag *d);
/* decode -> encode must give the resource's bytes back. */
int af_pkgview_roundtrip(const struct af_pkgview *v, const struct af_pkg_item *it,
			 struct af_diag *d);
/* The read-only index.yaml: every record of the package. */
int af_pkgview_index_yaml(const struct af_pkgview *v, const char *pkgname, struct af_buf *out);

#endif
