/* The password file of animfs serve --auth (auth.h). */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/buf.h"
#include "auth.h"

#define AUTH_MAX (1u << 20)
#define USERS_MAX 1024

struct dav_user {
	char *name, *hash;
};

struct dav_auth {
	struct dav_user *u;
	size_t n;
	char *text;
};

int dav_read_small(const char *file, size_t max, char **out, size_t *len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), rc = 0;
	struct stat st;
	char *buf = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		rc = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		goto out;
	}
	size_t n = (size_t)st.st_size, got = 0;
	if (!(buf = af_alloc(n + 1))) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0) {
			rc = r < 0 ? -errno : -EIO;
			goto out;
		}
		got += (size_t)r;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return rc;
}

void dav_auth_free(struct dav_auth *a)
{
	if (!a)
		return;
	free(a->u);
	free(a->text);
	free(a);
}

struct dav_auth *dav_auth_load(const char *file, char *err, size_t errlen)
{
	struct dav_auth *a = af_alloc_zeroed(1, sizeof *a);
	size_t len, cap = 0, line = 0;
	int rc = a ? dav_read_small(file, AUTH_MAX, &a->text, &len) : -ENOMEM;
	if (rc) {
		snprintf(err, errlen, "--auth %s: %s", file, strerror(-rc));
		goto fail;
	}
	for (char *save, *l = strtok_r(a->text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		line++;
		l[strcspn(l, "\r")] = 0;
		if (!l[0] || l[0] == '#')
			continue;
		char *colon = strchr(l, ':');
		if (!colon || colon == l || colon[1] != '$' || a->n >= USERS_MAX) {
			snprintf(err, errlen, "--auth %s:%zu: not \"user:hash\" with a crypt(3) hash "
				 "(make one with mkpasswd or openssl passwd -6)", file, line);
			goto fail;
		}
		*colon = 0;
		struct dav_user *u = af_grow(a->u, &cap, a->n, sizeof *u, 8);
		if (!u) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		a->u = u;
		u[a->n].name = l;
		u[a->n].hash = colon + 1;
		a->n++;
	}
	if (a->n == 0) {
		snprintf(err, errlen, "--auth %s: no user in it", file);
		goto fail;
	}
	return a;
fail:
	dav_auth_free(a);
	return NULL;
}

int dav_auth_check(const struct dav_auth *a, const char *user, const char *password)
{
	for (size_t i = 0; i < a->n; i++) {
		if (strcmp(a->u[i].name, user))
			continue;
		struct crypt_data cd;
		memset(&cd, 0, sizeof cd);
		const char *h = crypt_r(password, a->u[i].hash, &cd);
		size_t n = strlen(a->u[i].hash);
		if (!h || strlen(h) != n)
			return 0;
		unsigned char diff = 0; /* in the same time whatever the first difference */
		for (size_t k = 0; k < n; k++)
			diff |= (unsigned char)(h[k] ^ a->u[i].hash[k]);
		return diff == 0;
	}
	return 0;
}
