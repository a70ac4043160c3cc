/* Request paths and hrefs: a URL path decoded into the namespace's relative path, and
 * a relative path encoded as an href. */
#ifndef ANIMFS_DAV_HREF_H
#define ANIMFS_DAV_HREF_H

#include <stddef.h>

#include "animfs/buf.h"

#define DAV_PATH_MAX 4096
#define DAV_NAME_MAX 255

/* raw: the path of a request URL as sent ("/a/b%20c.yaml"), or an absolute URL
 * ("http://host:port/a") when absolute_ok. Decodes it into out (DAV_PATH_MAX bytes):
 * "" for the root, "a/b c.yaml" else; *dir set when it ended with '/'. -EINVAL for a
 * malformed escape, an encoded '/' or NUL, a "." or ".." segment, a path not starting
 * with '/'; -ENAMETOOLONG past DAV_NAME_MAX a name or DAV_PATH_MAX the whole. */
int dav_path_decode(const char *raw, int absolute_ok, char *out, int *dir);
/* The host part of an absolute URL ("host:port"), in out (size n); "" for a path. */
void dav_url_host(const char *url, char *out, size_t n);
/* Appends "/" + rel percent-encoded (and a trailing "/" when dir) to b. */
int dav_href_put(struct af_buf *b, const char *rel, int dir);
/* The last segment of rel ("" for the root). */
const char *dav_base(const char *rel);
/* 1 when rel is inside (or is) root. */
int dav_under(const char *rel, const char *root);

#endif
