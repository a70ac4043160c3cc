/* Who may use the server: HTTP Basic against a password file of crypt(3) hashes
 * ("user:$y$...", as `mkpasswd`, `openssl passwd -6` or `htpasswd -B` write them), only
 * ever over TLS or loopback. */
#ifndef ANIMFS_DAV_AUTH_H
#define ANIMFS_DAV_AUTH_H

#include <stddef.h>

struct dav_auth;

/* Reads FILE: NULL and why in err when it cannot (a line that is no "user:hash"
 * names its line number). */
struct dav_auth *dav_auth_load(const char *file, char *err, size_t errlen);
void dav_auth_free(struct dav_auth *a);
/* 1 when user and password match a line of the file. */
int dav_auth_check(const struct dav_auth *a, const char *user, const char *password);
/* A file's bytes, at most max: 0, or -errno. */
int dav_read_small(const char *file, size_t max, char **out, size_t *len);

#endif
